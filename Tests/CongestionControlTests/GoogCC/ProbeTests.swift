import CongestionControl
import MediaCore
import RTP
import Testing

/// The probe controller (probe_controller.cc's exponential start-up) and the probe result estimator
/// (probe_bitrate_estimator.cc). Estimator cases follow libwebrtc's probe_bitrate_estimator_unittest.cc: packets
/// of 1000 bytes of cluster 0, sent and received at the times given (ms), and the estimate it asserts.
@Suite struct ProbeTests {
    static func t(_ ms: Double) -> Instant { Instant(nanoseconds: Int64(ms * 1_000_000)) }

    @Test func initialProbesAtThreeAndSixTimesTheStartRate() {
        var controller = ProbeController(startBitrate: 300_000, maxBitrate: 5_000_000)
        let clusters = controller.onNetworkAvailable(at: Self.t(0))
        #expect(clusters.map(\.bitrate) == [900_000, 1_800_000])
        #expect(clusters.map(\.id) == [1, 2])
        #expect(clusters.allSatisfy { $0.duration == .milliseconds(15) && $0.minProbes == 5 })
        #expect(controller.state == .waitingForProbingResult)
        // Only once.
        #expect(controller.onNetworkAvailable(at: Self.t(10)).isEmpty)
    }

    @Test func initialProbesCappedAtTheMaximum() {
        // probe_controller_unittest.cc's start of 300 kb/s under a lower maximum: the second probe is the maximum,
        // and probing ends there.
        var controller = ProbeController(startBitrate: 300_000, maxBitrate: 1_500_000)
        let clusters = controller.onNetworkAvailable(at: Self.t(0))
        #expect(clusters.map(\.bitrate) == [900_000, 1_500_000])
        #expect(controller.state == .probingComplete)
        var low = ProbeController(startBitrate: 300_000, maxBitrate: 600_000)
        #expect(low.onNetworkAvailable(at: Self.t(0)).map(\.bitrate) == [600_000])
    }

    @Test func furtherProbeWhenTheResultExceedsSeventyPercent() {
        var controller = ProbeController(startBitrate: 300_000, maxBitrate: 10_000_000)
        _ = controller.onNetworkAvailable(at: Self.t(0))
        // 70 % of the last probe (1.8 Mb/s) is 1.26 Mb/s: 1.2 Mb/s asks nothing more; 1.3 Mb/s asks 2.6 Mb/s.
        #expect(controller.setEstimatedBitrate(1_200_000, at: Self.t(100)).isEmpty)
        #expect(controller.setEstimatedBitrate(1_300_000, at: Self.t(200)).map(\.bitrate) == [2_600_000])
        #expect(controller.setEstimatedBitrate(1_800_000, at: Self.t(300)).isEmpty)  // below 0.7 × 2.6 Mb/s
    }

    @Test func probingEndsAfterOneSecondWithoutResult() {
        var controller = ProbeController(startBitrate: 300_000, maxBitrate: 10_000_000)
        _ = controller.onNetworkAvailable(at: Self.t(0))
        controller.process(at: Self.t(1000))
        #expect(controller.state == .waitingForProbingResult)
        controller.process(at: Self.t(1001))
        #expect(controller.state == .probingComplete)
        #expect(controller.setEstimatedBitrate(5_000_000, at: Self.t(1100)).isEmpty)
    }

    struct EstimatorCase: Sendable, CustomTestStringConvertible {
        let name: String
        /// (send ms, receive ms) of 1000-byte packets of one cluster.
        let packets: [(Double, Double)]
        /// Expected estimate, bits/s, with its tolerance; nil: none.
        let expected: Double?
        var tolerance = 10.0
        var testDescription: String { name }
    }

    static let estimatorCases: [EstimatorCase] = [
        // OneCluster: 4 packets over 30 ms sent and received: 3000 bytes in 30 ms.
        EstimatorCase(name: "OneCluster", packets: [(0, 10), (10, 20), (20, 30), (30, 40)], expected: 800_000),
        // FastReceive: received faster than sent; the lower (send) rate counts.
        EstimatorCase(name: "FastReceive", packets: [(0, 15), (10, 30), (20, 35), (30, 40)], expected: 800_000),
        // TooFastReceive: received more than twice as fast as sent: no estimate.
        EstimatorCase(name: "TooFastReceive", packets: [(0, 19), (10, 22), (20, 25), (40, 27)], expected: nil),
        // SlowReceive: 3000 bytes over 70 ms received; below 90 % of the send rate → 0.95 × receive rate.
        EstimatorCase(name: "SlowReceive", packets: [(0, 10), (10, 40), (20, 70), (30, 85)],
                      expected: 0.95 * 3000 * 8 / 0.075),
        // BurstReceive: everything received at once: receive interval 0, no estimate.
        EstimatorCase(name: "BurstReceive", packets: [(0, 50), (10, 50), (20, 50), (40, 50)], expected: nil),
        // IgnoreSizeLastSendPacket / first received: 3 of 4 packets' bytes over each interval.
        EstimatorCase(name: "too few packets (3 of 5 needed × 0.8 = 4)", packets: [(0, 10), (10, 20), (20, 30)], expected: nil),
    ]

    @Test(arguments: estimatorCases)
    func probeResult(_ test: EstimatorCase) {
        var estimator = ProbeBitrateEstimator()
        // libwebrtc's tests use clusters of 5 probes and 4000 bytes minimum (`kDefaultMinProbes`, `kDefaultMinBytes`
        // are ×0.8 of those): a 1 Mb/s × 32 ms cluster carries 4000 bytes.
        estimator.register(ProbeClusterConfig(id: 0, at: Self.t(0), bitrate: 1_000_000, duration: .milliseconds(32)))
        var estimate: Double?
        for (index, (send, receive)) in test.packets.enumerated() {
            let sent = SentPacket(sequenceNumber: Int64(index), sendTime: Self.t(send), size: 1000, kind: .padding, probeClusterID: 0)
            if let value = estimator.handle(PacketResult(sent: sent, arrival: Self.t(1000 + receive))) { estimate = value }
        }
        if let expected = test.expected {
            #expect(estimate.map { abs($0 - expected) <= test.tolerance } == true, "estimate \(String(describing: estimate))")
            #expect(estimator.fetchAndResetLastEstimate() != nil)
            #expect(estimator.fetchAndResetLastEstimate() == nil)
        } else {
            #expect(estimate == nil)
        }
    }

    @Test func packetsOfUnknownClustersAreIgnored() {
        var estimator = ProbeBitrateEstimator()
        for i in 0..<10 {
            let sent = SentPacket(sequenceNumber: Int64(i), sendTime: Self.t(Double(i) * 10), size: 1000, probeClusterID: 7)
            #expect(estimator.handle(PacketResult(sent: sent, arrival: Self.t(Double(i) * 10 + 5))) == nil)
        }
    }
}
