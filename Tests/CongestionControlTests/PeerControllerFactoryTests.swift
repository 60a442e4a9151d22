import CongestionControl
import MediaCore
import RTP
import Testing

/// The one place a WebRTC peer's controller is made (`CongestionControllers.Entry.controller`, which the server's
/// viewers and the publisher's server both use), and the clock shift both live drivers apply to what a sender stamps.
@Suite struct PeerControllerFactoryTests {
    static let now = Instant(nanoseconds: 5_000_000_000)

    @Test(arguments: CongestionControllers.all.map(\.name))
    func everyEntryMakesAControllerWithinTheBounds(_ name: String) throws {
        let entry = try #require(CongestionControllers.named(name))
        let controller = try entry.controller(ceiling: 2_000_000, floor: 150_000, start: 800_000, at: Self.now)
        #expect(controller.bounds == (try BitrateBounds(ceiling: 2_000_000, floor: 150_000)))
        #expect(controller.policyName == entry.make(nil).name)
        #expect((150_000 ... 2_000_000).contains(controller.current.encoderBitRate), "\(controller.current)")
        // The REMB rule starts at the ceiling; the estimating controllers at the start rate they were given.
        #expect(controller.current.encoderBitRate == (entry.usesTransportFeedback ? 800_000 : 2_000_000))
    }

    @Test func aZeroFloorIsOneBitPerSecondAndAZeroCeilingIsRefused() throws {
        let entry = try #require(CongestionControllers.named("gcc"))
        #expect(try entry.controller(ceiling: 1_000_000, floor: 0, start: 300_000, at: Self.now).bounds.floor == 1)
        #expect(throws: CongestionControlError.self) { try entry.controller(ceiling: 0, floor: 0, start: 0, at: Self.now) }
    }

    @Test func feedbackAndSentPacketsMoveOntoTheControllersClock() {
        let shift = Duration.milliseconds(-1500)
        let sent = SentPacket(sequenceNumber: 7, sendTime: Instant(nanoseconds: 10_000_000_000), size: 1200, probeClusterID: 3)
        let moved = sent.shifted(by: shift)
        #expect(moved.sendTime == Instant(nanoseconds: 8_500_000_000))
        #expect(moved.sequenceNumber == 7 && moved.size == 1200 && moved.probeClusterID == 3)
        let report = TransportPacketsFeedback(
            feedbackTime: Instant(nanoseconds: 10_100_000_000),
            packets: [PacketResult(sent: sent, arrival: Instant(nanoseconds: 10_050_000_000)), PacketResult(sent: sent, arrival: nil)],
            bytesInFlight: 2400)
        let shifted = report.shifted(by: shift)
        #expect(shifted.feedbackTime == Instant(nanoseconds: 8_600_000_000))
        #expect(shifted.packets.map(\.sent.sendTime) == [Instant(nanoseconds: 8_500_000_000), Instant(nanoseconds: 8_500_000_000)])
        // Arrival times are the receiver's clock: only their differences count, and they are left as they came.
        #expect(shifted.packets.map(\.arrival) == report.packets.map(\.arrival))
        #expect(shifted.bytesInFlight == 2400)
    }
}
