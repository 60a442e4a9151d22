import Bitstream
import FoundationEssentials

/// The files a run leaves behind: per-frame CSV, plot series, a JSON summary and a markdown table.
public enum AdaptationReport {
    /// The JSON summary of one scenario's runs (all policies), for scripts.
    public struct Summary: Codable, Sendable {
        public struct ScenarioInfo: Codable, Sendable {
            public var name: String
            public var duration: Double
            /// [time s, target b/s] pairs.
            public var changes: [[Double]]
        }

        public struct Run: Codable, Sendable {
            public var policy: String
            public var summary: String
            public var encoder: String
            public var wallSeconds: Double
            /// The slowest convergence after a change (start excluded), s; nil when none could be judged or one
            /// never converged (then `unconvergedSteps` > 0).
            public var worstStepResponseSeconds: Double?
            public var unconvergedSteps: Int
            public var metrics: AdaptationMetrics
        }

        public var scenario: ScenarioInfo
        public var content: String
        public var width: Int
        public var height: Int
        public var frameRate: Double
        public var runs: [Run]
    }

    public static func summary(of runs: [AdaptationRun], content: String) -> Summary? {
        guard let first = runs.first else { return nil }
        let scenario = first.scenario
        return Summary(
            scenario: .init(
                name: scenario.name, duration: scenario.duration,
                changes: scenario.changes.map { [$0.time, Double($0.bitRate)] }),
            content: content, width: first.width, height: first.height, frameRate: first.frameRate,
            runs: runs.map { run in
                let worst = run.metrics.worstStepResponseSeconds
                return Summary.Run(
                    policy: run.policyName, summary: run.policySummary, encoder: run.encoderName,
                    wallSeconds: run.wallSeconds, worstStepResponseSeconds: worst?.isFinite == true ? worst : nil,
                    unconvergedSteps: run.metrics.stepResponses.count { $0.convergenceSeconds == nil },
                    metrics: run.metrics)
            })
    }

    public static func json(_ summary: Summary) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // Every Double in the summary is finite by construction (ratios over positive targets), so this cannot
        // throw; should it ever, an empty object is better than a crash.
        guard let data = try? encoder.encode(summary) else { return "{}" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Per-frame series for the plot: time, target, cap, 1 s sliding rate (NaN until full), key, drop.
    public static func seriesCSV(_ run: AdaptationRun) -> String {
        let parameters = run.metrics.parameters
        let sliding = RateSeries.sliding(
            run.frames, window: parameters.window, frameInterval: parameters.frameInterval)
        var text = "time_s,target_kbps,cap_kbps,rate1s_kbps,keyframe,dropped\n"
        for (frame, point) in zip(run.frames, sliding) {
            let rate = point.bitsPerSecond.map { kbps($0) } ?? "NaN"
            text += "\(frame.time),\(kbps(Double(frame.target))),\(kbps(Double(frame.target) * parameters.capFactor)),"
            text += "\(rate),\(frame.isKeyFrame ? 1 : 0),\(frame.isDropped ? 1 : 0)\n"
        }
        return text
    }

    /// The scenario's target and cap (× `capFactor`) at each change, and once more at the end so the last step is
    /// drawn to the edge.
    public static func targetsCSV(_ scenario: Scenario, capFactor: Double = 1.5) -> String {
        var text = "time_s,target_kbps,cap_kbps\n"
        let rows = scenario.changes + [Scenario.Change(time: scenario.duration, bitRate: scenario.changes.last?.bitRate ?? 0)]
        for change in rows {
            text += "\(change.time),\(kbps(Double(change.bitRate))),\(kbps(Double(change.bitRate) * capFactor))\n"
        }
        return text
    }

    /// 100 ms bins: start time, rate.
    public static func binnedCSV(_ run: AdaptationRun, bin: Double = 0.1) -> String {
        var text = "start_s,rate100ms_kbps\n"
        for point in RateSeries.binned(run.frames, bin: bin, duration: run.scenario.duration) {
            text += "\(point.time),\(kbps(point.bitsPerSecond ?? 0))\n"
        }
        return text
    }

    private static func kbps(_ bitsPerSecond: Double) -> String {
        String(cFormat: "%.1f", bitsPerSecond / 1000)
    }

    // MARK: Markdown

    public static let tableHeader = """
        | scenario | policy | step response, worst (goal ≤ 1.0 s) | first 1 s after each judged change (× new target) \
        | MAE (goal ≤ 10%) | overshoot | cap violations (goal 0) | worst cap window | dropped | keyframes |
        | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |
        """

    /// One table row per run.
    public static func tableRows(_ runs: [AdaptationRun]) -> [String] {
        runs.map { run in
            let metrics = run.metrics
            let step: String
            if let worst = metrics.worstStepResponseSeconds {
                step = worst.isFinite ? String(cFormat: "%.2f s", worst) : "not within ±10% by segment end"
            } else {
                step = "n/a (segments < 2 s)"
            }
            // Only changes whose segment was judged: a ramp's 0.5 s steps have no full window of their own.
            let judged = metrics.stepResponses
            let firsts = judged.prefix(4).map { response in
                response.firstWindowRatio.map { String(cFormat: "%.2f", $0) } ?? "–"
            }
            let more = judged.count > 4 ? " …" : ""
            let firstColumn = firsts.isEmpty ? "–" : firsts.joined(separator: ", ") + more
            return "| \(run.scenario.name) | \(run.policyName) | \(step) | \(firstColumn) | "
                + String(cFormat: "%.1f%%", metrics.meanAbsoluteError * 100) + " | "
                + String(cFormat: "%.0f%%", metrics.overshoot * 100) + " | \(metrics.capViolations) | "
                + String(cFormat: "%.2f×", metrics.worstCapRatio) + " | \(metrics.droppedFrames) | \(metrics.keyFrames) |"
        }
    }
}
