import MediaCore
import Testing
@testable import RTP
@testable import RTPOut

/// `RTPSendSession` alone: manual time, no sockets, no sleeps. The test is the driver: it polls transmits, copies the
/// datagrams out (as a socket would), and reports how many "the socket" took.
struct RTPSendSessionTests {
    static let ssrc: UInt32 = 0x1234_5678
    static let peerSSRC: UInt32 = 0xFEED_0001
    static let firstSequenceNumber: UInt16 = 100
    static let offset: UInt32 = 1000

    static func session(
        pacing: RTPSendSession.Pacing = .unpaced, rtx: (payloadType: UInt8, ssrc: UInt32)? = nil, queueCapacity: Int = 4096,
        goodbyeDelay: Duration = .milliseconds(500), batchSize: Int = 64
    ) throws -> RTPSendSession {
        try RTPSendSession(
            configuration: .init(payloadType: 96, ssrc: ssrc, cname: "session@test", pacing: pacing, rtx: rtx, queueCapacity: queueCapacity,
                                 goodbyeDelay: goodbyeDelay, initialSequenceNumber: firstSequenceNumber, timestampOffset: offset,
                                 batchSize: batchSize),
            random: SeededGenerator(state: 42))
    }

    /// An access unit of `count` non-IDR NAL units of `size` bytes (≤ 1200: one packet each, too large to aggregate
    /// in pairs), Annex-B framed, at `seconds` of media time.
    static func accessUnit(_ count: Int, size: Int = 1000, type: UInt8 = 0x41, seconds: Int64 = 0, keyframe: Bool = false) -> CodedAccessUnit {
        var bytes: [UInt8] = []
        var units: [CodedAccessUnit.NALUnit] = []
        for _ in 0 ..< count {
            bytes += [0, 0, 0, 1]
            units.append(.init(type: type & 0x1F, range: bytes.count ..< bytes.count + size))
            bytes += nal(type, size: size)
        }
        return CodedAccessUnit(codec: .h264, bytes: bytes, framing: .annexB, nalUnits: units, isKeyframe: keyframe,
                               presentationTime: MediaTime(value: seconds * 90_000, timescale: 90_000))
    }

    /// Polls once; copies the datagrams out and reports `take` of them taken (all when nil).
    static func transmit(_ session: inout RTPSendSession, at now: RTPInstant, take: Int? = nil) -> (kind: RTPTransmit.Kind, datagrams: [[UInt8]])? {
        guard let transmit = session.pollTransmit(at: now) else { return nil }
        let datagrams = transmit.datagrams.map { Array($0) }
        session.didTransmit(take ?? datagrams.count, at: now)
        return (transmit.kind, datagrams)
    }

    /// Everything due at `now`.
    static func drain(_ session: inout RTPSendSession, at now: RTPInstant) -> [(kind: RTPTransmit.Kind, datagrams: [[UInt8]])] {
        var all: [(kind: RTPTransmit.Kind, datagrams: [[UInt8]])] = []
        while let sent = transmit(&session, at: now) { all.append(sent) }
        return all
    }

    static func events(_ session: inout RTPSendSession) -> [RTPSendEvent] {
        var all: [RTPSendEvent] = []
        while let event = session.pollEvent() { all.append(event) }
        return all
    }

    static func sequenceNumber(_ packet: [UInt8]) -> UInt16 { UInt16(packet[2]) << 8 | UInt16(packet[3]) }
    static func ssrc(_ packet: [UInt8]) -> UInt32 { packet[8 ..< 12].reduce(0) { $0 << 8 | UInt32($1) } }

    static func rtcp(_ packets: [RTCPPacket]) throws -> ArraySlice<UInt8> { try RTCPCompound.marshal(packets)[...] }

    // MARK: Pacing

    /// 1 Mb/s at factor 1 = 125,000 bytes/s; a 30-packet frame of 1,012-byte packets (30,360 bytes) leaves over
    /// ~(30,360 − burst) / 125,000 s, one packet per ~8 ms, never faster than the rate allows.
    @Test func pacingSpreadsAKeyframeAtTheConfiguredRate() throws {
        var session = try Self.session(pacing: .paced(targetBitrate: 1_000_000, factor: 1))
        try session.enqueue(Self.accessUnit(30, keyframe: true), captureTime: t0, at: t0)
        var now = t0
        var sendTimes: [RTPInstant] = []
        var packets = 0
        while packets < 30 {
            for sent in Self.drain(&session, at: now) where sent.kind == .rtp {
                packets += sent.datagrams.count
                sendTimes += Array(repeating: now, count: sent.datagrams.count)
            }
            guard packets < 30 else { break }
            let nextValue = session.nextTimeout()
            let next = try #require(nextValue)
            try #require(next > now, "nothing sent, yet due again at \(next)")
            now = next
        }
        let span = (sendTimes.last! - t0).seconds
        // The last packet leaves when the 29 before it, less the 1,500-byte burst allowance, have drained.
        let expected = Double(29 * 1012 - 1500) / 125_000
        #expect(abs(span - expected) < 0.01, "last packet after \(span) s, expected ~\(expected) s")
        // Any window of 100 ms carries at most the rate's 12,500 bytes plus the burst allowance and one packet.
        for (i, start) in sendTimes.enumerated() {
            let inWindow = sendTimes[i...].prefix { $0 - start < .milliseconds(100) }.count
            #expect(inWindow * 1012 <= 12_500 + 1500 + 1012)
        }
        check(session.statistics(at: now).packetsSent == 30)
    }

    /// Unpaced, everything queued is due at once, in batches of `batchSize`.
    @Test(arguments: [(packets: 100, batchSize: 64, batches: [64, 36]), (packets: 5, batchSize: 64, batches: [5]), (packets: 9, batchSize: 3, batches: [3, 3, 3])])
    func unpacedLetsEverythingThrough(packets: Int, batchSize: Int, batches: [Int]) throws {
        var session = try Self.session(batchSize: batchSize)
        try session.enqueue(Self.accessUnit(packets), captureTime: t0, at: t0)
        let sent = Self.drain(&session, at: t0)
        #expect(sent.map(\.datagrams.count) == batches)
        let numbers = sent.flatMap(\.datagrams).map(Self.sequenceNumber)
        #expect(numbers == (0 ..< packets).map { Self.firstSequenceNumber &+ UInt16($0) })
        check(session.nextTimeout() != nil)  // the first SR
        check(session.statistics(at: t0).packetsSent == packets)
    }

    /// The session owns the RTP timestamp: media time on 90 kHz plus the offset; the marker on the last packet.
    @Test func timestampFromMediaTimeAndMarkerOnTheLastPacket() throws {
        var session = try Self.session()
        let timestamp = try session.enqueue(Self.accessUnit(3, seconds: 2), captureTime: t0, at: t0)
        #expect(timestamp == 2 * 90_000 + Self.offset)
        let packets = Self.drain(&session, at: t0).flatMap(\.datagrams)
        #expect(packets.map { $0[4 ..< 8].reduce(0) { $0 << 8 | UInt32($1) } } == [timestamp, timestamp, timestamp])
        #expect(packets.map { $0[1] & 0x80 != 0 } == [false, false, true])
        #expect(packets.map { $0[1] & 0x7F } == [96, 96, 96])
        #expect(packets.allSatisfy { Self.ssrc($0) == Self.ssrc })
    }

    @Test func badAccessUnitsAreTypedErrors() throws {
        var session = try Self.session()
        var hevc = Self.accessUnit(1)
        hevc.codec = .hevc
        #expect(throws: RTPError.self) { try session.enqueue(hevc, captureTime: t0, at: t0) }
        var outside = Self.accessUnit(1)
        outside.nalUnits[0].range = 0 ..< outside.bytes.count + 1
        #expect(throws: RTPError.self) { try session.enqueue(outside, captureTime: t0, at: t0) }
        var zeroScale = Self.accessUnit(1)
        zeroScale.presentationTime = MediaTime(value: 1, timescale: 0)
        #expect(throws: RTPError.self) { try session.enqueue(zeroScale, captureTime: t0, at: t0) }
        check(session.queuedPackets == 0)
        #expect(throws: RTPError.self) {
            _ = try RTPSendSession(configuration: .init(ssrc: 1, cname: ""))
        }
    }

    // MARK: Feedback

    /// NACK → the packet from the history at the head of the queue, before newer media. Plain: the very bytes sent
    /// before. RTX (RFC 4588): PT 97, the RTX SSRC and its own sequence numbers, the OSN, then the original payload.
    @Test(arguments: [false, true])
    func nackPutsTheRetransmissionAtTheHead(rtx: Bool) throws {
        var session = try Self.session(rtx: rtx ? (payloadType: 97, ssrc: 0xBEEF) : nil)
        try session.enqueue(Self.accessUnit(5), captureTime: t0, at: t0)
        let originals = Self.drain(&session, at: t0).flatMap(\.datagrams)
        try session.enqueue(Self.accessUnit(2, seconds: 1), captureTime: t0, at: t0)  // newer media waiting
        let nack = GenericNACK(senderSSRC: Self.peerSSRC, mediaSSRC: Self.ssrc, lost: [102, 104])
        session.handle(rtcp: try Self.rtcp([.genericNACK(nack)]), at: t0 + .milliseconds(20))
        let sent = Self.drain(&session, at: t0 + .milliseconds(20)).flatMap(\.datagrams)
        #expect(sent.count == 4)
        #expect(sent[2...].map(Self.sequenceNumber) == [105, 106])  // the new media after both
        if !rtx {
            #expect(sent[0] == originals[2])
            #expect(sent[1] == originals[4])
        } else {
            let first = sent[0], second = sent[1]
            #expect(first[1] & 0x7F == 97 && Self.ssrc(first) == 0xBEEF)
            #expect(Self.sequenceNumber(second) == Self.sequenceNumber(first) &+ 1)  // RTX has its own numbers
            #expect(Array(first[12 ..< 14]) == [0, 102])  // OSN
            #expect(Array(first[14...]) == Array(originals[2][12...]))  // the original payload
            #expect(Array(first[4 ..< 8]) == Array(originals[2][4 ..< 8]))  // and timestamp
            #expect(Array(second[12 ..< 14]) == [0, 104])
        }
        let stats = session.statistics(at: t0 + .milliseconds(20))
        #expect(stats.packetsRetransmitted == 2 && stats.nackedPackets == 2 && stats.retransmissionsMissed == 0)
    }

    /// A NACK for numbers never sent (or no longer held) retransmits nothing and is counted.
    @Test(arguments: [[UInt16(99)], [150, 151], [65535]])
    func nackForANumberNeverSentIsCounted(lost: [UInt16]) throws {
        var session = try Self.session()
        try session.enqueue(Self.accessUnit(3), captureTime: t0, at: t0)
        _ = Self.drain(&session, at: t0)
        session.handle(rtcp: try Self.rtcp([.genericNACK(GenericNACK(senderSSRC: Self.peerSSRC, mediaSSRC: Self.ssrc, lost: lost))]), at: t0)
        check(session.pollTransmit(at: t0) == nil)
        check(session.statistics(at: t0).retransmissionsMissed == lost.count)
        let missed = Self.events(&session).compactMap { if case .retransmissionMissed(let n) = $0 { n } else { nil } }
        #expect(missed.sorted() == lost.sorted())
    }

    /// PLI (and FIR with a new sequence number) → `.keyframeRequested`, at most one per 300 ms.
    @Test(arguments: [
        (pliAfter: [0, 100, 299, 300, 350, 700], requests: [0, 300, 700]),
        (pliAfter: [0, 0, 0], requests: [0]),
        (pliAfter: [10, 400], requests: [10, 400]),
    ])
    func pliIsThrottledToOneKeyframeRequestPer300ms(pliAfter: [Int], requests: [Int]) throws {
        var session = try Self.session()
        var forwarded: [Int] = []
        for milliseconds in pliAfter {
            let pli = PictureLossIndication(senderSSRC: Self.peerSSRC, mediaSSRC: Self.ssrc)
            session.handle(rtcp: try Self.rtcp([.receiverReport(.init(ssrc: Self.peerSSRC)), .pictureLossIndication(pli)]),
                           at: t0 + .milliseconds(milliseconds))
            forwarded += Self.events(&session).filter { $0 == .keyframeRequested }.map { _ in milliseconds }
        }
        #expect(forwarded == requests)
        check(session.statistics(at: t0).keyframeRequestsForwarded == requests.count)
        check(session.statistics(at: t0).keyframeRequestsReceived == pliAfter.count)
    }

    /// REMB → a bitrate-limit event; the session does not move its own pacer (the rate has one owner, the driver's).
    @Test func rembBecomesABitrateLimitEvent() throws {
        var session = try Self.session(pacing: .paced(targetBitrate: 2_000_000))
        let pacerBefore = session.pacer.pacingRate
        let remb = ReceiverEstimatedMaximumBitrate(senderSSRC: Self.peerSSRC, bitrate: 500_000, ssrcs: [Self.ssrc])
        session.handle(rtcp: try Self.rtcp([.receiverReport(.init(ssrc: Self.peerSSRC)), .receiverEstimatedMaximumBitrate(remb)]), at: t0)
        check(Self.events(&session) == [.bitrateLimit(500_000)])
        check(session.pacer.pacingRate == pacerBefore)
        check(session.statistics(at: t0).lastBitrateLimit == 500_000)
        check(session.pollTransmit(at: t0) == nil)  // nothing to answer
    }

    /// TMMBR → a bitrate-limit event and a TMMBN (RFC 5104 §4.2.2.1) for the RTCP socket, behind an SR + SDES.
    @Test func tmmbrIsAnsweredWithTMMBN() throws {
        var session = try Self.session()
        let tmmbr = TemporaryMaximumBitrate(senderSSRC: Self.peerSSRC, entries: [.init(ssrc: Self.ssrc, bitrate: 300_000, overhead: 40)])
        session.handle(rtcp: try Self.rtcp([.receiverReport(.init(ssrc: Self.peerSSRC)), .temporaryMaximumBitrateRequest(tmmbr)]), at: t0)
        check(Self.events(&session) == [.bitrateLimit(300_000)])
        check(session.nextTimeout() == t0)
        let replyValue = Self.transmit(&session, at: t0)
        let reply = try #require(replyValue)
        #expect(reply.kind == .rtcp && reply.datagrams.count == 1)
        let packets = try RTCPCompound.parse(reply.datagrams[0][...])
        #expect(packets.count == 3)
        guard case .senderReport(let sr) = packets[0] else { Issue.record("no SR first"); return }
        #expect(sr.ssrc == Self.ssrc)
        #expect(packets[2] == .temporaryMaximumBitrateNotification(
            TemporaryMaximumBitrate(senderSSRC: Self.ssrc, entries: [.init(ssrc: Self.peerSSRC, bitrate: 300_000, overhead: 40)])))
        check(session.pollTransmit(at: t0) == nil)
    }

    @Test func malformedAndDiscardedRTCPAreCounted() throws {
        var session = try Self.session()
        session.handle(rtcp: [0x80, 201, 0, 7][...], at: t0)  // RR header claiming 32 bytes, 4 present
        session.discarded(rtcp: .otherHost)
        session.discarded(rtcp: .unauthenticated)
        let stats = session.statistics(at: t0)
        #expect(stats.rtcpPacketsMalformed == 1 && stats.rtcpPacketsIgnored == 1 && stats.rtcpPacketsUnauthenticated == 1)
        #expect(stats.rtcpPacketsReceived == 0)
    }

    // MARK: Reports and goodbye

    /// The first SR half an interval after media starts, carrying the RTP time of `now` extrapolated from the last
    /// frame (capture time ↔ RTP timestamp) and the NTP time of `now`.
    @Test func senderReportIsDueOnScheduleWithTheRTPToNTPMapping() throws {
        var session = try Self.session()
        try session.enqueue(Self.accessUnit(2, seconds: 1), captureTime: t0, at: t0)
        _ = Self.drain(&session, at: t0)
        check(session.nextTimeout() == t0 + .milliseconds(500))
        check(session.pollTransmit(at: t0 + .milliseconds(499)) == nil)
        let reportValue = Self.transmit(&session, at: t0 + .milliseconds(500))
        let report = try #require(reportValue)
        #expect(report.kind == .rtcp)
        let packets = try RTCPCompound.parse(report.datagrams[0][...])
        #expect(packets == [
            .senderReport(SenderReport(ssrc: Self.ssrc, ntpTime: NTPTime(t0 + .milliseconds(500)),
                                       rtpTimestamp: Self.offset + 90_000 + 45_000, packetCount: 2, octetCount: 2000)),
            .sourceDescription(.cname(ssrc: Self.ssrc, "session@test")),
        ])
        let nextValue = session.nextTimeout()
        let next = try #require(nextValue)
        #expect(next >= t0 + .milliseconds(1000) && next <= t0 + .milliseconds(2000))  // [0.5, 1.5] × 1 s later
    }

    /// close → what is queued still goes at the pacer's rate, then the BYE `goodbyeDelay` after the queue drained.
    @Test func closeSendsTheByeAfterTheDrainAndTheGoodbyeDelay() throws {
        var session = try Self.session(pacing: .paced(targetBitrate: 1_000_000, factor: 1), goodbyeDelay: .milliseconds(500))
        try session.enqueue(Self.accessUnit(10), captureTime: t0, at: t0)
        session.close(at: t0)
        #expect(throws: RTPError.self) { try session.enqueue(Self.accessUnit(1), captureTime: t0, at: t0) }
        var now = t0
        var lastMedia = t0
        var goodbye: (at: RTPInstant, packets: [RTCPPacket])?
        while goodbye == nil, now < t0 + .seconds(3) {
            for sent in Self.drain(&session, at: now) {
                if sent.kind == .rtp { lastMedia = now } else {
                    let packets = try RTCPCompound.parse(sent.datagrams[0][...])
                    if packets.contains(where: { if case .goodbye = $0 { true } else { false } }) { goodbye = (now, packets) }
                }
            }
            guard let next = session.nextTimeout() else { break }
            try #require(next > now, "nothing sent, yet due again at \(next)")
            now = next
        }
        let bye = try #require(goodbye)
        #expect(bye.packets.last == .goodbye(Goodbye(sources: [Self.ssrc])))
        #expect(lastMedia > t0)  // paced out over time, not at once
        #expect(bye.at - lastMedia == .milliseconds(500))
        check(session.isClosed && session.nextTimeout() == nil && session.pollTransmit(at: now) == nil)
        check(Self.events(&session).contains(.goodbyeSent))
        check(session.statistics(at: now).packetsSent == 10)
    }

    /// ICMP refusal and no RTCP ever: nobody listens, the BYE goes at once; a peer that sent RTCP gets the linger.
    @Test(arguments: [(rtcpFromPeer: false, byeAfter: Duration.zero), (rtcpFromPeer: true, byeAfter: .milliseconds(500))])
    func refusalWithoutRTCPSendsTheByeAtOnce(rtcpFromPeer: Bool, byeAfter: Duration) throws {
        var session = try Self.session()
        try session.enqueue(Self.accessUnit(3), captureTime: t0, at: t0)
        _ = Self.drain(&session, at: t0)
        if rtcpFromPeer { session.handle(rtcp: try Self.rtcp([.receiverReport(.init(ssrc: Self.peerSSRC))]), at: t0) }
        session.close(at: t0)
        check(session.wantsRefusalCheck == !rtcpFromPeer)
        session.peerRefused(at: t0, peer: "127.0.0.1:9")  // what the driver found pending on the socket
        var now = t0
        while !session.isClosed, now <= t0 + .seconds(1) {
            _ = Self.drain(&session, at: now)
            if session.isClosed { break }
            let nextValue = session.nextTimeout()
            let next = try #require(nextValue)
            try #require(next > now, "nothing sent, yet due again at \(next)")
            now = next
        }
        check(session.isClosed)
        #expect(now - t0 == byeAfter)
        #expect(Self.events(&session).contains(.warning(RTPSendWarning(kind: .peerNotListening,
                                                                      message: "127.0.0.1:9 not listening (ICMP port unreachable); still sending"))))
        check(session.statistics(at: now).icmpErrors == 1)
    }

    /// At the close deadline, what is still queued is dropped (counted, warned) and the BYE goes.
    @Test func closeDeadlineDropsWhatIsLeft() throws {
        var session = try Self.session(pacing: .paced(targetBitrate: 100_000, factor: 1))
        try session.enqueue(Self.accessUnit(50), captureTime: t0, at: t0)
        session.close(at: t0, drainTimeout: .milliseconds(200))
        let sent = Self.drain(&session, at: t0 + .milliseconds(200))
        #expect(sent.last?.kind == .rtcp)
        check(session.isClosed)
        let stats = session.statistics(at: t0 + .milliseconds(200))
        #expect(stats.packetsDropped + stats.packetsSent == 50 && stats.packetsDropped > 0)
        check(Self.events(&session).contains { if case .warning(let w) = $0 { w.kind == .closedWithPacketsQueued } else { false } })
    }

    // MARK: Reservation

    /// The views of a batch that is out stay as they were through enqueues (also one that makes the unpaced queue
    /// grow) and NACKs until the driver reports; then the NACKed packet leads.
    @Test(arguments: [RTPSendSession.Pacing.unpaced, .paced(targetBitrate: 100_000_000)])
    func aReservedBatchSurvivesEnqueueUntilDidTransmit(pacing: RTPSendSession.Pacing) throws {
        var session = try Self.session(pacing: pacing, queueCapacity: 4)
        try session.enqueue(Self.accessUnit(3), captureTime: t0, at: t0)
        let batchValue = session.pollTransmit(at: t0)
        let batch = try #require(batchValue)
        let before = batch.datagrams.map { Array($0) }
        #expect(before.map(Self.sequenceNumber) == [100, 101, 102])
        check(session.hasOutstandingTransmit && session.pollTransmit(at: t0) == nil)
        // "Another thread" while the driver sends: more media (4 in a ring of 4 with 3 reserved; unpaced it grows)…
        try session.enqueue(Self.accessUnit(4, seconds: 1), captureTime: t0, at: t0)
        // …and feedback for a packet sent earlier (none yet: 100 is not in the history, so it is missed)…
        session.handle(rtcp: try Self.rtcp([.genericNACK(GenericNACK(senderSSRC: Self.peerSSRC, mediaSSRC: Self.ssrc, lost: [100]))]), at: t0)
        #expect(batch.datagrams.map { Array($0) } == before)
        session.didTransmit(batch.count, at: t0)
        check(session.statistics(at: t0).retransmissionsMissed == 0)  // held back, then found: 100 was sent by then
        let rest = Self.drain(&session, at: t0).flatMap(\.datagrams)
        #expect(rest.first == before[0])  // the retransmission leads
        let expectedNew: [UInt16] = if case .unpaced = pacing { [103, 104, 105, 106] } else { [103] }  // paced: ring full, 3 dropped
        #expect(rest.dropFirst().map(Self.sequenceNumber) == expectedNew)
        check(session.statistics(at: t0).packetsDropped == (expectedNew.count == 4 ? 0 : 3))
    }

    /// The socket took 4 of 10: the other 6 stay at the head, in order, and come out next.
    @Test(arguments: [0, 4, 9, 10])
    func partialDidTransmitLeavesTheRestAtTheHead(taken: Int) throws {
        var session = try Self.session()
        try session.enqueue(Self.accessUnit(10), captureTime: t0, at: t0)
        let firstValue = Self.transmit(&session, at: t0, take: taken)
        let first = try #require(firstValue)
        #expect(first.datagrams.count == 10)
        check(session.statistics(at: t0).packetsSent == taken)
        check(session.queuedPackets == 10 - taken)
        let rest = Self.drain(&session, at: t0).flatMap(\.datagrams)
        #expect(rest.map(Self.sequenceNumber) == (taken ..< 10).map { 100 + UInt16($0) })
        #expect(rest == Array(first.datagrams[taken...]))
    }

    /// A full socket (EAGAIN) leaves the batch queued, and the pacer stops being a reason to wake up.
    @Test func socketFullKeepsTheBatchAndQuietsThePacer() throws {
        var session = try Self.session()
        try session.enqueue(Self.accessUnit(3), captureTime: t0, at: t0)
        let polled1 = session.pollTransmit(at: t0)
        _ = try #require(polled1)
        session.didTransmit(0, at: t0, socketFull: true)
        check(session.queuedPackets == 3)
        check(session.nextTimeout() == nil)  // nothing sent yet, so no SR either: wait for writability
        check(Self.drain(&session, at: t0).flatMap(\.datagrams).count == 3)
    }

    /// A send error drops the batch (counted, one warning per kind); an SRTP failure drops one packet; the stream
    /// goes on. The unpaced driver's stall limit drops what is queued.
    @Test func failuresDropCountAndWarnOnce() throws {
        var session = try Self.session()
        try session.enqueue(Self.accessUnit(6), captureTime: t0, at: t0)
        let polled2 = session.pollTransmit(at: t0)
        _ = try #require(polled2)
        session.didFailTransmit(.sendFailed("EPERM"), dropping: 2, at: t0)
        let polled3 = session.pollTransmit(at: t0)
        _ = try #require(polled3)
        session.didFailTransmit(.sendFailed("EPERM"), dropping: 1, at: t0)
        let polled4 = session.pollTransmit(at: t0)
        _ = try #require(polled4)
        session.didFailTransmit(.protectionFailed("bad key"), dropping: 1, at: t0)
        check(session.queuedPackets == 2)
        session.transportStalled(for: .seconds(2), at: t0)
        check(session.queuedPackets == 0)
        let stats = session.statistics(at: t0)
        #expect(stats.sendErrors == 3 && stats.packetsDropped == 2 && stats.packetsSent == 0)
        let kinds = Self.events(&session).compactMap { if case .warning(let w) = $0 { w.kind } else { nil } }
        #expect(kinds == [.sendFailed, .protectionFailed, .stalled])
    }

    /// Unpaced, an access unit larger than the queue still goes out whole (the queue grows); paced, the excess is
    /// dropped and counted.
    @Test func unpacedQueueGrowsPacedQueueDrops() throws {
        var unpaced = try Self.session(queueCapacity: 8)
        try unpaced.enqueue(Self.accessUnit(26), captureTime: t0, at: t0)
        check(Self.drain(&unpaced, at: t0).flatMap(\.datagrams).count == 26)
        check(unpaced.statistics(at: t0).packetsDropped == 0)
        var paced = try Self.session(pacing: .paced(targetBitrate: 1_000_000), queueCapacity: 8)
        try paced.enqueue(Self.accessUnit(26), captureTime: t0, at: t0)
        check(paced.queuedPackets == 8)
        check(paced.statistics(at: t0).packetsDropped == 18)
    }

    /// A random drive (seeded): media, NACKs, PLIs, socket-full and partial sends, refusals, then close. Invariants
    /// throughout: the next timeout is never in the past, new media leaves in sequence-number order (retransmissions
    /// aside), the close ends in a BYE, and every packet made was sent once or counted as dropped.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func randomDriveKeepsItsInvariants(seed: UInt64) throws {
        var rng = SeededGenerator(state: seed)
        var session = try Self.session(pacing: .paced(targetBitrate: 1_500_000), rtx: seed % 2 == 0 ? (97, 0xBEEF) : nil,
                                       queueCapacity: 64)
        var now = t0
        var made = 0
        var lastNewMedia: UInt16?  // 100 + at most 12,000 packets: no wrap here
        var sent: Set<UInt16> = []
        var inOrder = true
        for step in 0 ..< 400 {
            switch Int.random(in: 0 ..< 10, using: &rng) {
            case 0 ..< 3:
                let count = Int.random(in: 1 ... 30, using: &rng)
                try session.enqueue(Self.accessUnit(count, seconds: Int64(step)), captureTime: now, at: now)
                made += count
            case 3:
                let lost = (0 ..< 3).map { _ in Self.firstSequenceNumber &+ UInt16.random(in: 0 ... UInt16(max(made, 1)), using: &rng) }
                session.handle(rtcp: try Self.rtcp([.genericNACK(GenericNACK(senderSSRC: Self.peerSSRC, mediaSSRC: Self.ssrc, lost: Set(lost).sorted()))]), at: now)
            case 4:
                session.handle(rtcp: try Self.rtcp([.pictureLossIndication(.init(senderSSRC: Self.peerSSRC, mediaSSRC: Self.ssrc))]), at: now)
            case 5:
                session.peerRefused(at: now)
            default:
                break
            }
            // Drive: sometimes the socket takes only part, or is full.
            while let transmit = session.pollTransmit(at: now) {
                let taken = Int.random(in: 0 ..< 4, using: &rng) == 0 ? Int.random(in: 0 ... transmit.count, using: &rng) : transmit.count
                if transmit.kind == .rtp {
                    for packet in transmit.datagrams.prefix(taken).map({ Array($0) }) where Self.ssrc(packet) == Self.ssrc {
                        // A number seen before is a plain retransmission; a new one must be above all before it.
                        let number = Self.sequenceNumber(packet)
                        guard sent.insert(number).inserted else { continue }
                        if let last = lastNewMedia, number < last { inOrder = false }
                        lastNewMedia = number
                    }
                }
                session.didTransmit(taken, at: now, socketFull: taken < transmit.count)
                if taken < transmit.count { break }
            }
            let next = session.nextTimeout()
            if let next { try #require(next >= now) }
            now = min(next ?? now + .milliseconds(10), now + .milliseconds(10))
            if now == t0 { now = now + .milliseconds(1) }
        }
        session.close(at: now)
        var guardSteps = 0
        while !session.isClosed, guardSteps < 10_000 {
            _ = Self.drain(&session, at: now)
            guard let next = session.nextTimeout() else { break }
            now = max(next, now + .microseconds(1))
            guardSteps += 1
        }
        check(session.isClosed)
        let stats = session.statistics(at: now)
        #expect(inOrder)
        #expect(stats.packetsSent - stats.packetsRetransmitted + stats.packetsDropped == made,
                "sent \(stats.packetsSent) (\(stats.packetsRetransmitted) again), dropped \(stats.packetsDropped), made \(made)")
    }

    /// The same seed and inputs give the same datagrams (the loop tests in virtual time rely on it).
    @Test func deterministicForASeed() throws {
        func run() throws -> [[UInt8]] {
            var session = try Self.session(pacing: .paced(targetBitrate: 2_000_000), rtx: (97, 0xBEEF))
            var out: [[UInt8]] = []
            var now = t0
            for frame in 0 ..< 30 {
                try session.enqueue(Self.accessUnit(frame % 10 == 0 ? 20 : 3, seconds: Int64(frame)), captureTime: now, at: now)
                if frame == 5 {
                    session.handle(rtcp: try Self.rtcp([.genericNACK(GenericNACK(senderSSRC: 1, mediaSSRC: Self.ssrc, lost: [101, 130]))]), at: now)
                }
                let end = now + .milliseconds(33)
                while now < end {
                    out += Self.drain(&session, at: now).flatMap(\.datagrams)
                    let next = min(session.nextTimeout() ?? end, end)
                    try #require(next > now, "nothing sent, yet due again at \(next)")
                    now = next
                }
            }
            return out
        }
        #expect(try run() == run())
    }
}

/// `#expect` for conditions that read a noncopyable session (the macro cannot capture one): the condition is
/// evaluated first, so a failure shows the line but not the operands.
private func check(_ condition: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(condition, sourceLocation: sourceLocation)
}
