/// RFC 8868's metrics as design note §5d defines them, computed from per-packet and per-frame records:
///
/// - **utilisation**: per 1 s bin of a static period (no capacity change, join, pause or cross-traffic change in
///   the 5 s before it, every bin of the run's first 5 s excluded), the media flows' goodput on a link (wire bytes
///   of media packets that arrived, by arrival time) over min(the link's capacity in the bin, Σ R_max of the media
///   flows active on it); the mean over bins and links.
/// - **queuing delay** of every media packet that left the queue (departure − arrival at the queue: exact):
///   p50/p95/p99/max (nearest rank), and the seconds spent above 100 and 200 ms (100 ms bins by departure, counted
///   when a media packet departing in the bin waited longer).
/// - **frame delay**: capture → the receiver's session handing the access unit over, p50/p95 of delivered frames.
/// - **loss**: media packets dropped by the queue and lost at random, over media packets sent.
/// - **convergence** after each change: the first time from which every 1 s window (in 200 ms steps) of each active
///   flow's goodput until the next change stays within ±10 % of its fair share min(capacity / n, R_max).
/// - **fairness**: Jain's index (Σx)²/(n·Σx²) and max/min goodput over consecutive 1, 5 and 20 s windows in static
///   periods with at least two media flows active throughout; means over the windows.
public struct Analysis: Sendable {
    public static let settling: Int64 = 5_000_000_000
    public static let second: Int64 = 1_000_000_000

    public struct Convergence: Sendable, Hashable {
        public var change: Int64
        /// Seconds until converged (nil: not before the next change or the end).
        public var seconds: Double?
    }

    public struct Fairness: Sendable, Hashable {
        public var windowSeconds: Int
        public var jainIndex: Double
        public var maxMinRatio: Double
        public var windows: Int
    }

    public var caseName: String
    public var controller: String
    public var utilization: Double?
    public var queueDelayP50: Double
    public var queueDelayP95: Double
    public var queueDelayP99: Double
    public var queueDelayMax: Double
    public var secondsAbove100ms: Double
    public var secondsAbove200ms: Double
    public var frameDelayP50: Double?
    public var frameDelayP95: Double?
    public var framesSent: Int
    public var framesDelivered: Int
    public var keyframes: Int
    public var mediaPacketsSent: Int
    public var queueDrops: Int
    public var randomLosses: Int
    public var lossRatio: Double
    public var convergence: [Convergence]
    public var fairness: [Fairness]
    /// p95 queuing delay of the media packets entering the queue in each phase — from one change (capacity step,
    /// join, pause) to the next, the first from 0 — in ms (nil: none entered). The run's p95 can sit on the edge of a
    /// phase whose queue is full (5.1's drop to 0.6 holds ~5 % of the packets); per phase two runs compare stably.
    public var phaseQueueDelayP95: [(start: Int64, end: Int64, p95: Double?)]

    /// Jain's index over 5 s windows when there are several flows (the summary's `jain_index`).
    public var jainIndex: Double? { fairness.first { $0.windowSeconds == 5 }?.jainIndex }

    public init(_ input: AnalysisInput) {
        caseName = input.caseName
        controller = input.controller
        let media = input.packets.filter { $0.kind == .media && $0.flow < input.media.count }
        let delays = media.compactMap(\.queueDelay).map { Double($0) / 1e6 }.sorted()
        queueDelayP50 = Self.percentile(delays, 0.50) ?? 0
        queueDelayP95 = Self.percentile(delays, 0.95) ?? 0
        queueDelayP99 = Self.percentile(delays, 0.99) ?? 0
        queueDelayMax = delays.last ?? 0
        var above100: Set<Int64> = []
        var above200: Set<Int64> = []
        for packet in media {
            guard let delay = packet.queueDelay, let departed = packet.departed else { continue }
            if delay > 100_000_000 { above100.insert(departed / 100_000_000) }
            if delay > 200_000_000 { above200.insert(departed / 100_000_000) }
        }
        secondsAbove100ms = Double(above100.count) / 10
        secondsAbove200ms = Double(above200.count) / 10
        mediaPacketsSent = media.count
        queueDrops = media.count { $0.drop == .queue }
        randomLosses = media.count { $0.drop == .random }
        lossRatio = media.isEmpty ? 0 : Double(queueDrops + randomLosses) / Double(media.count)
        framesSent = input.frames.count
        keyframes = input.frames.count { $0.isKeyframe }
        let frameDelays = input.frames.compactMap { frame in frame.delivered.map { Double($0 - frame.captured) / 1e6 } }.sorted()
        framesDelivered = frameDelays.count
        frameDelayP50 = Self.percentile(frameDelays, 0.50)
        frameDelayP95 = Self.percentile(frameDelays, 0.95)

        let bounds = [0] + input.changeTimes.filter { $0 > 0 && $0 < input.duration } + [input.duration]
        phaseQueueDelayP95 = zip(bounds, bounds.dropFirst()).map { start, end in
            let phase = media.filter { $0.enqueued >= start && $0.enqueued < end }.compactMap(\.queueDelay)
            return (start, end, Self.percentile(phase.map { Double($0) / 1e6 }.sorted(), 0.95))
        }

        let goodput = Self.goodputBins(input, width: Self.second / 5)
        utilization = Self.utilization(input, goodput: goodput)
        convergence = Self.convergence(input, goodput: goodput)
        fairness = [1, 5, 20].compactMap { Self.fairness(input, goodput: goodput, windowSeconds: $0) }
    }

    /// Nearest rank: the smallest value with at least `p` of the values at or below it.
    public static func percentile(_ sorted: [Double], _ p: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count, max(1, rank)) - 1]
    }

    /// Media goodput (wire bytes arrived) per flow per bin of `width` ns.
    static func goodputBins(_ input: AnalysisInput, width: Int64) -> [[Double]] {
        let count = Int((input.duration + width - 1) / width)
        var bins = Array(repeating: Array(repeating: 0.0, count: count), count: input.media.count)
        for packet in input.packets where packet.kind == .media && packet.flow < input.media.count {
            guard let arrived = packet.arrived, arrived < input.duration else { continue }
            bins[packet.flow][Int(arrived / width)] += Double(packet.bytes)
        }
        return bins
    }

    /// Bytes of `flow` in [start, end) from 200 ms bins, as bits/s.
    static func rate(_ goodput: [[Double]], flow: Int, from start: Int64, to end: Int64) -> Double {
        let width = second / 5
        let first = Int(start / width)
        let last = min(goodput[flow].count, Int(end / width))
        guard last > first else { return 0 }
        let bytes = goodput[flow][first ..< last].reduce(0, +)
        return bytes * 8 / (Double(last - first) * Double(width) / 1e9)
    }

    /// A window [start, end) is static when no change falls in [start − 5 s, end) and it starts 5 s in.
    static func isStatic(_ input: AnalysisInput, from start: Int64, to end: Int64) -> Bool {
        start >= settling && !input.changeTimes.contains { $0 > start - settling && $0 < end }
    }

    /// Consecutive windows of `width` from 0 that are static.
    static func staticWindows(_ input: AnalysisInput, width: Int64) -> [(start: Int64, end: Int64)] {
        stride(from: Int64(0), through: input.duration - width, by: Int(width))
            .map { ($0, $0 + width) }
            .filter { isStatic(input, from: $0.0, to: $0.1) }
    }

    static func activeFlows(_ input: AnalysisInput, link: Int, from start: Int64, to end: Int64) -> [Int] {
        input.media.indices.filter { i in
            input.media[i].direction == link && input.media[i].spans.contains { $0.lowerBound <= start && $0.upperBound >= end }
        }
    }

    static func utilization(_ input: AnalysisInput, goodput: [[Double]]) -> Double? {
        var ratios: [Double] = []
        for (start, end) in staticWindows(input, width: second) {
            for link in 0 ..< 2 {
                let flows = activeFlows(input, link: link, from: start, to: end)
                guard !flows.isEmpty else { continue }
                let ceiling = Double(flows.reduce(0) { $0 + input.media[$1].maximumBitrate })
                let available = min(input.links[link].averageCapacity(from: start, to: end), ceiling)
                guard available > 0 else { continue }
                let received = flows.reduce(0.0) { $0 + rate(goodput, flow: $1, from: start, to: end) }
                ratios.append(received / available)
            }
        }
        return ratios.isEmpty ? nil : ratios.reduce(0, +) / Double(ratios.count)
    }

    static func convergence(_ input: AnalysisInput, goodput: [[Double]]) -> [Convergence] {
        var out: [Convergence] = []
        for (k, change) in input.changeTimes.enumerated() {
            let next = k + 1 < input.changeTimes.count ? input.changeTimes[k + 1] : input.duration
            guard next - change >= 2 * second else { continue }
            var worst: Double? = 0
            for link in 0 ..< 2 {
                let flows = activeFlows(input, link: link, from: change, to: next)
                guard !flows.isEmpty else { continue }
                let capacity = input.links[link].averageCapacity(from: change, to: next)
                for flow in flows {
                    let share = min(capacity / Double(flows.count), Double(input.media[flow].maximumBitrate))
                    let step = second / 5
                    var converged: Int64?
                    var candidate = change
                    while candidate + second <= next {
                        var windowStart = candidate
                        var holds = true
                        while windowStart + second <= next {
                            let r = rate(goodput, flow: flow, from: windowStart, to: windowStart + second)
                            if abs(r - share) > 0.1 * share {
                                holds = false
                                break
                            }
                            windowStart += step
                        }
                        if holds {
                            converged = candidate
                            break
                        }
                        candidate = windowStart + step  // no window before the failing one can start a stable run
                    }
                    if let converged, let current = worst {
                        worst = max(current, Double(converged - change) / 1e9)
                    } else {
                        worst = nil
                    }
                }
            }
            out.append(Convergence(change: change, seconds: worst))
        }
        return out
    }

    static func fairness(_ input: AnalysisInput, goodput: [[Double]], windowSeconds: Int) -> Fairness? {
        let width = Int64(windowSeconds) * second
        var indices: [Double] = []
        var ratios: [Double] = []
        for (start, end) in staticWindows(input, width: width) {
            for link in 0 ..< 2 {
                let flows = activeFlows(input, link: link, from: start, to: end)
                guard flows.count >= 2 else { continue }
                let rates = flows.map { rate(goodput, flow: $0, from: start, to: end) }
                let sum = rates.reduce(0, +)
                let squares = rates.reduce(0) { $0 + $1 * $1 }
                guard squares > 0 else { continue }
                indices.append(sum * sum / (Double(rates.count) * squares))
                if let low = rates.min(), low > 0 { ratios.append(rates.max()! / low) }
            }
        }
        guard !indices.isEmpty else { return nil }
        return Fairness(windowSeconds: windowSeconds, jainIndex: indices.reduce(0, +) / Double(indices.count),
                        maxMinRatio: ratios.isEmpty ? .infinity : ratios.reduce(0, +) / Double(ratios.count), windows: indices.count)
    }
}
