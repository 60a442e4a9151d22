/// The per-case files of `rtenc bench cc` as text (the CLI writes them): rate series, per-packet queuing delay,
/// markers, and a gnuplot script stacking capacity / target / send / receive rate per flow over the queuing delay
/// with its p95 and the queue limit, drops and keyframes (and probes) as markers — the shape of `bench adapt`'s
/// plots.
public enum CaseReport {
    /// 200 ms bins (RFC 8868 §3: rates measured at 200 ms intervals): `time_s,capacity_kbps` then per media flow
    /// `target_kbps,send_kbps,receive_kbps`, and the cross traffic's receive rate.
    public static func seriesCSV(_ input: AnalysisInput, packets: [PacketFate]) -> String {
        let width: Int64 = 200_000_000
        let bins = Int((input.duration + width - 1) / width)
        let flows = input.media.count
        var send = Array(repeating: Array(repeating: 0.0, count: bins), count: flows)
        var receive = send
        var cross = Array(repeating: 0.0, count: bins)
        for packet in packets {
            let isMedia = packet.kind == .media && packet.flow < flows
            if isMedia, packet.enqueued < input.duration { send[packet.flow][Int(packet.enqueued / width)] += Double(packet.bytes) }
            guard let arrived = packet.arrived, arrived < input.duration else { continue }
            if isMedia {
                receive[packet.flow][Int(arrived / width)] += Double(packet.bytes)
            } else if packet.kind == .tcpData || packet.kind == .cbr {
                cross[Int(arrived / width)] += Double(packet.bytes)
            }
        }
        let toKbps = 8.0 / (Double(width) / 1e9) / 1000
        var header = "time_s,capacity_kbps"
        for flow in 0 ..< flows { header += ",target\(flow)_kbps,send\(flow)_kbps,receive\(flow)_kbps" }
        header += ",cross_kbps"
        var lines = [header]
        for bin in 0 ..< bins {
            let start = Int64(bin) * width
            let capacity = input.links[0].averageCapacity(from: start, to: start + width)
            var line = "\(number(Double(start) / 1e9)),\(capacity.isFinite ? number(capacity / 1000) : "")"
            for flow in 0 ..< flows {
                let target = input.target(of: flow, at: start).map { number(Double($0) / 1000) } ?? ""
                line += ",\(target),\(number(send[flow][bin] * toKbps)),\(number(receive[flow][bin] * toKbps))"
            }
            line += ",\(number(cross[bin] * toKbps))"
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line per media packet that left the queue: `time_s,flow,queue_delay_ms` (by departure).
    public static func delayCSV(_ packets: [PacketFate], mediaFlows: Int) -> String {
        var lines = ["time_s,flow,queue_delay_ms"]
        for packet in packets where packet.kind == .media && packet.flow < mediaFlows {
            guard let departed = packet.departed, let delay = packet.queueDelay else { continue }
            lines.append("\(number(Double(departed) / 1e9)),\(packet.flow),\(number(Double(delay) / 1e6))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `time_s,flow,event` for drops (`queue`, `random`), keyframes and probe clusters.
    public static func markersCSV(_ result: SimulationResult) -> String {
        var rows: [(Int64, String)] = []
        let flows = result.scenario.media.count
        for packet in result.packets where packet.kind == .media && packet.flow < flows {
            if let drop = packet.drop { rows.append((packet.enqueued, "\(packet.flow),\(drop.rawValue)")) }
        }
        for frame in result.frames where frame.isKeyframe { rows.append((frame.captured, "\(frame.flow),keyframe")) }
        for (flow, clusters) in result.probeClusters.enumerated() {
            for cluster in clusters { rows.append((cluster.time, "\(flow),probe")) }
        }
        rows.sort { $0.0 < $1.0 }
        return (["time_s,flow,event"] + rows.map { "\(number(Double($0.0) / 1e9)),\($0.1)" }).joined(separator: "\n") + "\n"
    }

    /// A gnuplot script drawing `<stem>.svg` from `<stem>.series.csv`, `<stem>.delay.csv`, `<stem>.markers.csv`.
    public static func gnuplotScript(stem: String, title: String, analysis: Analysis, mediaFlows: Int, duration: Int64,
                                     queueLimitMilliseconds: Double?) -> String {
        let seconds = Double(duration) / 1e9
        var rates = ["'\(stem).series.csv' using 1:2 with steps lw 2 lc rgb 'black' title 'capacity'"]
        for flow in 0 ..< mediaFlows {
            let base = 3 + 3 * flow
            rates.append("'' using 1:\(base) with steps dt 2 lc \(flow + 1) title 'target \(flow)'")
            rates.append("'' using 1:\(base + 1) with lines lw 1 lc \(flow + 1) dt 3 title 'send \(flow)'")
            rates.append("'' using 1:\(base + 2) with lines lw 2 lc \(flow + 1) title 'receive \(flow)'")
        }
        rates.append("'' using 1:\(3 + 3 * mediaFlows) with lines lc rgb 'gray' title 'cross traffic'")
        let p95 = number(analysis.queueDelayP95)
        var delay = ["'\(stem).delay.csv' using 1:3 with dots lc rgb 'navy' title 'queuing delay (media packets)'",
                     "\(p95) with lines lc rgb 'red' title 'p95 \(p95) ms'"]
        if let limit = queueLimitMilliseconds { delay.append("\(number(limit)) with lines dt 2 lc rgb 'black' title 'queue limit'") }
        return """
            # rtenc bench cc: \(title)
            set terminal svg size 1100,820 dynamic font 'sans,10'
            set output '\(stem).svg'
            set datafile separator ','
            set key outside right top
            set grid
            set xrange [0:\(number(seconds))]
            set multiplot layout 3,1 title '\(title.filter { $0 != "'" })'
            set ylabel 'kb/s'
            plot \(rates.joined(separator: ", \\\n     "))
            set ylabel 'queuing delay, ms'
            set yrange [0:*]
            plot \(delay.joined(separator: ", \\\n     "))
            set ylabel 'flow'
            set yrange [-0.5:\(mediaFlows)]
            set xlabel 'time, s'
            plot '\(stem).markers.csv' using 1:(stringcolumn(3) eq 'queue' ? $2 : 1/0) with points pt 2 lc rgb 'red' title 'queue drop', \\
                 '' using 1:(stringcolumn(3) eq 'random' ? $2 : 1/0) with points pt 1 lc rgb 'orange' title 'random loss', \\
                 '' using 1:(stringcolumn(3) eq 'keyframe' ? $2 + 0.2 : 1/0) with points pt 7 lc rgb 'blue' title 'keyframe', \\
                 '' using 1:(stringcolumn(3) eq 'probe' ? $2 - 0.2 : 1/0) with points pt 9 lc rgb 'green' title 'probe cluster'
            unset multiplot

            """
    }

    /// One row per case and controller: `case,controller,utilization,queue_delay_p95_ms` (the scatter's data).
    public static func scatterCSV(_ analyses: [Analysis]) -> String {
        var lines = ["case,controller,utilization,queue_delay_p95_ms"]
        for a in analyses {
            lines.append("\(a.caseName.filter { $0 != "," }),\(a.controller),\(a.utilization.map(number) ?? ""),\(number(a.queueDelayP95))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Pantheon/Sprout's throughput-vs-delay scatter across controllers (design note §5d): p95 queuing delay on a
    /// reversed axis, utilisation up, so better is up and right; one point per case and controller, labelled.
    public static func scatterScript(stem: String, analyses: [Analysis]) -> String {
        let widest = max(10, (analyses.map(\.queueDelayP95).max() ?? 0) * 1.1)
        return """
        # rtenc bench cc: utilisation against p95 queuing delay, every case and controller
        set terminal svg size 900,600 dynamic font 'sans,10'
        set output '\(stem).svg'
        set datafile separator ','
        set key off
        set grid
        set xlabel 'queuing delay p95, ms (better →)'
        set ylabel 'utilisation (static periods)'
        set xrange [\(number(widest.rounded(.up))):0]
        set yrange [0:*]
        plot '\(stem).csv' skip 1 using 4:3 with points pt 7 ps 1.2, \\
             '' skip 1 using 4:3:(stringcolumn(1).' '.stringcolumn(2)) with labels offset 0,1 font 'sans,8'

        """
    }

    static func number(_ value: Double) -> String { SummaryJSON.number(value) }
}
