import CongestionControl
import MediaCore
import NetworkEmulator
import RTP
import Testing

/// `GoogCCPolicy` as a `BitrateController` sees it: the start, the probe clusters handed over with a decision, the
/// peer's limit as a cap on the output, the bounds.
@Suite struct GoogCCPolicyTests {
    static let start = Instant(nanoseconds: 3_000_000_000)

    @Test func startsAtTheStartRateWithTheInitialProbes() throws {
        let controller = BitrateController(bounds: try BitrateBounds(ceiling: 2_500_000),
                                           policy: GoogCCPolicy(), at: Self.start)
        #expect(controller.policyName == "gcc")
        #expect(controller.current.encoderBitRate == 300_000)
        #expect(controller.current.pacingBitRate == 300_000)
        // 3× and 6× the start rate, the second capped at the ceiling.
        #expect(controller.current.probeClusters.map(\.bitrate) == [900_000, 1_800_000])
    }

    @Test func theStartRateIsClampedIntoTheBounds() throws {
        let policy = GoogCCPolicy(configuration: .init(startBitrate: 5_000_000))
        let controller = BitrateController(bounds: try BitrateBounds(ceiling: 1_000_000), policy: policy, at: Self.start)
        #expect(controller.current.encoderBitRate == 1_000_000)
        #expect(controller.current.probeClusters.map(\.bitrate) == [1_000_000])
    }

    @Test func thePeerLimitCapsTheOutputOnly() throws {
        var controller = BitrateController(bounds: try BitrateBounds(ceiling: 2_500_000),
                                           policy: GoogCCPolicy(configuration: .init(probing: false)), at: Self.start)
        controller.handle(.peerLimit(bitsPerSecond: 120_000), at: Self.start + .milliseconds(10))
        let polledCapped = controller.poll(at: Self.start + .milliseconds(11))
        let capped = try #require(polledCapped)
        #expect(capped.allocation?.encoderBitRate == 120_000)
        #expect(capped.changesRate)
        #expect(capped.allocation?.probeClusters == [])
        // Lifted: back to the controller's own target at once (libwebrtc's ReceiverLimitCapsOnly).
        controller.handle(.peerLimit(bitsPerSecond: 10_000_000), at: Self.start + .milliseconds(20))
        let polledLifted = controller.poll(at: Self.start + .milliseconds(21))
        let lifted = try #require(polledLifted)
        #expect(lifted.allocation?.encoderBitRate == 300_000)
        // Below the floor: the floor.
        controller.handle(.peerLimit(bitsPerSecond: 1_000), at: Self.start + .milliseconds(30))
        let floored = controller.poll(at: Self.start + .milliseconds(31))
        #expect(floored?.allocation?.encoderBitRate == BitrateBounds.defaultFloor)
    }

    @Test func overuseInFeedbackLowersTheTarget() throws {
        // 2 s of 20 ms-spaced 1000-byte packets whose one-way delay grows 4 ms per packet (the link delivers 1000
        // bytes per 24 ms while they are sent every 20 ms): the detector signals overuse and AIMD backs off to
        // 0.85 × the acknowledged ~333 kb/s.
        var policy = GoogCCPolicy(configuration: .init(startBitrate: 600_000, probing: false))
        let bounds = try BitrateBounds(ceiling: 2_000_000)
        _ = policy.allocation(within: bounds, at: Self.start)
        var sequence: Int64 = 0
        var reportPackets: [PacketResult] = []
        for i in 0..<100 {
            let send = Self.start + .milliseconds(Int64(i) * 20)
            let arrival = Self.start + .seconds(9) + .milliseconds(Int64(i) * 24)
            reportPackets.append(PacketResult(sent: SentPacket(sequenceNumber: sequence, sendTime: send, size: 1000), arrival: arrival))
            sequence += 1
            if reportPackets.count == 5 {
                policy.observe(feedback: TransportPacketsFeedback(
                    feedbackTime: send + .milliseconds(100), packets: reportPackets, bytesInFlight: 0))
                reportPackets.removeAll()
            }
        }
        // An overuse happened: it seeded the link-capacity estimate with the acknowledged rate.
        #expect(policy.delayBased.rateControl.linkCapacity.hasEstimate)
        let allocation = policy.allocation(within: bounds, at: Self.start + .seconds(2) + .milliseconds(100))
        #expect(allocation.encoderBitRate < 600_000)
        #expect(allocation.encoderBitRate >= Int(0.85 * 300_000), "\(allocation.encoderBitRate)")
    }
}

/// Feedback no real receiver sends — reports out of order, arrivals before sends and years apart, zero-byte and
/// huge packets, unknown probe clusters, everything lost, empty reports, feedback older than the last — goes through
/// `GoogCCPolicy` without a trap, and every allocation stays within the bounds.
@Suite struct GoogCCPolicyHostileFeedbackTests {
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func hostileFeedbackKeepsTheRateInBounds(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let bounds = try BitrateBounds(ceiling: 3_000_000, floor: 20_000)
        var policy = GoogCCPolicy(configuration: .init(lossControl: seed % 2 == 0 ? .classic : .lossBasedControl))
        var now = Instant(nanoseconds: 1_000_000_000)
        var sequence: Int64 = 0
        for _ in 0..<400 {
            // Time mostly moves on, sometimes back, sometimes by minutes.
            let step = Int64.random(in: -50...200, using: &random) * (Bool.random(using: &random) ? 1 : 1000)
            now = now + .milliseconds(step)
            var packets: [PacketResult] = []
            for _ in 0..<Int.random(in: 0...40, using: &random) {
                let send = now + .milliseconds(Int64.random(in: -5_000...100, using: &random))
                let arrival: Instant? = Int.random(in: 0..<4, using: &random) == 0
                    ? nil : send + .milliseconds(Int64.random(in: -10_000...10_000, using: &random))
                let cluster: Int? = Int.random(in: 0..<5, using: &random) == 0 ? Int.random(in: 0...3, using: &random) : nil
                let size = [0, 1, 60, 1200, 65_535].randomElement(using: &random) ?? 0
                sequence += Int64.random(in: -3...3, using: &random)
                packets.append(PacketResult(
                    sent: SentPacket(sequenceNumber: sequence, sendTime: send, size: size, probeClusterID: cluster),
                    arrival: arrival))
            }
            policy.observe(feedback: TransportPacketsFeedback(feedbackTime: now, packets: packets, bytesInFlight: 0))
            if Int.random(in: 0..<10, using: &random) == 0 {
                policy.observe(peerLimit: UInt64.random(in: 0...UInt64.max, using: &random), at: now)
            }
            let allocation = policy.allocation(within: bounds, at: now)
            #expect((bounds.floor...bounds.ceiling).contains(allocation.encoderBitRate))
            #expect(allocation.pacingBitRate == UInt64(allocation.encoderBitRate))
            for cluster in allocation.probeClusters {
                #expect(cluster.bitrate <= UInt64(bounds.ceiling) && cluster.bitrate > 0)
            }
        }
    }
}
