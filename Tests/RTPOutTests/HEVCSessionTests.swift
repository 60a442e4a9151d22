import Bitstream
import Testing
@testable import RTP
@testable import RTPOut

/// The two sans-IO sessions carrying HEVC (RFC 7798): `RTPSendSession` with `codec: .hevc` makes the RFC 7798
/// payloader and counts IRAP keyframes; `RTPReceiveSession` with `codec: .hevc` reads its packets, asks for the
/// VPS/SPS/PPS aggregation packet when a stream starts without it, and primes with sprop-vps/sps/pps. Manual time.
struct HEVCSessionTests {
    static let t0 = RTPInstant(nanosecondsSinceEpoch: 1_700_000_000 * 1_000_000_000)
    static func at(_ ms: Int) -> RTPInstant { t0 + .milliseconds(ms) }

    // NAL unit types (H.265 Table 7-1): VPS 32, SPS 33, PPS 34, IDR_W_RADL 19, CRA 21, TRAIL_R 1.
    static let vps = Array(hevcNAL(32, size: 24))
    static let sps = Array(hevcNAL(33, size: 40))
    static let pps = Array(hevcNAL(34, size: 8))
    static func slice(_ type: UInt8, size: Int) -> [UInt8] { Array(hevcNAL(type, size: size)) }

    static func accessUnit(_ units: [[UInt8]], frame: Int64) -> CodedAccessUnit {
        CodedAccessUnit(joiningAnnexB: units, codec: .hevc,
                        isKeyframe: units.contains { HEVC.NALUnitType(rawValue: ($0[0] >> 1) & 0x3F).isIRAP },
                        presentationTime: MediaTime(value: frame * 3000, timescale: 90_000))
    }

    static func sender(parameterSets: (vps: [UInt8], sps: [UInt8], pps: [UInt8])? = nil) throws -> RTPSendSession {
        try RTPSendSession(
            configuration: .init(ssrc: 0x4856_4301, pacing: .unpaced, initialSequenceNumber: 500, timestampOffset: 0, codec: .hevc),
            videoParameterSet: parameterSets?.vps, sequenceParameterSet: parameterSets?.sps, pictureParameterSet: parameterSets?.pps,
            random: SeededGenerator(state: 7))
    }

    /// The RTP datagrams of `units`, one access unit per frame.
    static func packets(_ session: inout RTPSendSession, _ units: [[[UInt8]]]) throws -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        for (frame, unit) in units.enumerated() {
            try session.enqueue(accessUnit(unit, frame: Int64(frame)), captureTime: t0, at: t0)
            datagrams += RTPSendSessionTests.drain(&session, at: t0).filter { $0.kind == .rtp }.flatMap(\.datagrams)
        }
        return datagrams
    }

    /// The RFC 7798 payload header type of a datagram (after the 12-byte RTP header): 48 AP, 49 FU, else the NAL unit.
    static func payloadType(_ datagram: [UInt8]) -> UInt8 { (datagram[12] >> 1) & 0x3F }

    // MARK: - Sender

    /// An IRAP of 3000 bytes behind VPS/SPS/PPS: one AP with the three parameter sets (zero-latency aggregation),
    /// then FUs of the slice, the marker on the last; a TRAIL_R frame follows as one single NAL unit packet.
    @Test func irapGoesOutAsAnAggregationPacketThenFragments() throws {
        var session = try Self.sender()
        let datagrams = try Self.packets(&session, [[Self.vps, Self.sps, Self.pps, Self.slice(19, size: 3000)], [Self.slice(1, size: 300)]])
        #expect(datagrams.map(Self.payloadType) == [48, 49, 49, 49, 1])
        #expect(datagrams.map { $0[1] & 0x80 != 0 } == [false, false, false, true, true])
        #expect(datagrams.map { RTPSendSessionTests.sequenceNumber($0) } == Array(500 ... 504))
        let statistics = session.statistics(at: Self.t0)
        #expect(statistics.keyframesSent == 1 && statistics.accessUnitsSent == 2)
    }

    /// The payloader remembers VPS/SPS/PPS (given at creation here) and puts them in front of an IRAP — a CRA as
    /// well as an IDR — that lacks them, so a receiver joining at any IRAP can decode.
    @Test(arguments: [UInt8(19), 21])
    func knownParameterSetsGoInFrontOfAnIRAPThatLacksThem(irap: UInt8) throws {
        var session = try Self.sender(parameterSets: (Self.vps, Self.sps, Self.pps))
        let datagrams = try Self.packets(&session, [[Self.slice(irap, size: 500)]])
        #expect(datagrams.map(Self.payloadType) == [48], "VPS, SPS, PPS and the 500-byte slice fit one AP")
        var depacketizer = H265Depacketizer()
        var delivered: [ReceivedAccessUnit] = []
        for datagram in datagrams {
            depacketizer.push(try RTPPacket(parsing: datagram[...]), arrival: nil) { if case .accessUnit(let u) = $0 { delivered.append(u) } }
        }
        depacketizer.flush { if case .accessUnit(let u) = $0 { delivered.append(u) } }
        #expect(delivered.map(\.nalUnits) == [[Self.vps, Self.sps, Self.pps, Self.slice(irap, size: 500)]])
        #expect(delivered.first?.isKeyframe == true && delivered.first?.codec == .hevc)
    }

    /// The configuration's codec decides: an H.264 access unit to an HEVC session, a payloader of the other codec,
    /// a VPS for H.264 and H.264's single NAL unit mode for HEVC are typed errors, and nothing is queued.
    @Test func codecMismatchesAreTypedErrors() throws {
        var session = try Self.sender()
        let h264 = RTPSendSessionTests.accessUnit(1)
        #expect { try session.enqueue(h264, captureTime: Self.t0, at: Self.t0) } throws: { ($0 as? RTPError)?.code == .unsupported }
        #expect(session.queuedPackets == 0)
        #expect { _ = try RTPSendSession(configuration: .init(ssrc: 1, codec: .hevc), payloader: try H264Payloader()) } throws: {
            ($0 as? RTPError)?.code == .invalidValue
        }
        #expect { _ = try RTPSendSession(configuration: .init(ssrc: 1), payloader: try H265Payloader()) } throws: {
            ($0 as? RTPError)?.code == .invalidValue
        }
        #expect { _ = try RTPSendSession(configuration: .init(ssrc: 1), videoParameterSet: Self.vps) } throws: {
            ($0 as? RTPError)?.code == .invalidValue
        }
        #expect {
            _ = try RTPSendSession(configuration: .init(ssrc: 1, payloader: .init(packetizationMode: .singleNALUnit), codec: .hevc))
        } throws: { ($0 as? RTPError)?.code == .invalidValue }
    }

    // MARK: - Receiver

    static func receiver(_ configure: (inout RTPReceiveSession.Configuration) -> Void = { _ in }) -> RTPReceiveSession {
        var configuration = RTPReceiveSession.Configuration(ssrc: 0xAA, codec: .hevc)
        configure(&configuration)
        return RTPReceiveSession(configuration: configuration)
    }

    /// The stream of `irapGoesOutAsAnAggregationPacketThenFragments` through the receive session in order: both
    /// access units whole, the first a keyframe, no NACK and no PLI.
    @Test func senderToReceiverInOrder() throws {
        var sender = try Self.sender()
        let units = [[Self.vps, Self.sps, Self.pps, Self.slice(19, size: 3000)], [Self.slice(1, size: 300)]]
        let datagrams = try Self.packets(&sender, units)
        var receiver = Self.receiver()
        let arrivals = datagrams.enumerated().map { (ms: $0.offset, datagram: $0.element) }
        let log = try RTPReceiveSessionTests.run(&receiver, arrivals, untilMs: 200)
        let delivered = log.flatMap(\.output.delivered)
        #expect(delivered.map(\.nalUnits) == units)
        #expect(delivered.map(\.isKeyframe) == [true, false])
        #expect(log.allSatisfy { $0.output.pictureLosses == 0 && $0.output.nacked.isEmpty })
    }

    /// The AP with VPS/SPS/PPS is lost and the IRAP's first fragment arrives first: the numbers before it are NACKed
    /// at once (HEVC's stream start is a VPS), the answer completes the IRAP, no PLI. Never answered: PLI for the
    /// missing parameter sets.
    @Test(arguments: [true, false])
    func lostParameterSetsAreAskedForWithANACK(answered: Bool) throws {
        var sender = try Self.sender()
        let units = [[Self.vps, Self.sps, Self.pps, Self.slice(19, size: 3000)]]
        let datagrams = try Self.packets(&sender, units)
        var receiver = Self.receiver()
        var arrivals = datagrams.dropFirst().enumerated().map { (ms: $0.offset, datagram: $0.element) }
        if answered { arrivals.append((ms: 40, datagram: datagrams[0])) }
        let log = try RTPReceiveSessionTests.run(&receiver, arrivals, untilMs: 400)
        #expect(log.first?.output.nacked == [[497, 498, 499, 500]])
        let delivered = log.flatMap(\.output.delivered)
        if answered {
            #expect(delivered.map(\.nalUnits) == units)
            #expect(log.allSatisfy { $0.output.pictureLosses == 0 })
            #expect(receiver.statistics.startPacketsRecovered == 1)
        } else {
            #expect(log.flatMap(\.output.requests).first == .noParameterSets)
        }
    }

    /// sprop-vps/sps/pps known: an IRAP without its own is decodable (no NACK, no PLI) and delivered with the
    /// three primed in front; a TRAIL_R gets nothing. Without them, a TRAIL_R first asks for a picture.
    @Test func spropPrimesAnIRAPAndATrailingPictureFirstAsksForOne() throws {
        var primed = Self.receiver { $0.parameterSets = [Self.vps, Self.sps, Self.pps] }
        var sender = try Self.sender()
        let datagrams = try Self.packets(&sender, [[Self.slice(21, size: 200)], [Self.slice(1, size: 100)]])
        let log = try RTPReceiveSessionTests.run(&primed, datagrams.enumerated().map { (ms: $0.offset * 33, datagram: $0.element) }, untilMs: 100)
        #expect(log.allSatisfy { $0.output.rtcp.isEmpty })
        let delivered = log.flatMap { $0.output.events.compactMap { if case .accessUnit(let u) = $0 { u } else { nil } } }
        #expect(delivered.map(\.primedParameterSets) == [[Self.vps, Self.sps, Self.pps], []])
        #expect(delivered.first?.isKeyframe == true && delivered.first?.received.codec == .hevc)

        var joining = Self.receiver()
        let late = try RTPReceiveSessionTests.run(&joining, [(ms: 0, datagram: datagrams[1])], untilMs: 50)
        #expect(late.flatMap(\.output.requests) == [.noKeyframe])
    }
}
