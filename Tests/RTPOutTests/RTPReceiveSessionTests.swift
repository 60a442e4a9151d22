import Bitstream
import Testing
@testable import RTP
@testable import RTPOut

/// `RTPReceiveSession` on its own: datagrams in at times the test chooses, RTCP and events out. No sockets, no
/// sleeps; every time is an exact offset from `t0`.
struct RTPReceiveSessionTests {
    static let t0 = RTPInstant(nanosecondsSinceEpoch: 1_700_000_000 * 1_000_000_000)
    static func at(_ ms: Int) -> RTPInstant { t0 + .milliseconds(ms) }
    static let ours: UInt32 = 0x0000_00AA
    static let theirs: UInt32 = 0x0000_5555

    static let sps = StartOfStreamNACKTests.sps
    static let pps = StartOfStreamNACKTests.pps
    static let idr: [UInt8] = [0x65, 0x88, 0x84, 0x43]
    /// A P slice (type 1, NRI 2) whose second byte tells access units apart.
    static func slice(_ n: UInt8) -> [UInt8] { [0x41, 0x9A, n] }

    /// One RTP packet: 12-byte header (V=2, M, PT 96, sequence number, timestamp, SSRC 0x5555), then the payload.
    static func rtp(_ sequenceNumber: UInt16, timestamp: UInt32, marker: Bool = true, _ payload: [UInt8],
                    payloadType: UInt8 = 96) -> [UInt8] {
        // swiftlint:disable:next force_try
        try! RTPPacket(header: RTPHeader(marker: marker, payloadType: payloadType, sequenceNumber: sequenceNumber,
                                         timestamp: timestamp, ssrc: theirs), payload: payload[...]).marshal()
    }

    /// The start of a stream as x264 and our payloader send it: STAP-A(SPS, PPS) then the IDR (timestamp 0), then
    /// one P slice per access unit, 3000 ticks apart, from sequence number 100.
    static func stream(frames: Int) -> [[UInt8]] {
        [rtp(100, timestamp: 0, marker: false, StartOfStreamNACKTests.stapA), rtp(101, timestamp: 0, idr)]
            + (1 ..< frames).map { rtp(UInt16(101 + $0), timestamp: UInt32($0 * 3000), slice(UInt8($0))) }
    }

    static func session(_ configure: (inout RTPReceiveSession.Configuration) -> Void = { _ in }) -> RTPReceiveSession {
        var configuration = RTPReceiveSession.Configuration(ssrc: ours)
        configure(&configuration)
        return RTPReceiveSession(configuration: configuration)
    }

    /// What one poll of the session gave: the RTCP it wants sent (parsed) and its events.
    struct Output {
        var rtcp: [[RTCPPacket]] = []
        var events: [RTPReceiveEvent] = []

        var nacked: [[UInt16]] {
            rtcp.compactMap { $0.lazy.compactMap { if case .genericNACK(let n) = $0 { n.lostSequenceNumbers } else { nil } }.first }
        }
        var pictureLosses: Int { rtcp.filter { $0.contains { if case .pictureLossIndication = $0 { true } else { false } } }.count }
        var delivered: [ReceivedAccessUnit] { events.compactMap { if case .accessUnit(let u) = $0 { u.received } else { nil } } }
        var requests: [PictureRecovery.Reason] { events.compactMap { if case .keyframeRequested(let r) = $0 { r } else { nil } } }
    }

    static func poll(_ session: inout RTPReceiveSession, at now: RTPInstant) throws -> Output {
        var output = Output()
        while let datagram = session.pollTransmit(at: now) { output.rtcp.append(try RTCPCompound.parse(datagram)) }
        while let event = session.pollEvent() { output.events.append(event) }
        return output
    }

    /// Feeds `datagrams` at the given times (ms), running the timeouts that fall before each, then the timeouts up
    /// to `untilMs`; returns every poll's output with its time (ms).
    static func run(_ session: inout RTPReceiveSession, _ arrivals: [(ms: Int, datagram: [UInt8])], untilMs: Int) throws
        -> [(ms: Int, output: Output)] {
        var log: [(ms: Int, output: Output)] = []
        func runTimeouts(before limit: RTPInstant) throws {
            while let next = session.nextTimeout(), next <= limit {
                session.handleTimeout(at: next)
                let output = try poll(&session, at: next)
                if !output.rtcp.isEmpty || !output.events.isEmpty { log.append((Int((next - t0).nanoseconds / 1_000_000), output)) }
            }
        }
        for (ms, datagram) in arrivals {
            try runTimeouts(before: at(ms))
            session.handle(rtp: datagram, at: at(ms))
            log.append((ms, try poll(&session, at: at(ms))))
        }
        try runTimeouts(before: at(untilMs))
        return log
    }

    // MARK: - Reordering

    /// Packets in the order of `arrival` (indices into `stream(frames: 5)`, 10 ms apart): what comes out, in order,
    /// and which numbers were NACKed at once (a hole is asked for as soon as a later packet shows it).
    @Test(arguments: [
        ("in order", [0, 1, 2, 3, 4, 5], [[UInt16]]()),
        ("two swapped P frames", [0, 1, 2, 4, 3, 5], [[103]]),
        // The first packet is an IDR without SPS/PPS: the numbers before it are asked for (StartOfStreamNACK).
        ("the IDR before its STAP-A", [1, 0, 2, 3, 4, 5], [[97, 98, 99, 100]]),
        ("a P frame late by three packets: asked once, within the retry interval", [0, 1, 3, 4, 5, 2], [[102]]),
    ] as [(String, [Int], [[UInt16]])])
    func reorderWithinTheWindow(name: String, arrival: [Int], nacked: [[UInt16]]) throws {
        var session = Self.session()
        let packets = Self.stream(frames: 5)
        let log = try Self.run(&session, arrival.enumerated().map { ($0.offset * 10, packets[$0.element]) }, untilMs: 60)
        let delivered = log.flatMap(\.output.delivered)
        #expect(delivered.map(\.timestamp) == [0, 3000, 6000, 9000, 12000], "\(name)")
        #expect(delivered.first?.nalUnits == [Self.sps, Self.pps, Self.idr], "\(name)")
        #expect(log.flatMap(\.output.nacked) == nacked, "\(name)")
        #expect(log.allSatisfy { $0.output.pictureLosses == 0 }, "\(name)")
        #expect(session.statistics.packetsLost == 0 && session.statistics.accessUnits == 5, "\(name)")
    }

    // MARK: - Loss

    /// Packet 103 (a whole P frame) never comes: NACK when 104 shows the hole, again every 100 ms, three requests in
    /// all; at 300 ms the hole is given up: lost, the frame after it dropped (a loss right before it), PLI.
    @Test func aHoleIsNACKedThreeTimesThenGivenUpWithPLI() throws {
        var session = Self.session()
        let packets = Self.stream(frames: 6)
        let arrivals = [(0, packets[0]), (0, packets[1]), (33, packets[2]), (66, packets[4])]
        #expect(session.nextTimeout() == nil, "nothing to wake up for before the first packet")
        let log = try Self.run(&session, arrivals, untilMs: 500)
        let nacks = log.filter { !$0.output.nacked.isEmpty }
        #expect(nacks.map(\.ms) == [66, 166, 266])
        #expect(nacks.flatMap(\.output.nacked) == [[103], [103], [103]])
        let givenUp = try #require(log.first { $0.ms == 366 })
        #expect(givenUp.output.events == [.packetsLost([103]),
                                          .accessUnitDropped(rtpTimestamp: 9000, reason: "a loss right before it"),
                                          .keyframeRequested(.accessUnitLost)])
        #expect(givenUp.output.pictureLosses == 1)
        let statistics = session.statistics
        #expect(statistics.nacksSent == 3 && statistics.packetsLost == 1 && statistics.accessUnitsDropped == 1)
        #expect(statistics.pictureLossReasons == [.accessUnitLost: 1])
        // The retransmission comes after all: too late, dropped as late, nothing more asked.
        session.handle(rtp: packets[3], at: Self.at(400))
        let polled1 = try Self.poll(&session, at: Self.at(400))
        #expect(polled1.rtcp.isEmpty)
    }

    /// The retransmission answers the second NACK: the hole fills, nothing is lost, no PLI.
    @Test func aRetransmissionFillsTheHole() throws {
        var session = Self.session()
        let packets = Self.stream(frames: 6)
        let log = try Self.run(&session, [(0, packets[0]), (0, packets[1]), (33, packets[2]), (66, packets[4]),
                                          (200, packets[3]), (210, packets[5])], untilMs: 600)
        #expect(log.flatMap(\.output.nacked) == [[103], [103]])
        #expect(log.flatMap(\.output.delivered).map(\.timestamp) == [0, 3000, 6000, 9000, 12000])
        #expect(session.statistics.packetsLost == 0 && session.statistics.pictureLossIndicationsSent == 0)
    }

    // MARK: - Start of stream

    /// The STAP-A (100) is lost; the IDR (101) comes first: the four numbers before it are NACKed at once and the IDR
    /// held. `answerMs` sends the STAP-A back then; nil never: after one retry interval the IDR goes out without
    /// parameter sets, and a PLI (no_parameter_sets) follows.
    @Test(arguments: [
        ("answered within the retry interval", 40 as Int?, [[StartOfStreamNACKTests.sps, StartOfStreamNACKTests.pps,
                                                              [0x65, 0x88, 0x84, 0x43]]], [PictureRecovery.Reason](), 1),
        ("never answered: PLI fallback", nil, [[[0x65, 0x88, 0x84, 0x43]]], [.noParameterSets], 0),
    ] as [(String, Int?, [[[UInt8]]], [PictureRecovery.Reason], Int)])
    func idrWithoutParameterSets(name: String, answerMs: Int?, units: [[[UInt8]]], requests: [PictureRecovery.Reason],
                                 recovered: Int) throws {
        var session = Self.session()
        let packets = Self.stream(frames: 1)
        var arrivals = [(0, packets[1])]
        if let answerMs { arrivals.append((answerMs, packets[0])) }
        let log = try Self.run(&session, arrivals, untilMs: 400)
        #expect(log.first?.output.nacked == [[97, 98, 99, 100]], "\(name): asked at once")
        #expect(log.first?.output.delivered == [], "\(name): the IDR is held")
        #expect(log.flatMap(\.output.nacked).count == 1, "\(name): asked once")
        #expect(log.flatMap(\.output.delivered).map(\.nalUnits) == units, "\(name)")
        #expect(log.flatMap(\.output.requests) == requests, "\(name)")
        #expect(session.statistics.startPacketsRequested == 4 && session.statistics.startPacketsRecovered == recovered)
        if answerMs == nil { #expect(log.last?.ms == 100, "\(name): the wait ends after one retry interval") }
    }

    /// The STAP-A and the IDR's first fragment are lost; its middle fragment comes first: sixteen numbers are NACKed
    /// (the start of the fragmented NAL unit is missing too), and both answers, 60 ms later, complete the IDR.
    @Test func firstTwoPacketsLostAreRecoveredWithOneNACK() throws {
        var session = Self.session()
        let fragments: [[UInt8]] = [[0x7C, 0x85, 0x88, 0x84], [0x7C, 0x05, 0x43, 0x44], [0x7C, 0x45, 0x45]]  // FU-A S, -, E
        let packets = [Self.rtp(100, timestamp: 0, marker: false, StartOfStreamNACKTests.stapA)]
            + fragments.enumerated().map { Self.rtp(UInt16(101 + $0.offset), timestamp: 0, marker: $0.offset == 2, $0.element) }
        let log = try Self.run(&session, [(0, packets[2]), (1, packets[3]), (60, packets[0]), (61, packets[1])], untilMs: 400)
        #expect(log.first?.output.nacked == [Array(86 ... 101)])
        #expect(log.flatMap(\.output.nacked).count == 1)
        #expect(log.flatMap(\.output.delivered).map(\.nalUnits) == [[Self.sps, Self.pps, [0x65, 0x88, 0x84, 0x43, 0x44, 0x45]]])
        #expect(log.allSatisfy { $0.output.pictureLosses == 0 })
        #expect(session.statistics.startPacketsRequested == 16 && session.statistics.startPacketsRecovered == 2)
    }

    /// sprop-parameter-sets known: an IDR without its own is decodable (no NACK, no PLI) and is delivered with them
    /// in front; an IDR with its own and a P frame get nothing added.
    @Test func spropPrimesTheAccessUnitsThatNeedIt() throws {
        var session = Self.session { $0.parameterSets = [Self.sps, Self.pps] }
        let log = try Self.run(&session, [
            (0, Self.rtp(200, timestamp: 0, Self.idr)),
            (33, Self.rtp(201, timestamp: 3000, Self.slice(1))),
            (66, Self.rtp(202, timestamp: 6000, marker: false, StartOfStreamNACKTests.stapA)),
            (66, Self.rtp(203, timestamp: 6000, Self.idr)),
        ], untilMs: 100)
        #expect(log.allSatisfy { $0.output.rtcp.isEmpty }, "no NACK, no PLI")
        let delivered = log.flatMap { $0.output.events.compactMap { if case .accessUnit(let u) = $0 { u } else { nil } } }
        #expect(delivered.map(\.primedParameterSets) == [[Self.sps, Self.pps], [], []])
        // Annex-B with 4-byte start codes: SPS, PPS (primed), then the IDR as received.
        #expect(delivered.first?.accessUnit.bytes == [0, 0, 0, 1] + Self.sps + [0, 0, 0, 1] + Self.pps + [0, 0, 0, 1] + Self.idr)
        #expect(delivered.first?.accessUnit.isKeyframe == true)
        #expect(delivered.first?.accessUnit.nalUnits.map(\.type) == [7, 8, 5])
    }

    // MARK: - RTCP

    /// RR after an SR: seq 65534, 65535, 0, (1 lost), 2 — 10 ms of timestamps (900 ticks) apart, the last 5 ms
    /// late; an SR at 500 ms; the report due 1 s after the first packet. (No NACK/PLI: their compounds would carry
    /// an RR too and start a new reporting interval.)
    @Test func receiverReportAfterSenderReport() throws {
        var session = Self.session { $0.sendNACK = false; $0.sendPictureLossOnDrop = false }
        for (seq, ms) in [(UInt16(65534), 0), (65535, 10), (0, 20), (2, 35)] {
            let timestamp = UInt32(truncatingIfNeeded: Int(seq &- 65534) * 900)
            session.handle(rtp: Self.rtp(seq, timestamp: timestamp, Self.slice(UInt8(truncatingIfNeeded: seq))), at: Self.at(ms))
        }
        let sr = try RTCPCompound.marshal([.senderReport(SenderReport(
            ssrc: Self.theirs, ntpTime: NTPTime(seconds: 0x1234_5678, fraction: 0x9ABC_DEF0), rtpTimestamp: 0, packetCount: 5, octetCount: 100))])
        #expect(session.nextTimeout() == Self.at(335), "the hole's deadline (maxReorderDelay after 2 came) comes first")
        session.handleTimeout(at: Self.at(335))
        let polled1 = try Self.poll(&session, at: Self.at(335))
        #expect(polled1.rtcp.isEmpty)
        let answered = session.handle(rtcp: sr, at: Self.at(500))
        #expect(answered, "an SR: the driver answers its source")
        #expect(session.nextTimeout() == Self.at(1000))
        let early = session.pollTransmit(at: Self.at(999))
        #expect(early == nil)
        let polled = session.pollTransmit(at: Self.at(1000))
        let report = try #require(polled)
        #expect(Array(report.prefix(32)) == [
            0x81, 0xC9, 0x00, 0x07,  // V=2 P=0 RC=1, PT=201 (RR), length 7 words
            0x00, 0x00, 0x00, 0xAA,  // SSRC of packet sender (ours)
            0x00, 0x00, 0x55, 0x55,  // SSRC_1 (the stream's)
            0x33, 0x00, 0x00, 0x01,  // fraction lost 51/256 (1 of 5), cumulative lost 1
            0x00, 0x01, 0x00, 0x02,  // extended highest sequence number: 1 cycle, 2
            0x00, 0x00, 0x00, 0x1C,  // interarrival jitter 28 (one 450-tick deviation / 16)
            0x56, 0x78, 0x9A, 0xBC,  // LSR: the middle 32 bits of the SR's NTP time
            0x00, 0x00, 0x80, 0x00,  // DLSR: 0.5 s in 1/65536 s
        ], "\(hex(report.prefix(32)))")
        #expect(try RTCPCompound.parse(report[32...]) == [.sourceDescription(.cname(ssrc: Self.ours, "rtenc-receiver"))])
        #expect(session.statistics.senderReports == 1)
    }

    /// BYE for the source received: one `.goodbye`; a second BYE, or one for another source, adds nothing. Malformed
    /// RTCP is a warning and a count.
    @Test func goodbyeAndMalformedRTCP() throws {
        var session = Self.session()
        session.handle(rtp: Self.stream(frames: 1)[0], at: Self.at(0))
        _ = try Self.poll(&session, at: Self.at(0))
        let other = try RTCPCompound.marshal([.goodbye(Goodbye(sources: [0x7777]))])
        let bye = try RTCPCompound.marshal([.goodbye(Goodbye(sources: [Self.theirs]))])
        let answered = session.handle(rtcp: other, at: Self.at(10))
        #expect(!answered)
        let polled1 = try Self.poll(&session, at: Self.at(10))
        #expect(polled1.events.isEmpty)
        session.handle(rtcp: bye, at: Self.at(20))
        session.handle(rtcp: bye, at: Self.at(30))
        let polled2 = try Self.poll(&session, at: Self.at(30))
        #expect(polled2.events == [.goodbye])
        session.handle(rtcp: [0x81, 0xCB, 0x00], at: Self.at(40))  // a BYE header cut short
        let polled3 = try Self.poll(&session, at: Self.at(40))
        #expect(polled3.events == [.warning(.malformedRTCP(.truncated, reason: "RTCP length: need 2 bytes, 1 left"))])
        #expect(session.statistics.goodbyeReceived && session.statistics.malformedPackets == 1)
    }

    /// Another payload type: counted always, warned about once; never depacketized, never NACKed.
    @Test func otherPayloadTypesAreFilteredOut() throws {
        var session = Self.session()
        for (i, seq) in [UInt16(10), 12, 14].enumerated() {
            session.handle(rtp: Self.rtp(seq, timestamp: UInt32(i * 3000), Self.idr, payloadType: 97), at: Self.at(i))
        }
        session.handle(rtp: [0x80, 0x60], at: Self.at(5))
        let output = try Self.poll(&session, at: Self.at(5))
        #expect(output.events == [.warning(.otherPayloadType(97)), .warning(.malformedPacket(.truncated, reason: "RTP sequence number: need 2 bytes, 0 left"))])
        #expect(output.rtcp.isEmpty)
        #expect(session.statistics.otherPayloadTypes == 3 && session.statistics.packetsReceived == 0)
    }

    /// The application's requests: throttled to one PLI per 300 ms; a decoder failure of an access unit from before
    /// the last IDR is already answered by it.
    @Test func applicationRequestsAreThrottled() throws {
        var session = Self.session()
        for (i, datagram) in Self.stream(frames: 3).enumerated() { session.handle(rtp: datagram, at: Self.at(i)) }
        _ = try Self.poll(&session, at: Self.at(3))
        session.requestKeyframe(at: Self.at(10))
        session.requestKeyframe(at: Self.at(100))
        let output6 = try Self.poll(&session, at: Self.at(100))
        #expect(output6.requests == [.requested])
        session.decoderFailed(rtpTimestamp: UInt32(bitPattern: -3000), at: Self.at(400))
        let output7 = try Self.poll(&session, at: Self.at(400))
        #expect(output7.requests == [], "before the IDR: answered")
        session.decoderFailed(rtpTimestamp: 3000, at: Self.at(410))
        let output = try Self.poll(&session, at: Self.at(410))
        #expect(output.requests == [.decoderError] && output.pictureLosses == 1)
        #expect(session.statistics.pictureLossReasons == [.requested: 1, .decoderError: 1])
    }
}
