import CongestionControl
import MediaCore
import RTP
import Testing

/// The acknowledged-throughput estimator (libwebrtc's BitrateEstimator and AcknowledgedBitrateEstimator) on
/// hand-made arrival series; the expected values are computed from bitrate_estimator.cc's update rule.
@Suite struct BitrateEstimatorTests {
    /// `count` packets of `bytes`, one every 10 ms from `from` ms.
    static func packets(from: Int64, count: Int, bytes: Int, sequence: Int64 = 0) -> [PacketResult] {
        (0..<count).map { i in
            let ms = from + Int64(i) * 10
            return PacketResult(
                sent: SentPacket(sequenceNumber: sequence + Int64(i), sendTime: Instant(nanoseconds: (ms - 40) * 1_000_000), size: bytes),
                arrival: Instant(nanoseconds: ms * 1_000_000))
        }
    }

    @Test func firstEstimateAfterTheInitialHalfSecond() {
        var estimator = AcknowledgedBitrateEstimator()
        estimator.incoming(Self.packets(from: 0, count: 50, bytes: 1000))  // 0…490 ms
        #expect(estimator.bitsPerSecond == nil)
        estimator.incoming(Self.packets(from: 500, count: 1, bytes: 1000, sequence: 50))
        // 50 000 bytes over the 500 ms window: 800 kb/s.
        #expect(estimator.bitsPerSecond == 800_000)
    }

    @Test func aStepIsFollowedGradually() {
        var estimator = BitrateEstimator()
        func feed(from: Int64, through: Int64, bytes: Int) {
            for ms in stride(from: from, through: through, by: 10) {
                estimator.update(at: Instant(nanoseconds: ms * 1_000_000), bytes: bytes)
            }
        }
        // 800 kb/s; windows close at 500, 650, 800 and 950 ms, each sample 800 kb/s: the variance goes to 0.
        feed(from: 0, through: 940, bytes: 1000)
        #expect(estimator.bitsPerSecond == 800_000)
        // From 950 ms 1600 kb/s; the window closing at 1100 ms holds only the new rate.
        feed(from: 950, through: 1100, bytes: 2000)
        // Sample 1600 kb/s, uncertainty 10 × 800/800 = 10 (variance 100), predicted variance 0 + 5:
        // (100 × 800 + 5 × 1600) / 105 kb/s.
        let expected = (100.0 * 800 + 5 * 1600) / 105 * 1000
        #expect(abs((estimator.bitsPerSecond ?? 0) - expected) < 1e-6)
    }

    @Test func lostPacketsAreNotCounted() {
        var estimator = AcknowledgedBitrateEstimator()
        var series = Self.packets(from: 0, count: 51, bytes: 1000)
        for i in stride(from: 1, to: 50, by: 2) { series[i].arrival = nil }  // every other packet lost
        estimator.incoming(series)
        // 25 packets received by 490 ms (the window closes on the packet at 500 ms).
        #expect(estimator.bitsPerSecond == 400_000)
    }

    @Test func timeGoingBackwardsStartsOver() {
        var estimator = BitrateEstimator()
        for ms in stride(from: Int64(10_000), through: 10_400, by: 10) {
            estimator.update(at: Instant(nanoseconds: ms * 1_000_000), bytes: 1000)
        }
        // Back to 0: the 410 ms accumulated are dropped; a full 500 ms window is needed again.
        for ms in stride(from: Int64(0), through: 490, by: 10) {
            estimator.update(at: Instant(nanoseconds: ms * 1_000_000), bytes: 500)
        }
        #expect(estimator.bitsPerSecond == nil)
        estimator.update(at: Instant(nanoseconds: 500 * 1_000_000), bytes: 500)
        #expect(estimator.bitsPerSecond == 400_000)
    }
}
