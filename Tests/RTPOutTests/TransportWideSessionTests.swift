import MediaCore
import Testing
@testable import RTP
@testable import RTPOut

/// The send session's transport-wide numbering (header extensions written at `pollTransmit`), its record of what
/// it sent, feedback turned into `TransportPacketsFeedback`, and padding for probes — manual time, no sockets.
struct TransportWideSessionTests {
    typealias T = RTPSendSessionTests
    static let start = RTPInstant(nanosecondsSinceEpoch: 1_700_000_000 * 1_000_000_000)
    static let rtx: (payloadType: UInt8, ssrc: UInt32) = (97, 0xAAAA_0001)

    static func session(_ extensions: RTPSendHeaderExtensions = .init(transportSequenceNumberID: 3, absoluteSendTimeID: 5),
                        ccfb: Bool = false, batchSize: Int = 64) throws -> RTPSendSession {
        var configuration = RTPSendSession.Configuration(
            payloadType: 96, ssrc: T.ssrc, cname: "twcc@test", pacing: .unpaced, rtx: rtx,
            initialSequenceNumber: T.firstSequenceNumber, timestampOffset: T.offset, batchSize: batchSize)
        configuration.headerExtensions = extensions
        configuration.acceptsCongestionControlFeedback = ccfb
        return try RTPSendSession(configuration: configuration, random: SeededGenerator(state: 42))
    }

    static func transportNumber(_ datagram: [UInt8], id: UInt8 = 3) -> UInt16? {
        guard let data = try? RTPPacket(parsing: datagram).header.extension?.element(id: id), data.count == 2 else { return nil }
        return UInt16(data[data.startIndex]) << 8 | UInt16(data[data.startIndex + 1])
    }

    static let layoutCases: [(String, RTPSendHeaderExtensions, [UInt8])] = [
        ("one-byte form: transport-wide 3, abs-send-time 5", .init(transportSequenceNumberID: 3, absoluteSendTimeID: 5), [
            0xBE, 0xDE, 0x00, 0x02,  // RFC 8285 one-byte profile, 2 words
            0x31, 0x00, 0x00,        // ID 3, L=1 (2 bytes)
            0x52, 0x00, 0x00, 0x00,  // ID 5, L=2 (3 bytes)
            0x00,                    // padding
        ]),
        ("transport-wide alone", .init(transportSequenceNumberID: 1), [0xBE, 0xDE, 0x00, 0x01, 0x11, 0x00, 0x00, 0x00]),
        ("an ID above 14: the two-byte form", .init(transportSequenceNumberID: 20, absoluteSendTimeID: 5), [
            0x10, 0x00, 0x00, 0x03,  // two-byte profile, appbits 0, 3 words
            0x14, 0x02, 0x00, 0x00,  // ID 20, length 2
            0x05, 0x03, 0x00, 0x00, 0x00,  // ID 5, length 3
            0x00, 0x00, 0x00,        // padding
        ]),
        ("playout-delay min = max = 0 with transport-wide", .init(transportSequenceNumberID: 3, playoutDelay: .immediate(id: 5)), [
            0xBE, 0xDE, 0x00, 0x02,  // one-byte profile, 2 words
            0x31, 0x00, 0x00,        // ID 3, L=1 (2 bytes): stamped per packet
            0x52, 0x00, 0x00, 0x00,  // ID 5, L=2 (3 bytes): min 0, max 0 — a constant
            0x00,                    // padding
        ]),
        ("playout-delay min 100 ms, max 4095 × 10 ms", .init(playoutDelay: .init(id: 6, minimum: 10, maximum: 0xFFF)), [
            0xBE, 0xDE, 0x00, 0x01,
            0x62, 0x00, 0xAF, 0xFF,  // ID 6, L=2; 12 bits 0x00A, 12 bits 0xFFF
        ]),
        ("none", .init(), []),
    ]

    @Test(arguments: layoutCases)
    func extensionBlock(_ name: String, _ extensions: RTPSendHeaderExtensions, _ block: [UInt8]) throws {
        #expect(try SendHeaderExtensionLayout(extensions).template == block, "\(name)")
    }

    @Test func badIDsAreRefused() {
        for extensions in [RTPSendHeaderExtensions(transportSequenceNumberID: 0), .init(transportSequenceNumberID: 4, absoluteSendTimeID: 4),
                           .init(playoutDelay: .init(id: 5, minimum: 0x1000, maximum: 0)), .init(absoluteSendTimeID: 5, playoutDelay: .immediate(id: 5))] {
            #expect(throws: RTPError.self) { try Self.session(extensions) }
        }
    }

    @Test func absoluteSendTimeIsSixEighteenFixedPoint() {
        #expect(RTPSendHeaderExtensions.absoluteSendTime(RTPInstant(nanosecondsSinceEpoch: 1_000_000_000)) == 1 << 18)
        #expect(RTPSendHeaderExtensions.absoluteSendTime(RTPInstant(nanosecondsSinceEpoch: 500_000_000)) == 1 << 17)
        #expect(RTPSendHeaderExtensions.absoluteSendTime(RTPInstant(nanosecondsSinceEpoch: 64_000_000_000)) == 0)  // wraps
        #expect(RTPSendHeaderExtensions.absoluteSendTime(RTPInstant(nanosecondsSinceEpoch: 63_999_999_999)) == 0xFF_FFFF)
    }

    /// Every packet carries the next transport-wide number and the send time of the `pollTransmit` that handed it
    /// out; packets the socket did not take get the same numbers when they go.
    @Test func numbersAreTakenWhenPacketsLeave() throws {
        var session = try Self.session(batchSize: 4)
        try session.enqueue(T.accessUnit(6), captureTime: Self.start, at: Self.start)
        let first = try #require(T.transmit(&session, at: Self.start, take: 2))
        #expect(first.datagrams.map { Self.transportNumber($0) } == [0, 1, 2, 3])
        let later = Self.start + .milliseconds(250)
        let second = T.drain(&session, at: later).flatMap(\.datagrams)
        #expect(second.map { Self.transportNumber($0) } == [2, 3, 4, 5], "the two not taken go again with the same numbers")
        let sendTime = try #require(try RTPPacket(parsing: second[0]).header.extension?.element(id: 5))
        #expect(Array(sendTime) == withUnsafeBytes(of: RTPSendHeaderExtensions.absoluteSendTime(later).bigEndian) { Array($0.dropFirst()) })
        // The payload sits behind the block: the RTP packets still parse to the NAL units sent.
        let packet = try RTPPacket(parsing: second[0])
        #expect(packet.payload.count == 1000 && packet.payload.first == 0x41)
        #expect(session.statistics(at: later).bytesInFlight == 6 * second[0].count)
    }

    /// A NACKed packet goes again as RTX, keeping the extension block, under a new transport-wide number.
    @Test func retransmissionsGetFreshNumbers() throws {
        var session = try Self.session()
        try session.enqueue(T.accessUnit(3), captureTime: Self.start, at: Self.start)
        _ = T.drain(&session, at: Self.start)
        let nack = try RTCPPacket.genericNACK(.init(senderSSRC: T.peerSSRC, mediaSSRC: T.ssrc, lost: [T.firstSequenceNumber + 1])).marshal()
        session.handle(rtcp: nack[...], at: Self.start + .milliseconds(10))
        let resent = T.drain(&session, at: Self.start + .milliseconds(10)).flatMap(\.datagrams)
        #expect(resent.count == 1)
        let packet = try RTPPacket(parsing: resent[0])
        #expect(packet.header.ssrc == Self.rtx.ssrc)
        #expect(Self.transportNumber(resent[0]) == 3)
    }

    /// Transport-cc feedback becomes one `.transportFeedback` event: the packets it covers that the session
    /// remembers, in order, with arrival times on the receiver's clock; bytes in flight go down.
    @Test func transportCCFeedbackIsNormalised() throws {
        var session = try Self.session()
        try session.enqueue(T.accessUnit(4), captureTime: Self.start, at: Self.start)
        let sent = T.drain(&session, at: Self.start).flatMap(\.datagrams)
        #expect(sent.count == 4)
        let size = sent[0].count
        let report = TransportCCFeedback(
            senderSSRC: T.peerSSRC, mediaSSRC: T.ssrc, baseSequenceNumber: 0, referenceTime: 100, feedbackPacketCount: 0,
            statuses: [.receivedSmallDelta(8), .notReceived, .receivedLargeDelta(400), .receivedSmallDelta(0),
                       .receivedSmallDelta(1)])  // number 4 was never sent
        let feedbackTime = Self.start + .milliseconds(80)
        session.handle(rtcp: try RTCPPacket.transportCC(report).marshal()[...], at: feedbackTime)
        let events = T.events(&session)
        guard case .transportFeedback(let feedback) = try #require(events.first) else {
            Issue.record("\(events)")
            return
        }
        #expect(feedback.feedbackTime == Instant(feedbackTime))
        #expect(feedback.packets.map(\.sent.sequenceNumber) == [0, 1, 2, 3])
        #expect(feedback.packets.map(\.sent.sendTime) == Array(repeating: Instant(Self.start), count: 4))
        #expect(feedback.packets.map(\.sent.size) == Array(repeating: size, count: 4))
        #expect(feedback.packets.map(\.sent.kind) == Array(repeating: .media, count: 4))
        let reference = Instant.zero + .milliseconds(64 * 100)
        #expect(feedback.packets.map(\.arrival) == [reference + .milliseconds(2), nil, reference + .milliseconds(102), reference + .milliseconds(102)])
        #expect(feedback.bytesInFlight == 0)
        let statistics = session.statistics(at: feedbackTime)
        #expect(statistics.feedbackReports == 1 && statistics.feedbackPacketsReceived == 3 && statistics.feedbackPacketsLost == 1)
    }

    /// The 16-bit base is unwrapped against what was sent: feedback about the packets around 65535 → 0 finds them.
    @Test func feedbackAcrossTheWrap() throws {
        var history = SentPacketHistory()
        for _ in 0 ..< 65_538 {
            history.add(ssrc: 1, rtpSequenceNumber: 0, size: 100, sendTime: .zero, kind: .media, probeClusterID: nil)
        }
        let report = TransportCCFeedback(senderSSRC: 1, mediaSSRC: 1, baseSequenceNumber: 0xFFFE, referenceTime: 0, feedbackPacketCount: 0,
                                         statuses: [.receivedSmallDelta(0), .receivedSmallDelta(4), .notReceived, .receivedSmallDelta(4)])
        let feedback = history.feedback(report, now: .zero + .seconds(1))
        #expect(feedback.packets.map(\.sent.sequenceNumber) == [65_534, 65_535, 65_536, 65_537])
        // Packets older than 2^15 numbers are forgotten: a report about them finds nothing.
        let old = TransportCCFeedback(senderSSRC: 1, mediaSSRC: 1, baseSequenceNumber: 100, referenceTime: 0, feedbackPacketCount: 1,
                                      statuses: [.receivedSmallDelta(0)])
        #expect(history.feedback(old, now: .zero + .seconds(1)).packets.isEmpty)
    }

    /// RFC 8888 feedback finds packets by (SSRC, RTP sequence number), RTX by its own.
    @Test func ccfbIsNormalised() throws {
        var session = try Self.session(.init(), ccfb: true)
        try session.enqueue(T.accessUnit(3), captureTime: Self.start, at: Self.start)
        let sent = T.drain(&session, at: Self.start).flatMap(\.datagrams)
        #expect(sent.allSatisfy { $0[0] & 0x10 == 0 }, "no extension without an ID")
        let reportAt = RTPInstant(nanosecondsSinceEpoch: Self.start.nanosecondsSinceEpoch + 100_000_000)
        let report = CongestionControlFeedback(senderSSRC: T.peerSSRC, reportBlocks: [
            .init(ssrc: T.ssrc, beginSequence: T.firstSequenceNumber, metrics: [
                .received(before: .milliseconds(50)), .notReceived, .received(before: .milliseconds(10))]),
            .init(ssrc: 0xDEAD, beginSequence: 0, metrics: [.received(before: .zero)]),  // not ours
        ], reportTimestamp: NTPTime(reportAt).middle32)
        session.handle(rtcp: try RTCPPacket.congestionControlFeedback(report).marshal()[...], at: reportAt)
        guard case .transportFeedback(let feedback) = try #require(T.events(&session).first) else {
            Issue.record("no feedback event")
            return
        }
        #expect(feedback.packets.map(\.sent.sequenceNumber) == [0, 1, 2])
        #expect(feedback.packets[1].arrival == nil)
        let arrivals = feedback.packets.compactMap(\.arrival)
        // 40 ms apart, within the 1/1024 s quantum of each offset.
        let gap = (arrivals[1] - arrivals[0]).nanoseconds
        #expect(abs(gap - 40_000_000) <= 1_000_000, "\(gap)")
    }

    /// The report timestamp (1/65536 s) to the nanosecond, and the offset (1/1024 s) off it; across the 32-bit wrap.
    @Test func ccfbArrivalTimes() {
        var history = SentPacketHistory(rtpIndexFor: [9])
        for sequenceNumber in 0 ..< 3 as Range<UInt16> {
            history.add(ssrc: 9, rtpSequenceNumber: sequenceNumber, size: 100, sendTime: .zero, kind: .media, probeClusterID: nil)
        }
        func arrivals(timestamp: UInt32, offsets: [UInt16]) -> [Instant?] {
            let report = CongestionControlFeedback(senderSSRC: 1, reportBlocks: [
                .init(ssrc: 9, beginSequence: 0, metrics: offsets.map { .init(isReceived: true, arrivalTimeOffset: $0) })],
                reportTimestamp: timestamp)
            return history.feedback(report, now: .zero).packets.map(\.arrival)
        }
        // 65535.75 s; 0, 1/1024 s and 1 s before it.
        let base: Int64 = 65_535_750_000_000
        #expect(arrivals(timestamp: 0xFFFF_C000, offsets: [0, 1, 1024]) == [
            Instant(nanoseconds: base), Instant(nanoseconds: base - 976_562), Instant(nanoseconds: base - 1_000_000_000)])
        // Half a second later the 32 bits wrapped: 0x0000_4000 reads as 65536.25 s, not 0.25 s.
        #expect(arrivals(timestamp: 0x0000_4000, offsets: [0]).first == Instant(nanoseconds: base + 500_000_000))
    }

    /// Padding for a probe: padding-only packets on RTX, numbered and paced like media, remembered as `.padding`.
    @Test func paddingForProbes() throws {
        var session = try Self.session()
        #expect(try session.enqueuePadding(bytes: 600, probeClusterID: 7, at: Self.start) == 3)
        let sent = T.drain(&session, at: Self.start).flatMap(\.datagrams)
        #expect(sent.count == 3)
        for (index, datagram) in sent.enumerated() {
            let packet = try RTPPacket(parsing: datagram)
            #expect(packet.header.ssrc == Self.rtx.ssrc && packet.header.payloadType == Self.rtx.payloadType)
            #expect(packet.payload.isEmpty)
            #expect(Int(packet.paddingSize) == [255, 255, 90][index])
            #expect(Self.transportNumber(datagram) == UInt16(index))
        }
        let report = TransportCCFeedback(senderSSRC: 1, mediaSSRC: T.ssrc, baseSequenceNumber: 0, referenceTime: 0,
                                         feedbackPacketCount: 0, statuses: Array(repeating: .receivedSmallDelta(1), count: 3))
        session.handle(rtcp: try RTCPPacket.transportCC(report).marshal()[...], at: Self.start + .milliseconds(50))
        guard case .transportFeedback(let feedback) = try #require(T.events(&session).first) else { return }
        #expect(feedback.packets.allSatisfy { $0.sent.kind == .padding && $0.sent.probeClusterID == 7 })
        #expect(session.statistics(at: Self.start).paddingPacketsSent == 3)
        #expect(session.statistics(at: Self.start).packetsRetransmitted == 0)
    }

    @Test func paddingNeedsRTX() throws {
        var configuration = RTPSendSession.Configuration(ssrc: 1, pacing: .unpaced)
        configuration.headerExtensions = .init(transportSequenceNumberID: 3)
        var session = try RTPSendSession(configuration: configuration)
        #expect(throws: RTPError.self) { try session.enqueuePadding(bytes: 100, at: Self.start) }
        var withRTX = try Self.session()
        #expect(throws: RTPError.self) { try withRTX.enqueuePadding(bytes: 0, at: Self.start) }
    }

    /// Without extensions nothing changes on the wire (the packets are what they were before issue 17).
    @Test func noExtensionsNoChange() throws {
        var session = try Self.session(.init())
        try session.enqueue(T.accessUnit(2), captureTime: Self.start, at: Self.start)
        let sent = T.drain(&session, at: Self.start).flatMap(\.datagrams)
        #expect(sent.allSatisfy { $0.count == 12 + 1000 && $0[0] == 0x80 })
        #expect(session.sentPackets == nil)
    }
}
