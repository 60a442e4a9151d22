/// The `--json` summary of `rtenc bench cc` (issue 17's shape): a list with one object per case and controller,
/// holding at least `case`, `controller`, `utilization` (0–1, static periods), `queue_delay_p50_ms`,
/// `queue_delay_p95_ms`, `queue_delay_p99_ms`, `loss_ratio`, `frame_delay_p95_ms` and, for several flows,
/// `jain_index` (5 s windows; null for one flow), then the rest of the analysis. Written by hand: the module has
/// no Foundation. Numbers that are not finite become null.
public enum SummaryJSON {
    public static func encode(_ analyses: [Analysis], seed: UInt64) -> String {
        "[\n" + analyses.map { "  " + object($0, seed: seed) }.joined(separator: ",\n") + "\n]\n"
    }

    static func object(_ a: Analysis, seed: UInt64) -> String {
        var fields: [(String, String)] = [
            ("case", string(a.caseName)), ("controller", string(a.controller)), ("seed", "\(seed)"),
            ("utilization", number(a.utilization)),
            ("queue_delay_p50_ms", number(a.queueDelayP50)), ("queue_delay_p95_ms", number(a.queueDelayP95)),
            ("queue_delay_p99_ms", number(a.queueDelayP99)), ("queue_delay_max_ms", number(a.queueDelayMax)),
            ("seconds_above_100ms", number(a.secondsAbove100ms)), ("seconds_above_200ms", number(a.secondsAbove200ms)),
            ("loss_ratio", number(a.lossRatio)), ("queue_drops", "\(a.queueDrops)"), ("random_losses", "\(a.randomLosses)"),
            ("media_packets", "\(a.mediaPacketsSent)"),
            ("frame_delay_p50_ms", number(a.frameDelayP50)), ("frame_delay_p95_ms", number(a.frameDelayP95)),
            ("frames_sent", "\(a.framesSent)"), ("frames_delivered", "\(a.framesDelivered)"), ("keyframes", "\(a.keyframes)"),
            ("jain_index", number(a.jainIndex)),
        ]
        let fairness = a.fairness.map {
            "{\"window_s\": \($0.windowSeconds), \"jain_index\": \(number($0.jainIndex)), \"max_min_ratio\": \(number($0.maxMinRatio)), \"windows\": \($0.windows)}"
        }
        fields.append(("fairness", "[" + fairness.joined(separator: ", ") + "]"))
        let convergence = a.convergence.map { "{\"change_s\": \(number(Double($0.change) / 1e9)), \"seconds\": \(number($0.seconds))}" }
        fields.append(("convergence", "[" + convergence.joined(separator: ", ") + "]"))
        return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// A JSON number rounded to 4 decimals (null when not finite).
    public static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        let rounded = (value * 10_000).rounded() / 10_000
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? "\(Int64(rounded))" : "\(rounded)"
    }

    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
