import Testing
@testable import CongestionSimulation

/// The analyser on hand-made packet and frame logs whose answers are known by arithmetic.
struct AnalysisTests {
    static let ms: Int64 = 1_000_000
    static let s: Int64 = 1_000_000_000

    static func flow(_ range: Range<Int64>) throws -> MediaFlowSpec {
        MediaFlowSpec(path: try PathImpairment(propagation: 0), spans: [range])
    }

    /// One flow, 20 s on 1 Mb/s: a 1000-byte packet every 10 ms (800 kb/s) whose queuing delays cycle through
    /// 0…99 ms, 20 more dropped by the queue, and a frame every 100 ms delivered 40…130 ms after capture.
    @Test func singleFlowMetrics() throws {
        var packets: [PacketFate] = []
        for i in 0 ..< 2000 {
            let enqueued = Int64(i) * 10 * Self.ms
            let departed = enqueued + Int64(i % 100) * Self.ms
            packets.append(PacketFate(link: 0, flow: 0, kind: .media, bytes: 1000, sequence: Int64(i), enqueued: enqueued,
                                      departed: departed, arrived: departed))
        }
        for i in 0 ..< 20 {
            packets.append(PacketFate(link: 0, flow: 0, kind: .media, bytes: 1000, sequence: Int64(2000 + i),
                                      enqueued: Int64(i) * Self.s + 5 * Self.ms, drop: .queue))
        }
        // Cross traffic and RTCP are not media: they must not count.
        packets.append(PacketFate(link: 0, flow: 1, kind: .cbr, bytes: 1500, sequence: 0, enqueued: 0, departed: 900 * Self.ms, arrived: 900 * Self.ms))
        packets.append(PacketFate(link: 0, flow: 0, kind: .rtcp, bytes: 80, sequence: 0, enqueued: 0, departed: 500 * Self.ms, arrived: 500 * Self.ms))
        var frames: [FrameFate] = []
        for k in 0 ..< 200 {
            let captured: Int64 = Int64(k) * 100 * Self.ms
            let delay: Int64 = Int64(40 + (k % 10) * 10) * Self.ms
            frames.append(FrameFate(flow: 0, captured: captured, bytes: 1000, isKeyframe: k == 0, delivered: captured + delay))
        }
        let input = AnalysisInput(
            caseName: "hand", controller: "none", duration: 20 * Self.s,
            links: [.init(capacity: .schedule(try .constant(1e6)), queueLimit: .unlimited), .unlimited],
            media: [try Self.flow(0 ..< 20 * Self.s)], changeTimes: [], packets: packets, frames: frames, targets: [[(0, 800_000)]])
        let analysis = Analysis(input)
        #expect(analysis.queueDelayP50 == 49)
        #expect(analysis.queueDelayP95 == 94)
        #expect(analysis.queueDelayP99 == 98)
        #expect(analysis.queueDelayMax == 99)
        #expect(analysis.secondsAbove100ms == 0)
        #expect(analysis.queueDrops == 20 && analysis.randomLosses == 0 && analysis.mediaPacketsSent == 2020)
        #expect(abs(analysis.lossRatio - 20.0 / 2020) < 1e-12)
        #expect(analysis.frameDelayP50 == 80)
        #expect(analysis.frameDelayP95 == 130)
        #expect(analysis.keyframes == 1 && analysis.framesDelivered == 200)
        // 800 kb/s over min(1 Mb/s, R_max 1.5 Mb/s) in every static second (5…20 s).
        #expect(abs(try #require(analysis.utilization) - 0.8) < 1e-9)
        #expect(analysis.fairness.isEmpty && analysis.jainIndex == nil)
    }

    /// Packets of `bytes` evenly at `rate` b/s in [start, end), arriving as sent.
    static func stream(flow: Int, rate: Double, from start: Int64, to end: Int64, bytes: Int = 1250) -> [PacketFate] {
        let spacing = Double(bytes * 8) / rate * 1e9
        var out: [PacketFate] = []
        var k = 0.0
        while true {
            let t = start + Int64((k * spacing).rounded())
            guard t < end else { return out }
            out.append(PacketFate(link: 0, flow: flow, kind: .media, bytes: bytes, sequence: Int64(k), enqueued: t, departed: t, arrived: t))
            k += 1
        }
    }

    /// Two flows at 800 and 400 kb/s on 2 Mb/s: Jain's index (1.2)² / (2 · (0.64 + 0.16)) = 0.9, max/min 2, and the
    /// aggregate utilisation 1.2 / min(2, 3) = 0.6.
    @Test func twoFlowFairness() throws {
        let packets = Self.stream(flow: 0, rate: 800_000, from: 0, to: 20 * Self.s) + Self.stream(flow: 1, rate: 400_000, from: 0, to: 20 * Self.s)
        let input = AnalysisInput(
            caseName: "pair", controller: "none", duration: 20 * Self.s,
            links: [.init(capacity: .schedule(try .constant(2e6)), queueLimit: .unlimited), .unlimited],
            media: [try Self.flow(0 ..< 20 * Self.s), try Self.flow(0 ..< 20 * Self.s)], changeTimes: [], packets: packets, frames: [],
            targets: [[], []])
        let analysis = Analysis(input)
        let five = try #require(analysis.fairness.first { $0.windowSeconds == 5 })
        #expect(five.windows == 3)  // 5–10, 10–15, 15–20 s
        #expect(abs(five.jainIndex - 0.9) < 1e-3)
        #expect(abs(five.maxMinRatio - 2) < 1e-2)
        #expect(abs(try #require(analysis.jainIndex) - 0.9) < 1e-3)
        #expect(abs(try #require(analysis.utilization) - 0.6) < 1e-3)
        #expect(analysis.fairness.map(\.windowSeconds) == [1, 5])  // no static 20 s window in 20 s
    }

    /// Capacity 1 → 2 Mb/s at 10 s; the flow sends 0.5 Mb/s until 13 s, then R_max 1.5 Mb/s: converged 3.0 s after
    /// the change (the first 1 s window wholly at the new rate starts at 13 s). A flow that never gets there: nil.
    @Test func convergenceAfterACapacityStep() throws {
        let schedule = try CapacitySchedule.ratios(reference: 1e6, [(0, 1), (10, 2)])
        func analyse(_ packets: [PacketFate]) throws -> Analysis {
            Analysis(AnalysisInput(
                caseName: "step", controller: "none", duration: 25 * Self.s,
                links: [.init(capacity: .schedule(schedule), queueLimit: .unlimited), .unlimited],
                media: [try Self.flow(0 ..< 25 * Self.s)], changeTimes: [10 * Self.s], packets: packets, frames: [], targets: [[]]))
        }
        let ramp = try analyse(Self.stream(flow: 0, rate: 500_000, from: 0, to: 13 * Self.s)
            + Self.stream(flow: 0, rate: 1_500_000, from: 13 * Self.s, to: 25 * Self.s))
        #expect(ramp.convergence.count == 1)
        #expect(ramp.convergence.first?.change == 10 * Self.s)
        #expect(ramp.convergence.first?.seconds == 3.0)
        let stuck = try analyse(Self.stream(flow: 0, rate: 500_000, from: 0, to: 25 * Self.s))
        #expect(stuck.convergence.first?.seconds == nil)
    }

    @Test(arguments: [([1.0], 0.5, 1.0), ([1.0, 2, 3, 4], 0.5, 2), ([1.0, 2, 3, 4], 0.75, 3), ([1.0, 2, 3, 4], 0.76, 4), ([1.0, 2, 3, 4], 1.0, 4)])
    func nearestRankPercentile(values: [Double], p: Double, expected: Double) {
        #expect(Analysis.percentile(values, p) == expected)
    }

    /// The summary's shape: the issue's field names, null where a value does not exist.
    @Test func summaryJSONHasTheIssuesFields() throws {
        let input = AnalysisInput(
            caseName: "5.1", controller: "fixed", duration: 10 * Self.s,
            links: [.init(capacity: .schedule(try .constant(1e6)), queueLimit: .unlimited), .unlimited],
            media: [try Self.flow(0 ..< 10 * Self.s)], changeTimes: [], packets: Self.stream(flow: 0, rate: 500_000, from: 0, to: 10 * Self.s),
            frames: [], targets: [[]])
        let json = SummaryJSON.encode([Analysis(input)], seed: 7)
        for field in ["\"case\": \"5.1\"", "\"controller\": \"fixed\"", "\"utilization\": 0.5", "\"queue_delay_p50_ms\": 0",
                      "\"queue_delay_p95_ms\": 0", "\"queue_delay_p99_ms\": 0", "\"loss_ratio\": 0", "\"frame_delay_p95_ms\": null",
                      "\"jain_index\": null", "\"seed\": 7"] {
            #expect(json.contains(field), "\(field) in \(json)")
        }
        #expect(json.hasPrefix("[\n  {") && json.hasSuffix("}\n]\n"))
    }
}
