import Testing
@testable import BitrateAdaptation

@Suite struct BitrateAdjusterPolicyTests {
    /// Feeds `seconds` of frames at `fps`, each `bytes` long (or dropped), asking for `target` before each.
    static func feed(
        _ policy: inout BitrateAdjusterPolicy, target: Int, fps: Double, from start: Int = 0, frames: Int,
        bytes: Int, dropped: Bool = false
    ) -> [Int] {
        var averages: [Int] = []
        for index in start..<(start + frames) {
            let time = Double(index) / fps
            averages.append(policy.properties(forTarget: target, at: time).averageBitRate)
            policy.observe(
                FrameRecord(index: index, time: time, target: target, bytes: dropped ? 0 : bytes,
                            dropReason: dropped ? .dataRateLimit : nil))
        }
        return averages
    }

    /// Bytes per frame that make `rate` bits/s at 30 fps.
    static func bytes(for rate: Double) -> Int { Int(rate / 30 / 8) }

    @Test func startsAtTheTargetAndReevaluatesEverySecondAt30fps() {
        var policy = BitrateAdjusterPolicy()
        let averages = Self.feed(&policy, target: 1_000_000, fps: 30, frames: 105, bytes: Self.bytes(for: 2e6))
        // Until the first evaluation the encoder gets the target itself (libwebrtc resets to it on a big change).
        #expect(averages[0] == 1_000_000)
        #expect(averages[30] == 1_000_000)  // asked before frame 30 is observed
        // Evaluated after frame 30 (t = 1.0 s: ≥ 1 s and 31 ≥ 30 frames), then every 30 frames = 1 s.
        #expect(policy.evaluationTimes == [1.0, 2.0, 3.0])
        #expect(averages[31] == 500_000)  // 2× overshoot → target + ½(target − 2M) < 0.5 × target: clamped
        // The policy hands the session the whole realTimeCommunication set, cap following the adjusted rate.
        // Later evaluations measure over the full 1.5 s (1.99992 Mb/s): 1 M + ½(1 M − 1.99992 M) = 500,040.
        #expect(policy.adjustedBitRate == 500_040)
        let live = policy.properties(forTarget: 1_000_000, at: 3.5)
        #expect(live.averageBitRate == 500_040)
        #expect(live.dataRateLimits.first?.bytes == 500_040 * 3 / 2 / 8)
    }

    @Test func cadenceIsThirtyFramesAtLowFrameRates() {
        var policy = BitrateAdjusterPolicy()
        _ = Self.feed(&policy, target: 1_000_000, fps: 15, frames: 75, bytes: 5000)
        // 15 fps: the 30th frame (index 29, t = 29/15 s) is the first with both ≥ 1 s and 30 frames.
        #expect(policy.evaluationTimes == [29.0 / 15, 59.0 / 15])
    }

    @Test(arguments: [
        // (output as a multiple of the target, expected adjusted factor or nil for "computed from the measurement")
        (2.0, 0.5 as Double?),  // 1 + ½(1 − 2.06) < 0.5: clamped to the floor
        (1.05, 0.95),  // any overshoot adjusts; 1 + ½(1 − 1.08) = 0.96 > 0.95: clamped to the ceiling
        (0.5, 0.95),  // undershoot beyond 10%: 1 + ½(0.5) = 1.25 → ceiling
        (0.95, 1.0),  // undershoot within 10%: left alone (still at the target itself)
        (1.3, nil),  // 1 + ½(1 − 1.34) ≈ 0.83: inside the clamps
    ])
    func clampsTheAdjustment(outputFactor: Double, expected: Double?) throws {
        var policy = BitrateAdjusterPolicy()
        _ = Self.feed(&policy, target: 1_000_000, fps: 30, frames: 31, bytes: Self.bytes(for: outputFactor * 1e6))
        #expect(policy.evaluationTimes == [1.0])
        let measured = try #require(policy.measuredBitRate(at: 1.0))
        let want = expected.map { $0 * 1e6 } ?? (1e6 + 0.5 * (1e6 - measured))
        #expect(abs(Double(policy.adjustedBitRate) - want) <= 1)
        #expect(policy.adjustedBitRate >= 500_000 && policy.adjustedBitRate <= 1_000_000)
    }

    @Test func bigTargetChangeResetsAtOnceSmallOneWaits() {
        var policy = BitrateAdjusterPolicy()
        _ = Self.feed(&policy, target: 1_000_000, fps: 30, frames: 31, bytes: Self.bytes(for: 2e6))
        #expect(policy.adjustedBitRate == 500_000)
        // +5%: within tolerance of the target and of the last adjusted target → the penalty stays.
        #expect(policy.properties(forTarget: 1_050_000, at: 1.05).averageBitRate == 500_000)
        // ×0.25: a big change → the adjusted rate jumps to the new target.
        #expect(policy.properties(forTarget: 250_000, at: 1.1).averageBitRate == 250_000)
    }

    @Test func droppedFramesAreNotCounted() {
        var policy = BitrateAdjusterPolicy()
        _ = Self.feed(&policy, target: 1_000_000, fps: 30, frames: 60, bytes: 0, dropped: true)
        #expect(policy.evaluationTimes.isEmpty)  // no delivered frames, no evaluation
        #expect(policy.adjustedBitRate == 1_000_000)
    }
}
