import CongestionControl
import Testing
@testable import CongestionSimulation

/// libwebrtc's goog_cc closed-loop expectations (goog_cc_network_control_unittest.cc; design note §2b) run with
/// `GoogCCPolicy` in the full simulator: the RTP sessions and their pacer, a synthetic codec (not an ideal one),
/// libwebrtc's unbounded simulated queue, transport feedback every 100 ms. The in-test `BottleneckLoop` in
/// CongestionControlTests runs the same expectations in a simpler model.
struct GoogCCScenarioTests {
    static let s: Int64 = 1_000_000_000

    static func run(capacity: CapacitySchedule, delay: Int64, duration: Int64, start: Int, min: Int, max: Int,
                    limits: [MediaFlowSpec.PeerLimit] = [], codec: SyntheticCodec.Configuration = .init()) throws -> SimulationResult {
        let flow = MediaFlowSpec(path: try PathImpairment(propagation: delay), spans: [0 ..< duration], minimumBitrate: min,
                                 maximumBitrate: max, startBitrate: start, peerLimits: limits)
        let scenario = Scenario(name: "goog_cc", duration: duration, forward: .init(capacity: .schedule(capacity), queueLimit: .unlimited),
                                media: [flow], codec: codec)
        return try Simulation(scenario: scenario, seed: 1, policy: { _ in GoogCCPolicy(configuration: .init(startBitrate: start)) }).run()
    }

    static func target(_ result: SimulationResult, at seconds: Double) -> Int {
        result.targets[0].last { $0.time <= Int64(seconds * 1e9) }?.bitsPerSecond ?? 0
    }

    /// UpdatesTargetRateBasedOnLinkCapacity: 500 kb/s, 100 ms, start 300 kb/s → 450 ± 100 kb/s after 25 s; 800 kb/s
    /// → 750 ± 150 after 20 more; 100 kb/s → 90 ± 25 after 50 more (libwebrtc also moves the delay to 200 ms there;
    /// the simulator's delays are fixed per flow, so this part runs at 100 ms).
    @Test func updatesTargetRateBasedOnLinkCapacity() throws {
        let capacity = try CapacitySchedule.ratios(reference: 1000, [(0, 500), (25, 800), (45, 100)])
        let result = try Self.run(capacity: capacity, delay: 100_000_000, duration: 95 * Self.s, start: 300_000, min: 10_000, max: 1_500_000)
        let at25 = Self.target(result, at: 25), at45 = Self.target(result, at: 45), at95 = Self.target(result, at: 94.9)
        print("GoogCCScenarioTests link capacity: \(at25) at 25 s, \(at45) at 45 s, \(at95) at 95 s")
        #expect(abs(at25 - 450_000) <= 100_000)
        #expect(abs(at45 - 750_000) <= 150_000)
        #expect(abs(at95 - 90_000) <= 25_000)
    }

    /// RunRembDipScenario with ReceiverLimitCapsOnly: 2 Mb/s, 50 ms, start 1 Mb/s: above 1.5 Mb/s after 10 s; a
    /// 250 kb/s REMB is the rate within 1 s; lifted to 10 Mb/s, back above 1.5 Mb/s within 10 s. Run with the
    /// synthetic codec following its target at once, and lagging like x264 (an encoder that ramps up over 2 s).
    /// libwebrtc's 1.5 Mb/s is reached both ways: the known shortfall of the in-test model is the model's.
    @Test(arguments: [SyntheticCodec.Reaction.immediate, .lagged(overshoot: 1.5, settle: 2 * s)])
    func respectsRembCapAndRampsUpWhenLifted(reaction: SyntheticCodec.Reaction) throws {
        let limits = [MediaFlowSpec.PeerLimit(time: 10 * Self.s, bitsPerSecond: 250_000),
                      MediaFlowSpec.PeerLimit(time: 11 * Self.s, bitsPerSecond: 10_000_000)]
        let result = try Self.run(capacity: try .constant(2e6), delay: 50_000_000, duration: 21 * Self.s, start: 1_000_000,
                                  min: 30_000, max: 3_000_000, limits: limits, codec: .init(reaction: reaction))
        let before = Self.target(result, at: 9.99), capped = Self.target(result, at: 10.99), after = Self.target(result, at: 20.99)
        print("GoogCCScenarioTests REMB dip (\(reaction)): \(before) before, \(capped) capped, \(after) 10 s after the lift")
        #expect(before > 1_500_000)
        #expect(capped == 250_000)
        // BottleneckLoop's ideal encoder (frames of exactly the target, 7× larger 0.3 s after the lift) regains only
        // ~1.14 Mb/s; here (paced RTP session, ±10 % frames) GCC is back at 1.76 Mb/s, 1.69 with the lagging codec.
        #expect(after > 1_500_000)
    }

    /// StableEstimateDoesNotVaryInSteadyState: 500 kb/s, 100 ms; over 20 s after 30 s the target backs off at least
    /// once by 15 % (min/max < 0.85).
    @Test func sawtoothInSteadyState() throws {
        let result = try Self.run(capacity: try .constant(500_000), delay: 100_000_000, duration: 50 * Self.s, start: 300_000,
                                  min: 30_000, max: 3_000_000)
        let samples = stride(from: 30.0, to: 50.0, by: 0.1).map { Self.target(result, at: $0) }
        let low = samples.min()!, high = samples.max()!
        print("GoogCCScenarioTests steady state: \(low)…\(high)")
        #expect(Double(low) / Double(high) < 0.85)
        #expect(low > 300_000 && high < 650_000)
    }

    /// The same case, controller and seed: the same run (GoogCCPolicy is deterministic, so is the loop).
    @Test func gccRunsAreDeterministic() throws {
        var scenario = try RFC8867.scenario(named: "5.1")
        scenario.duration = 20 * Self.s
        let runs = try (0 ..< 2).map { _ in
            try Simulation(scenario: scenario, seed: 4, policy: { _ in GoogCCPolicy() }).run()
        }
        #expect(runs[0].digest == runs[1].digest)
        #expect(runs[0].targets[0].map(\.bitsPerSecond) == runs[1].targets[0].map(\.bitsPerSecond))
        #expect(runs[0].probeClusters[0].count >= 1, "goog_cc's initial probes go out as padding")
    }
}
