import Testing
@testable import BitrateAdaptation

/// Metrics on frame series built by hand at 10 fps (Δ = 0.1 s, so a 1 s window holds exactly 10 frames), where
/// every expected number below can be checked with pencil and paper.
@Suite struct MetricsTests {
    static let fps = 10.0

    /// Frames at i/10 s for i in `range`, each `bytes(i)` long, with the scenario's target.
    static func frames(_ range: Range<Int>, scenario: Scenario, bytes: (Int) -> Int) -> [FrameRecord] {
        range.map { index in
            let time = Double(index) / fps
            return FrameRecord(index: index, time: time, target: scenario.target(at: time), bytes: bytes(index))
        }
    }

    static func metrics(_ frames: [FrameRecord], _ scenario: Scenario) -> AdaptationMetrics {
        AdaptationMetrics(frames: frames, scenario: scenario, parameters: .init(frameRate: fps))
    }

    @Test func constantFivePercentOver() throws {
        // 80 kb/s = 1000 bytes per frame at 10 fps; every frame 1050 bytes → every window 84 kb/s, 5% over.
        let scenario = try Scenario(name: "flat", changes: [.init(time: 0, bitRate: 80_000)], duration: 4)
        let metrics = Self.metrics(Self.frames(0..<40, scenario: scenario) { _ in 1050 }, scenario)
        #expect(abs(metrics.meanAbsoluteError - 0.05) < 1e-12)
        #expect(abs(metrics.overshoot - 0.05) < 1e-12)
        #expect(abs(metrics.meanBitRate - 84_000) < 1e-9)
        #expect(metrics.capViolations == 0)  // cap is 15,000 bytes per window; windows hold ≤ 10,500
        #expect(abs(metrics.worstCapRatio - 10_500.0 / 15_000) < 1e-12)
        #expect(metrics.responses.count == 1)
        #expect(metrics.responses[0].convergenceSeconds == 0)  // within ±10% from the first window on
    }

    @Test func knownMeanAbsoluteError() throws {
        // Target 80 kb/s (1000 B/frame) for 3 s; the first second runs at 1300 B/frame, the rest at 1000.
        // Full windows end at 0.9 … 2.9 s: 21 windows. The one ending at 0.9 + k/10 holds (10 − k) frames of 1300,
        // so its error is (10 − k) × 300 / 10,000 = 0.03 × (10 − k) for k = 0…9, and 0 afterwards.
        // Sum = 0.03 × 55 = 1.65; MAE = 1.65 / 21; overshoot 0.3.
        let scenario = try Scenario(name: "flat", changes: [.init(time: 0, bitRate: 80_000)], duration: 3)
        let metrics = Self.metrics(Self.frames(0..<30, scenario: scenario) { $0 < 10 ? 1300 : 1000 }, scenario)
        #expect(abs(metrics.meanAbsoluteError - 1.65 / 21) < 1e-12)
        #expect(abs(metrics.overshoot - 0.3) < 1e-12)
        // Windows [k/10, k/10 + 1) run at 1.3 − 0.03k: 1.12 at k = 6, 1.09 at k = 7, so within ±10% from 0.7 s.
        #expect(metrics.responses[0].convergenceSeconds.map { abs($0 - 0.7) < 1e-9 } == true)
        #expect(metrics.responses[0].evaluated)
    }

    /// 80 kb/s for 3 s, then 40 kb/s for 3 s. Before the change frames are 1000 B (on target). For the first second
    /// after it they stay at 1500 B (3 × the new target's 500 B), then exactly 500 B.
    static func stepDown() throws -> (Scenario, [FrameRecord]) {
        let scenario = try Scenario(
            name: "down", changes: [.init(time: 0, bitRate: 80_000), .init(time: 3, bitRate: 40_000)], duration: 6)
        let frames = frames(0..<60, scenario: scenario) { index in
            index < 30 ? 1000 : index < 40 ? 1500 : 500
        }
        return (scenario, frames)
    }

    @Test func knownConvergenceTime() throws {
        let (scenario, frames) = try Self.stepDown()
        let metrics = Self.metrics(frames, scenario)
        let response = metrics.responses[1]
        // Windows [s, s+1) for s = 3.0 … 5.0. s = 3.0 holds 10 × 1500 → 3.0× the target; s = 3.9 holds
        // 1500 + 9 × 500 = 6000 → 1.2×; s = 4.0 onwards 10 × 500 → 1.0×. Converged 1.0 s after the change.
        #expect(response.evaluated)
        #expect(response.convergenceSeconds.map { abs($0 - 1.0) < 1e-9 } == true)
        #expect(response.firstWindowRatio.map { abs($0 - 3.0) < 1e-12 } == true)
        #expect(response.peakRatio.map { abs($0 - 3.0) < 1e-12 } == true)
        #expect(metrics.worstStepResponseSeconds.map { abs($0 - 1.0) < 1e-9 } == true)
        #expect(response.fromBitRate == 80_000 && response.toBitRate == 40_000)
    }

    @Test func knownCapViolations() throws {
        let (scenario, frames) = try Self.stepDown()
        let metrics = Self.metrics(frames, scenario)
        // Cap after the change: 1.5 × 40 kb/s × 1 s = 7500 bytes, counting only frames from 3.0 s on.
        // Window ending at 3.4: 5 × 1500 = 7500 (not over). Ending at 3.5 … 3.9: 9000 … 15,000 (over).
        // Ending at 4.0 … 4.6 (frames after t − 1 only): 14,000, 13,000, 12,000, 11,000, 10,000, 9000, 8000 (over);
        // at 4.7: 2 × 1500 + 8 × 500 = 7000 (within). So 3.5 … 4.6: 12 frames.
        // Before the change: 10 × 1000 = 10,000 ≤ 15,000.
        #expect(metrics.capViolations == 12)
        #expect(abs(metrics.worstCapRatio - 2.0) < 1e-12)  // 15,000 / 7500 at 3.9
    }

    @Test func neverConvergedIsReportedAsSuch() throws {
        let scenario = try Scenario(
            name: "down", changes: [.init(time: 0, bitRate: 80_000), .init(time: 2, bitRate: 40_000)], duration: 5)
        // After the change every frame is 1.5× the new target: 750 B.
        let metrics = Self.metrics(Self.frames(0..<50, scenario: scenario) { $0 < 20 ? 1000 : 750 }, scenario)
        #expect(metrics.responses[1].evaluated)
        #expect(metrics.responses[1].convergenceSeconds == nil)
        #expect(metrics.worstStepResponseSeconds == .infinity)
        // The cap is exactly 1.5×: 10 × 750 = 7500 is not over it.
        #expect(metrics.capViolations == 0)
        #expect(abs(metrics.worstCapRatio - 1.0) < 1e-12)
    }

    @Test func shortSegmentsAreNotJudged() throws {
        let scenario = try Scenario(
            name: "short",
            changes: [.init(time: 0, bitRate: 80_000), .init(time: 2, bitRate: 40_000), .init(time: 3.5, bitRate: 80_000)],
            duration: 6)
        let metrics = Self.metrics(Self.frames(0..<60, scenario: scenario) { _ in 500 }, scenario)
        #expect(metrics.responses.map(\.evaluated) == [true, false, true])
        #expect(metrics.responses[1].convergenceSeconds == nil)
        #expect(metrics.responses[1].firstWindowRatio.map { abs($0 - 1.0) < 1e-12 } == true)  // one window fits
    }

    @Test func dropsAndKeyframesAreCounted() throws {
        let scenario = try Scenario(name: "flat", changes: [.init(time: 0, bitRate: 80_000)], duration: 2)
        var frames = Self.frames(0..<20, scenario: scenario) { _ in 1000 }
        frames[0].isKeyFrame = true
        frames[12].isKeyFrame = true
        for index in [5, 6, 7] {
            frames[index].bytes = 0
            frames[index].dropReason = .dataRateLimit
        }
        let metrics = Self.metrics(frames, scenario)
        #expect(metrics.frames == 20)
        #expect(metrics.droppedFrames == 3)
        #expect(metrics.keyFrames == 2)
        #expect(abs(metrics.meanBitRate - 17 * 1000 * 8 / 2.0) < 1e-9)
    }

    @Test func rateSeries() throws {
        let scenario = try Scenario(name: "flat", changes: [.init(time: 0, bitRate: 80_000)], duration: 2)
        let frames = Self.frames(0..<20, scenario: scenario) { $0 }  // frame i is i bytes
        let sliding = RateSeries.sliding(frames, window: 1, frameInterval: 0.1)
        #expect(sliding[8].bitsPerSecond == nil)
        #expect(sliding[9].bitsPerSecond == Double((0...9).reduce(0, +) * 8))
        #expect(sliding[19].bitsPerSecond == Double((10...19).reduce(0, +) * 8))
        let bins = RateSeries.binned(frames, bin: 0.5, duration: 2)
        #expect(bins.map(\.time) == [0, 0.5, 1.0, 1.5])
        #expect(bins.map(\.bitsPerSecond) == [10, 35, 60, 85].map { Double($0 * 8) / 0.5 })
    }
}
