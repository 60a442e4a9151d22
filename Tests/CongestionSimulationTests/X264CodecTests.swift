import CongestionControl
import CongestionSimulationEncoder
import MediaCore
import Testing
@testable import CongestionSimulation

/// Real libx264 in the loop (`X264Codec`): the codec alone against its seam, then a short closed loop.
struct X264CodecTests {
    static let s: Int64 = 1_000_000_000

    static func frames(_ codec: X264Codec, count: Int, from first: Int = 0) throws -> [SimulatedFrame?] {
        var random = SimulationRandom(seed: 1, stream: 1)
        return try (first ..< first + count).map { index in
            try codec.encode(at: Int64(index) * codec.frameInterval, presentationTime: MediaTime(value: Int64(index), timescale: 30),
                             budget: nil, random: &random)
        }
    }

    /// The first frame is an IDR with its parameter sets in band; a PLI makes the next one an IDR; a budget of 0 skips
    /// the frame; a lower target gives smaller frames (1 s at each rate, the second half compared).
    @Test func obeysTheSeam() throws {
        let codec = try X264Codec(configuration: .init(width: 320, height: 180), target: 600_000)
        #expect(codec.parameterSets == nil)
        let start = try Self.frames(codec, count: 30)
        let first = try #require(start[0])
        #expect(first.isKeyframe)
        #expect(first.accessUnit.nalUnits.map(\.type).prefix(2) == [7, 8], "SPS and PPS before the IDR")
        #expect(start.dropFirst().allSatisfy { $0.map { !$0.isKeyframe } ?? false })
        codec.requestKeyframe()
        let requested = try Self.frames(codec, count: 2, from: 30)
        #expect(requested[0]?.isKeyframe == true && requested[1]?.isKeyframe == false)
        var random = SimulationRandom(seed: 1, stream: 1)
        #expect(try codec.encode(at: 32 * codec.frameInterval, presentationTime: MediaTime(value: 32, timescale: 30), budget: 0,
                                 random: &random) == nil)
        #expect(codec.framesSkipped == 1)
        let high = try Self.frames(codec, count: 30, from: 33).dropFirst(15).reduce(0) { $0 + ($1?.bytes ?? 0) }
        try codec.setTarget(150_000, at: 63 * codec.frameInterval)
        let low = try Self.frames(codec, count: 30, from: 63).dropFirst(15).reduce(0) { $0 + ($1?.bytes ?? 0) }
        print("X264CodecTests: 0.5 s at 600 kb/s \(high) bytes, at 150 kb/s \(low) bytes")
        #expect(low * 2 < high)
    }

    /// A positive budget reaches the session as `FrameOptions.maxFrameBytes`: each budgeted frame stays within it
    /// (a third and a tenth of the nominal frame), and the codec counts the budgeted frames and the overruns.
    @Test func obeysPositiveBudgets() throws {
        let codec = try X264Codec(configuration: .init(width: 320, height: 180), target: 600_000)
        _ = try Self.frames(codec, count: 30)
        let nominal = 600_000 / 8 / 30
        var random = SimulationRandom(seed: 1, stream: 1)
        var sizes: [Int] = []
        for (offset, budget) in [nominal / 3, nominal / 3, nominal / 10, nominal / 10, nominal / 3].enumerated() {
            let index = 30 + offset
            let frame = try codec.encode(at: Int64(index) * codec.frameInterval,
                                         presentationTime: MediaTime(value: Int64(index), timescale: 30), budget: budget,
                                         random: &random)
            let bytes = try #require(frame?.bytes, "frame \(index) was sent")
            #expect(bytes <= budget, "frame \(index): \(bytes) B against \(budget) B")
            sizes.append(bytes)
        }
        print("X264CodecTests: budgeted frames \(sizes) B, nominal \(nominal) B")
        #expect(codec.budgetedFrames == 5 && codec.budgetOverruns == 0)
        #expect(codec.largestBudgetRatio > 0.5 && codec.largestBudgetRatio <= 1)
        // Unbudgeted again: back near the nominal size within a few frames.
        let after = try Self.frames(codec, count: 15, from: 35).dropFirst(5).compactMap { $0?.bytes }
        #expect(after.reduce(0, +) / after.count > nominal / 2)
    }

    /// With the grain, x264's output follows the target across RFC 8867's media range (the bars alone stay near
    /// 55 kb/s whatever the target): the second of two seconds at each rate within ±25 %.
    @Test func outputFollowsTheTarget() throws {
        let codec = try X264Codec(configuration: .init(width: 320, height: 180), target: 150_000)
        var index = 0
        var report: [String] = []
        for target in [150_000, 600_000, 1_500_000, 300_000] {
            try codec.setTarget(Double(target), at: Int64(index) * codec.frameInterval)
            let frames = try Self.frames(codec, count: 60, from: index)
            index += 60
            let rate = Double(frames.dropFirst(30).reduce(0) { $0 + ($1?.bytes ?? 0) } * 8)
            report.append("\(target / 1000) k → \(Int(rate / 1000)) k")
            #expect(abs(rate / Double(target) - 1) < 0.25, "\(target): \(rate)")
        }
        print("X264CodecTests: " + report.joined(separator: ", "))
    }

    /// The closed loop with real x264: RFC 8867 §5.1's first 10 s (1 Mb/s, 50 ms, 300 ms queue) at 320×180, GCC over
    /// transport-cc. x264 is deterministic here (one thread, seeded grain): two runs give the same packets. GCC ramps
    /// from 150 kb/s with its probes; in the static seconds 5–10 the link is mostly full and the queue short.
    /// Since the probes are the session's own prober (as live), the start probes find the link at once and the
    /// overshoot is cut back inside these 10 s: 53 % (it was 90.5 % with the probes paced behind the media).
    @Test func gccWithX264FillsTheLinkDeterministically() throws {
        var scenario = try RFC8867.scenario(named: "5.1")
        scenario.duration = 10 * Self.s
        let runs = try (0 ..< 2).map { _ in
            try Simulation(scenario: scenario, seed: 1, policy: { _ in GoogCCPolicy() }, feedbackPath: .transportCC,
                           codec: { (_: Int, flow: MediaFlowSpec) throws(SimulationError) -> any SimulatedCodec in try X264Codec(configuration: .init(width: 320, height: 180), target: flow.startBitrate) }).run()
        }
        #expect(runs[0].digest == runs[1].digest)
        let analysis = Analysis(AnalysisInput(runs[0]))
        print("X264CodecTests 5.1 (10 s) gcc + x264: \(SummaryJSON.encode([analysis], seed: 1))")
        let utilization = try #require(analysis.utilization)
        #expect(utilization > 0.45 && utilization <= 1.0, "\(utilization)")  // measured 53.1 %
        #expect(analysis.framesDelivered >= analysis.framesSent - 10)
        #expect(analysis.queueDelayP95 < 120)  // measured 58 ms
        #expect(runs[0].frames.count { $0.isKeyframe } >= 1)
    }

    @Test func refusesWhatCannotWork() {
        #expect(throws: SimulationError.self) { try X264Codec(configuration: .init(framesPerSecond: 0), target: 500_000) }
        #expect(throws: SimulationError.self) { try X264Codec(configuration: .init(width: 7, height: 180), target: 500_000) }
        #expect(throws: SimulationError.self) { try X264Codec(target: 0) }
    }
}
