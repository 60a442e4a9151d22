import Testing
@testable import RTP
@testable import RTPOut

struct RTCPTests {
    static let senderReportAndCNAME: [UInt8] = [
        0x81, 0xC8, 0x00, 0x0C,  // V=2 RC=1, PT=200 SR, length 12 (52 bytes)
        0x12, 0x34, 0x56, 0x78,  // SSRC of sender
        0xE6, 0x5A, 0x8B, 0x00,  // NTP seconds
        0x80, 0x00, 0x00, 0x00,  // NTP fraction (0.5 s)
        0x00, 0x01, 0x5F, 0x90,  // RTP timestamp 90000
        0x00, 0x00, 0x00, 0x64,  // packet count 100
        0x00, 0x01, 0x86, 0xA0,  // octet count 100000
        0x9A, 0xBC, 0xDE, 0xF0,  // report block: SSRC
        0x40, 0xFF, 0xFF, 0xFE,  //   fraction lost 64/256, cumulative lost -2
        0x00, 0x01, 0x00, 0x05,  //   extended highest seq: cycles 1, seq 5
        0x00, 0x00, 0x00, 0x20,  //   jitter 32
        0x8B, 0x00, 0x80, 0x00,  //   LSR
        0x00, 0x01, 0x00, 0x00,  //   DLSR 1 s
        0x81, 0xCA, 0x00, 0x03,  // V=2 SC=1, PT=202 SDES, length 3
        0x12, 0x34, 0x56, 0x78,  //   chunk SSRC
        0x01, 0x05, 0x72, 0x74,  //   CNAME, 5 bytes "rt
        0x65, 0x6E, 0x63, 0x00,  //   enc", end of items
    ]

    static let expectedSenderReport = SenderReport(
        ssrc: 0x1234_5678, ntpTime: NTPTime(seconds: 0xE65A_8B00, fraction: 0x8000_0000), rtpTimestamp: 90000,
        packetCount: 100, octetCount: 100_000,
        reports: [ReportBlock(
            ssrc: 0x9ABC_DEF0, fractionLost: 64, cumulativeLost: -2, extendedHighestSequenceNumber: 0x1_0005,
            jitter: 32, lastSenderReport: 0x8B00_8000, delaySinceLastSenderReport: 0x1_0000)])

    @Test func senderReportCompound() throws {
        let packets = try RTCPCompound.parse(Self.senderReportAndCNAME)
        #expect(packets == [.senderReport(Self.expectedSenderReport), .sourceDescription(.cname(ssrc: 0x1234_5678, "rtenc"))])
        if case .sourceDescription(let sdes) = packets[1] { #expect(sdes.cname(of: 0x1234_5678) == "rtenc") }
        #expect(try RTCPCompound.marshal(packets) == Self.senderReportAndCNAME)
    }

    @Test func receiverReportRoundTrip() throws {
        let rr = RTCPPacket.receiverReport(ReceiverReport(ssrc: 7, reports: Self.expectedSenderReport.reports))
        let bytes = try rr.marshal()
        #expect(bytes.prefix(8) == [0x81, 0xC9, 0x00, 0x07, 0, 0, 0, 7])  // RC=1 PT=201 length 7, SSRC 7
        #expect(try RTCPCompound.parse(bytes) == [rr])
    }

    static let feedbackCases: [(String, [UInt8], RTCPPacket)] = [
        ("PLI", [
            0x81, 0xCE, 0x00, 0x02,  // FMT=1, PT=206 PSFB, length 2
            0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
            0x12, 0x34, 0x56, 0x78,  // media SSRC
        ], .pictureLossIndication(.init(senderSSRC: 1, mediaSSRC: 0x1234_5678))),
        ("FIR", [
            0x84, 0xCE, 0x00, 0x04,  // FMT=4, PT=206, length 4
            0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
            0x00, 0x00, 0x00, 0x00,  // media SSRC unused
            0x12, 0x34, 0x56, 0x78,  // FCI: target SSRC
            0x07, 0x00, 0x00, 0x00,  //      seq nr 7, reserved
        ], .fullIntraRequest(.init(senderSSRC: 1, entries: [.init(ssrc: 0x1234_5678, sequenceNumber: 7)]))),
        ("NACK", [
            0x81, 0xCD, 0x00, 0x03,  // FMT=1, PT=205 RTPFB, length 3
            0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
            0x12, 0x34, 0x56, 0x78,  // media SSRC
            0x00, 0x64, 0x00, 0x05,  // PID 100, BLP 0b101 → 101, 103
        ], .genericNACK(.init(senderSSRC: 1, mediaSSRC: 0x1234_5678, pairs: [.init(packetID: 100, lostBitmask: 5)]))),
        ("REMB", [
            0x8F, 0xCE, 0x00, 0x05,  // FMT=15, PT=206, length 5
            0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
            0x00, 0x00, 0x00, 0x00,  // media SSRC 0
            0x52, 0x45, 0x4D, 0x42,  // "REMB"
            0x01, 0x0B, 0xD0, 0x90,  // Num SSRC 1, exp 2, mantissa 250000 → 1 000 000 b/s
            0x12, 0x34, 0x56, 0x78,  // SSRC feedback
        ], .receiverEstimatedMaximumBitrate(.init(senderSSRC: 1, bitrate: 1_000_000, ssrcs: [0x1234_5678]))),
        ("TMMBR", [
            0x83, 0xCD, 0x00, 0x04,  // FMT=3, PT=205, length 4
            0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
            0x00, 0x00, 0x00, 0x00,  // media SSRC 0
            0x12, 0x34, 0x56, 0x78,  // FCI SSRC
            0x0B, 0xD0, 0x90, 0x28,  // exp 2, mantissa 125000 (500 kb/s), overhead 40
        ], .temporaryMaximumBitrateRequest(.init(senderSSRC: 1, entries: [.init(ssrc: 0x1234_5678, bitrate: 500_000, overhead: 40)]))),
        ("TMMBN", [
            0x84, 0xCD, 0x00, 0x04,  // FMT=4, PT=205, length 4
            0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
            0x12, 0x34, 0x56, 0x78, 0x0B, 0xD0, 0x90, 0x28,
        ], .temporaryMaximumBitrateNotification(.init(senderSSRC: 1, entries: [.init(ssrc: 0x1234_5678, bitrate: 500_000, overhead: 40)]))),
        ("BYE", [
            0x81, 0xCB, 0x00, 0x02,  // SC=1, PT=203, length 2
            0x12, 0x34, 0x56, 0x78,  // SSRC
            0x03, 0x62, 0x79, 0x65,  // reason length 3 "bye"
        ], .goodbye(.init(sources: [0x1234_5678], reason: "bye"))),
        ("APP", [
            0x80, 0xCC, 0x00, 0x01,  // PT=204 APP: not understood, kept as unknown
            0x41, 0x42, 0x43, 0x44,
        ], .unknown(countOrFormat: 0, packetType: 204, body: [0x41, 0x42, 0x43, 0x44])),
    ]

    @Test(arguments: feedbackCases)
    func parseAndMarshal(name: String, bytes: [UInt8], packet: RTCPPacket) throws {
        #expect(try RTCPCompound.parse(bytes) == [packet], "\(name)")
        #expect(try packet.marshal() == bytes, "\(name)")
        dripFeed(bytes) { b throws(RTPError) in try RTCPCompound.parse(b) }
    }

    @Test func dripFeedCompound() {
        // The SR alone (first 52 bytes) is itself a valid compound; every other prefix must fail.
        dripFeed(Array(Self.senderReportAndCNAME.prefix(52))) { b throws(RTPError) in try RTCPCompound.parse(b) }
        dripFeed(Self.senderReportAndCNAME, from: 53) { b throws(RTPError) in try RTCPCompound.parse(b) }
    }

    @Test func nackExpansionBothWays() {
        let lost: [UInt16] = [65534, 65535, 0, 1, 15, 16, 40]
        let nack = GenericNACK(senderSSRC: 1, mediaSSRC: 2, lost: lost)
        // 65534 covers 65535, 0, 1 (bits 0-2, across the wrap); 15 is 17 away so it starts a pair that covers 16.
        #expect(nack.pairs == [.init(packetID: 65534, lostBitmask: 0b111), .init(packetID: 15, lostBitmask: 1),
                               .init(packetID: 40, lostBitmask: 0)])
        #expect(nack.lostSequenceNumbers == lost)
    }

    @Test(arguments: [UInt64(0), 1, 131_071, 131_072, 500_000, 2_500_000, 1 << 40])
    func mantissaExponentExactForRepresentable(bitrate: UInt64) {
        let (m, e) = MantissaExponent.encode(bitrate, mantissaBits: 17)
        #expect(m < 1 << 17)
        let decoded = MantissaExponent.decode(mantissa: m, exponent: e)
        #expect(decoded <= bitrate && bitrate - decoded < (1 << e))
    }

    @Test func hostileExponentSaturates() {
        #expect(MantissaExponent.decode(mantissa: 0x3FFFF, exponent: 63) == .max)
    }

    @Test func paddingOnlyOnLastPacket() throws {
        let padded: [UInt8] = [
            0xA1, 0xCE, 0x00, 0x03,  // P=1 FMT=1 PT=206 length 3
            0x00, 0x00, 0x00, 0x01, 0x12, 0x34, 0x56, 0x78,
            0x00, 0x00, 0x00, 0x04,  // 4 bytes of padding
        ]
        #expect(try RTCPCompound.parse(padded) == [.pictureLossIndication(.init(senderSSRC: 1, mediaSSRC: 0x1234_5678))])
        let error = #expect(throws: RTPError.self) { try RTCPCompound.parse(padded + padded) }
        #expect(error?.code == .invalidValue)
    }

    @Test func rejectsLengthPastEndAndBadVersion() {
        #expect(#expect(throws: RTPError.self) { try RTCPCompound.parse([0x81, 0xC9, 0x00, 0x07, 0, 0, 0, 7]) }?.code == .truncated)
        #expect(#expect(throws: RTPError.self) { try RTCPCompound.parse([0x41, 0xC9, 0x00, 0x00]) }?.code == .invalidValue)
        #expect(#expect(throws: RTPError.self) { try RTCPCompound.parse([]) }?.code == .truncated)
    }

    @Test func ntpFromWallTime() {
        #expect(NTPTime(RTPInstant(nanosecondsSinceEpoch: 0)) == NTPTime(seconds: 2_208_988_800, fraction: 0))
        let t = NTPTime(RTPInstant(nanosecondsSinceEpoch: 1_500_000_000))
        #expect(t == NTPTime(seconds: 2_208_988_801, fraction: 0x8000_0000))
        #expect(t.middle32 == (2_208_988_801 & 0xFFFF) << 16 | 0x8000)
    }
}
