import Testing
@testable import CongestionSimulation

struct SyntheticCodecTests {
    static let s: Int64 = 1_000_000_000

    static func encode(_ codec: inout SyntheticCodec, seconds: Int, from start: Int64 = 0, budget: Int? = nil,
                       random: inout SimulationRandom) -> [(time: Int64, frame: SyntheticCodec.Frame?)] {
        (0 ..< seconds * 30).map { i in
            let time = start + Int64(i) * codec.frameInterval
            return (time, codec.encode(at: time, budget: budget, random: &random))
        }
    }

    /// Keyframes every 30 frames at 5× a P frame, ±10 %: each second averages the target (P frames shrink to pay
    /// for the keyframe), and no 1 s window exceeds the 1.5× cap.
    @Test(arguments: [150_000.0, 500_000, 1_500_000])
    func averagesTheTargetWithinTheCap(target: Double) throws {
        var codec = try SyntheticCodec(configuration: .init(keyframeInterval: 30, keyframeSizeMultiple: 5), target: target)
        var random = SimulationRandom(seed: 1)
        let frames = Self.encode(&codec, seconds: 20, random: &random)
        let bytes = frames.compactMap(\.frame?.bytes).reduce(0, +)
        #expect(abs(Double(bytes * 8) / 20 - target) < 0.03 * target)
        #expect(frames.count { $0.frame?.isKeyframe == true } == 20)
        for start in 0 ..< frames.count - 30 {
            let window = frames[start ..< start + 30].compactMap(\.frame?.bytes).reduce(0, +)
            #expect(Double(window) <= 1.5 * target / 8 + 1)
        }
    }

    /// The hard cap counts what the last second already sent: after a step from 2 Mb/s to 300 kb/s the window still
    /// holds the old frames, so the next ones are skipped until there is room, and every window from the step on
    /// stays under 1.5 × the new target.
    @Test func hardCapSkipsAfterAStepDown() throws {
        var codec = try SyntheticCodec(configuration: .init(sizeVariation: 0), target: 2_000_000)
        var random = SimulationRandom(seed: 2)
        _ = Self.encode(&codec, seconds: 1, random: &random)
        codec.setTarget(300_000, at: Self.s)
        let after = Self.encode(&codec, seconds: 3, from: Self.s, random: &random)
        #expect(codec.framesSkipped >= 20)  // 29 frames of 8.3 kB in the window; room for a 1.25 kB frame after 23
        #expect(after.prefix(20).allSatisfy { $0.frame == nil })
        for start in 0 ..< after.count - 30 {
            let window = after[start ..< start + 30].compactMap(\.frame?.bytes).reduce(0, +)
            #expect(Double(window) <= 1.5 * 300_000 / 8 + 1)
        }
    }

    /// x264's lag: after 2 Mb/s → 500 kb/s the output starts at 1.5× the new target and reaches it after `settle`;
    /// after a step up it starts from the old rate.
    @Test func laggedReactionFollowsTheStep() throws {
        var codec = try SyntheticCodec(configuration: .init(reaction: .lagged(overshoot: 1.5, settle: 4 * Self.s)), target: 2_000_000)
        codec.setTarget(500_000, at: 10 * Self.s)
        #expect(codec.effectiveTarget(at: 10 * Self.s) == 750_000)
        #expect(codec.effectiveTarget(at: 12 * Self.s) == 625_000)
        #expect(codec.effectiveTarget(at: 14 * Self.s) == 500_000)
        #expect(codec.effectiveTarget(at: 30 * Self.s) == 500_000)
        codec.setTarget(1_000_000, at: 30 * Self.s)
        #expect(codec.effectiveTarget(at: 30 * Self.s) == 500_000)
        #expect(codec.effectiveTarget(at: 32 * Self.s) == 750_000)
        var immediate = try SyntheticCodec(target: 2_000_000)
        immediate.setTarget(500_000, at: 0)
        #expect(immediate.effectiveTarget(at: 0) == 500_000)
    }

    /// A per-frame byte budget bounds each frame; a budget below the smallest useful frame skips it.
    @Test func honoursTheByteBudget() throws {
        var codec = try SyntheticCodec(target: 1_000_000)
        var random = SimulationRandom(seed: 3)
        let first = try #require(codec.encode(at: 0, budget: 1000, random: &random))
        #expect(first.bytes == 1000 && first.isKeyframe)
        #expect(codec.encode(at: codec.frameInterval, budget: 10, random: &random) == nil)
        #expect(codec.framesSkipped == 1)
        let next = try #require(codec.encode(at: 2 * codec.frameInterval, random: &random))
        #expect(!next.isKeyframe && next.bytes > 3000)
    }

    @Test func refusesImpossibleConfigurations() {
        #expect(throws: SimulationError.self) { try SyntheticCodec(configuration: .init(framesPerSecond: 0), target: 1) }
        #expect(throws: SimulationError.self) { try SyntheticCodec(configuration: .init(sizeVariation: 1), target: 1) }
        #expect(throws: SimulationError.self) { try SyntheticCodec(configuration: .init(hardCap: 0.5), target: 1) }
    }
}

/// RFC 8867 §5.3: media both ways, each flow's feedback and RTCP crossing the other's rate-limited link.
struct BidirectionalTests {
    @Test func feedbackCrossesTheCongestedReturnLink() throws {
        var scenario = try RFC8867.scenario(named: "5.3")
        scenario.duration = 20_000_000_000
        let result = try Simulation(scenario: scenario, seed: 1, policy: { _ in FixedRatePolicy(bitsPerSecond: 800_000) }).run()
        #expect(result.packets.contains { $0.link == 1 && $0.flow == 1 && $0.kind == .media })
        #expect(result.packets.contains { $0.link == 0 && $0.flow == 1 && $0.kind == .feedback })
        #expect(result.packets.contains { $0.link == 1 && $0.flow == 0 && $0.kind == .feedback })
        #expect(result.packets.contains { $0.link == 1 && $0.flow == 0 && $0.kind == .rtcp }, "receiver reports back")
        let analysis = Analysis(AnalysisInput(result))
        #expect(analysis.framesDelivered > 2 * 550)  // both flows deliver nearly every frame at 0.8 of 2 Mb/s
    }

    @Test func unknownCaseIsTyped() {
        #expect { try RFC8867.scenario(named: "5.9") } throws: { ($0 as? SimulationError)?.code == .unknownCase }
        for name in RFC8867.names { #expect(throws: Never.self) { try RFC8867.scenario(named: name) } }
    }
}
