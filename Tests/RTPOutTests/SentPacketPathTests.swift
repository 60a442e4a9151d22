import MediaCore
import Testing
@testable import RTP
@testable import RTPOut

/// The sent-packet path (issue 17): `RTPSendSession.pollSentPackets` hands out each packet that left — media,
/// retransmission, padding — once, in sending order, as the session recorded it for feedback; manual time.
struct SentPacketPathTests {
    typealias T = RTPSendSessionTests
    typealias W = TransportWideSessionTests
    static let start = W.start

    static func poll(_ session: inout RTPSendSession) -> [SentPacket] {
        var packets: [SentPacket] = []
        session.pollSentPackets(into: &packets)
        return packets
    }

    /// Three media packets, a NACK answered as RTX 10 ms later, two padding packets of probe cluster 7 20 ms later:
    /// one record each, numbered 0…5 in sending order with the time each left, its wire size (RTP header 12 +
    /// extension block 12 + payload or padding) and kind — the very records a report about them names.
    @Test func everyPacketComesOutOnceInSendingOrder() throws {
        var session = try W.session()
        try session.enqueue(T.accessUnit(3), captureTime: Self.start, at: Self.start)
        let media = T.drain(&session, at: Self.start).flatMap(\.datagrams)
        let nack = try RTCPPacket.genericNACK(.init(senderSSRC: T.peerSSRC, mediaSSRC: T.ssrc, lost: [T.firstSequenceNumber + 1])).marshal()
        session.handle(rtcp: nack[...], at: Self.start + .milliseconds(10))
        let resent = T.drain(&session, at: Self.start + .milliseconds(10)).flatMap(\.datagrams)
        #expect(try session.enqueuePadding(bytes: 400, probeClusterID: 7, at: Self.start + .milliseconds(20)) == 2)
        let padding = T.drain(&session, at: Self.start + .milliseconds(20)).flatMap(\.datagrams)
        #expect(media.count == 3 && resent.count == 1 && padding.count == 2)

        let at = { (ms: Int64) in Instant(Self.start + .milliseconds(ms)) }
        // (number, sent at ms, wire bytes, kind, cluster)
        let expected: [(Int64, Int64, Int, SentPacket.Kind, Int?)] = [
            (0, 0, 12 + 12 + 1000, .media, nil),
            (1, 0, 12 + 12 + 1000, .media, nil),
            (2, 0, 12 + 12 + 1000, .media, nil),
            (3, 10, 12 + 12 + 2 + 1000, .retransmission, nil),  // RTX: the original sequence number in front (RFC 4588)
            (4, 20, padding[0].count, .padding, 7),
            (5, 20, padding[1].count, .padding, 7),
        ]
        let sent = Self.poll(&session)
        #expect(sent == expected.map { SentPacket(sequenceNumber: $0.0, sendTime: at($0.1), size: $0.2, kind: $0.3, probeClusterID: $0.4) })
        #expect(sent.map(\.size) == (media + resent + padding).map(\.count), "the wire size of each datagram (no SRTP tag here)")
        #expect(Self.poll(&session).isEmpty, "each packet once")

        // A report about them names the same records.
        let report = TransportCCFeedback(senderSSRC: T.peerSSRC, mediaSSRC: T.ssrc, baseSequenceNumber: 0, referenceTime: 1,
                                         feedbackPacketCount: 0, statuses: Array(repeating: .receivedSmallDelta(4), count: 6))
        session.handle(rtcp: try RTCPPacket.transportCC(report).marshal()[...], at: Self.start + .milliseconds(60))
        guard case .transportFeedback(let feedback) = try #require(T.events(&session).last) else {
            Issue.record("no feedback event")
            return
        }
        #expect(feedback.packets.map(\.sent) == sent)

        // More packets: only those come out next time.
        try session.enqueue(T.accessUnit(2), captureTime: Self.start + .milliseconds(33), at: Self.start + .milliseconds(33))
        _ = T.drain(&session, at: Self.start + .milliseconds(33))
        #expect(Self.poll(&session).map(\.sequenceNumber) == [6, 7])
        #expect(session.statistics(at: Self.start + .milliseconds(40)).sentPacketsUnreported == 0)
    }

    /// Without transport-wide numbering or RFC 8888 nothing is recorded, so nothing comes out.
    @Test func nothingWithoutNumbering() throws {
        var session = try W.session(.init())
        try session.enqueue(T.accessUnit(3), captureTime: Self.start, at: Self.start)
        #expect(T.drain(&session, at: Self.start).flatMap(\.datagrams).count == 3)
        #expect(Self.poll(&session).isEmpty)
    }

    /// A taker that waited for more than the ring holds gets the newest `capacity` packets; the rest are counted.
    @Test(arguments: [(0, 0), (5, 0), (SentPacketHistory.capacity, 0), (SentPacketHistory.capacity + 3, 3)])
    func theRingBoundsWhatWaits(sent: Int, forgotten: Int) {
        var history = SentPacketHistory()
        for n in 0 ..< sent {
            history.add(ssrc: 1, rtpSequenceNumber: UInt16(truncatingIfNeeded: n), size: 100 + n % 7,
                        sendTime: Instant(nanoseconds: Int64(n) * 1000), kind: .media, probeClusterID: nil)
        }
        var packets: [SentPacket] = []
        #expect(history.takeSent(into: &packets) == forgotten)
        #expect(packets.count == sent - forgotten)
        #expect(packets.first.map(\.sequenceNumber) ?? Int64(forgotten) == Int64(forgotten))
        #expect(packets.enumerated().allSatisfy { $0.element.sequenceNumber == Int64(forgotten + $0.offset) })
        #expect(packets.last.map { $0.size == 100 + (sent - 1) % 7 } ?? true)
        packets.removeAll()
        #expect(history.takeSent(into: &packets) == 0 && packets.isEmpty)
    }
}
