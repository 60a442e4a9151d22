import CongestionControl
import MediaCore
import RTP
import Testing

/// Transport feedback reaches the policy (`observe(feedback:)`) through `BitrateController`, and is a decision only
/// when it moved the policy: today's `PeerLimitPolicy` ignores it, so the rate decisions stay what they were.
@Suite struct FeedbackToPolicyTests {
    static let start = Instant(nanoseconds: 1_000_000_000)
    static let feedback = TransportPacketsFeedback(
        feedbackTime: start, packets: [PacketResult(sent: SentPacket(sequenceNumber: 0, sendTime: start, size: 1200), arrival: start)],
        bytesInFlight: 0)

    /// Halves the rate on each report with a lost packet: a stand-in for a delay- or loss-based estimator.
    struct HalvingPolicy: BitrateControlPolicy {
        let name = "halving"
        var rate = 1_000_000
        var reports = 0
        mutating func observe(peerLimit bitsPerSecond: UInt64, at now: Instant) {}
        mutating func observe(feedback: TransportPacketsFeedback) {
            reports += 1
            if feedback.packets.contains(where: { !$0.isReceived }) { rate /= 2 }
        }
        mutating func allocation(within bounds: BitrateBounds, at now: Instant) -> BitrateAllocation {
            BitrateAllocation(bitsPerSecond: bounds.clamp(UInt64(rate)))
        }
    }

    @Test func peerLimitPolicyDecidesNothingOnFeedback() throws {
        var controller = BitrateController(bounds: try BitrateBounds(ceiling: 1_000_000), at: Self.start)
        controller.handle(.transportFeedback(Self.feedback), at: Self.start)
        #expect(controller.poll(at: Self.start) == nil)
        controller.handle(.transportFeedback(Self.feedback), at: Self.start)
        controller.handle(.keyframeRequest, at: Self.start)
        let polled = controller.poll(at: Self.start)
        let decision = try #require(polled)
        #expect(decision.allocation == nil && decision.forceKeyframe)
    }

    @Test func aPolicyThatMovesOnFeedbackDecides() throws {
        var controller = BitrateController(bounds: try BitrateBounds(ceiling: 1_000_000), policy: HalvingPolicy(), at: Self.start)
        controller.handle(.transportFeedback(Self.feedback), at: Self.start)
        #expect(controller.poll(at: Self.start) == nil, "all received: the policy stays")
        var lossy = Self.feedback
        lossy.packets[0].arrival = nil
        controller.handle(.transportFeedback(lossy), at: Self.start)
        let polled = controller.poll(at: Self.start)
        let decision = try #require(polled)
        #expect(decision.allocation?.encoderBitRate == 500_000)
        #expect(controller.poll(at: Self.start) == nil)
    }
}
