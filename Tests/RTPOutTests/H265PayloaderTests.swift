import Bitstream
import Testing
@testable import RTP
@testable import RTPOut

/// Runs the HEVC payloader and returns the payloads (without headroom) and marker flags.
func hevcPayloads(
    _ units: [ArraySlice<UInt8>], _ configuration: H265PayloaderConfiguration = .init(insertParameterSetsBeforeIRAP: false),
    parameterSets: (vps: [UInt8], sps: [UInt8], pps: [UInt8])? = nil
) throws(RTPError) -> [(payload: [UInt8], last: Bool)] {
    let payloader = try H265Payloader(
        configuration: configuration, headroom: 0, videoParameterSet: parameterSets?.vps,
        sequenceParameterSet: parameterSets?.sps, pictureParameterSet: parameterSets?.pps)
    var result: [(payload: [UInt8], last: Bool)] = []
    try payloader.payload(units) { packet, last in result.append((Array(packet), last)) }
    return result
}

struct H265PayloaderTests {
    static let vps = hevcNAL(32, size: 6)  // 40 01 02 03 04 05
    static let sps = hevcNAL(33, size: 5)  // 42 01 02 03 04
    static let pps = hevcNAL(34, size: 4)  // 44 01 02 03

    /// One case per packet type, as bytes on the wire (RFC 7798 §4.4), marker flags included.
    @Test(arguments: [
        ("single NAL unit packet: the NAL unit as it is",
         [hevcNAL(1, size: 5)], H265PayloaderConfiguration.init(insertParameterSetsBeforeIRAP: false),
         [[0x02, 0x01, 0x02, 0x03, 0x04] as [UInt8]], [true]),
        ("AP with VPS, SPS, PPS; the IDR slice, 1 byte too large to join (23 + 2 + 1176 > 1200), goes alone",
         [vps, sps, pps, hevcNAL(19, size: 1176)], .init(insertParameterSetsBeforeIRAP: false),
         [[0x60, 0x01,  // PayloadHdr: F=0 Type=48 LayerId=0 TID=1
           0x00, 0x06, 0x40, 0x01, 0x02, 0x03, 0x04, 0x05,  // NALU 1 size, VPS
           0x00, 0x05, 0x42, 0x01, 0x02, 0x03, 0x04,  // NALU 2 size, SPS
           0x00, 0x04, 0x44, 0x01, 0x02, 0x03],  // NALU 3 size, PPS
          Array(hevcNAL(19, size: 1176))], [false, true]),
        ("FU start, middle, end: 2998 data bytes in 3 fragments of 1000, 999, 999",
         [hevcNAL(19, size: 3000)], .init(insertParameterSetsBeforeIRAP: false),
         [[0x62, 0x01, 0x93] + Array(hevcNAL(19, size: 3000)[2 ..< 1002]),  // Type=49; S=1 FuType=19
          [0x62, 0x01, 0x13] + Array(hevcNAL(19, size: 3000)[1002 ..< 2001]),  // S=0 E=0
          [0x62, 0x01, 0x53] + Array(hevcNAL(19, size: 3000)[2001 ..< 3000])],  // E=1
         [false, false, true]),
        ("AP header: F if any F, the lowest LayerId and TID",
         [hevcNAL(39, size: 3, layer: 5, tid: 3, forbidden: true), hevcNAL(1, size: 3, layer: 2, tid: 4)],
         .init(insertParameterSetsBeforeIRAP: false),
         [[0xE0, 0x13,  // F=1 Type=48 LayerId=2 TID=3
           0x00, 0x03, 0xCE, 0x2B, 0x02,  // prefix SEI, F=1 LayerId=5 TID=3
           0x00, 0x03, 0x02, 0x14, 0x02]],  // TRAIL_R, LayerId=2 TID=4
         [true]),
        ("FU keeps F, LayerId and TID of the fragmented unit",
         [hevcNAL(1, size: 1202, layer: 33, tid: 2, forbidden: true)], .init(insertParameterSetsBeforeIRAP: false),
         [[0xE3, 0x0A, 0x81] + Array(hevcNAL(1, size: 1202, layer: 33, tid: 2)[2 ..< 602]),  // F=1 Type=49 LayerId=33 TID=2
          [0xE3, 0x0A, 0x41] + Array(hevcNAL(1, size: 1202, layer: 33, tid: 2)[602 ..< 1202])],
         [false, true]),
        ("aggregation none: parameter sets alone",
         [vps, sps, pps, hevcNAL(19, size: 20)], .init(aggregation: .none, insertParameterSetsBeforeIRAP: false),
         [Array(vps), Array(sps), Array(pps), Array(hevcNAL(19, size: 20))], [false, false, false, true]),
    ] as [(String, [ArraySlice<UInt8>], H265PayloaderConfiguration, [[UInt8]], [Bool])])
    func packetTypes(name: String, units: [ArraySlice<UInt8>], configuration: H265PayloaderConfiguration,
                     expected: [[UInt8]], markers: [Bool]) throws {
        let out = try hevcPayloads(units, configuration)
        #expect(out.map(\.payload) == expected, "\(name)")
        #expect(out.map(\.last) == markers, "\(name)")
    }

    @Test func exactFitIsOneSingleNALUnitPacketAndOneMoreIsTwoFragments() throws {
        let fits = try hevcPayloads([hevcNAL(1, size: 1200)])
        #expect(fits.map(\.payload.count) == [1200] && fits[0].payload == Array(hevcNAL(1, size: 1200)))
        // 1201 bytes: 1199 data bytes after the header, at most 1197 per FU → 600 + 599.
        let over = try hevcPayloads([hevcNAL(1, size: 1201)])
        #expect(over.map(\.payload.count) == [603, 602])
        #expect(over.map(\.last) == [false, true])
    }

    @Test(arguments: [1_500, 5_000, 100_003])
    func fragmentsDifferByAtMostOneByte(size: Int) throws {
        let out = try hevcPayloads([hevcNAL(19, size: size)])
        let sizes = out.map(\.payload.count)
        #expect(sizes.max()! - sizes.min()! <= 1 && sizes.allSatisfy { $0 <= 1200 })
        #expect(sizes.reduce(0, +) == size - 2 + 3 * out.count)
        #expect(out.filter { $0.payload[2] & 0x80 != 0 }.count == 1 && out.first!.payload[2] & 0x80 != 0)
        #expect(out.filter { $0.payload[2] & 0x40 != 0 }.count == 1 && out.last!.payload[2] & 0x40 != 0)
        #expect(Array(out.map { $0.payload[3...] }.joined()) == Array(hevcNAL(19, size: size)[2...]))
    }

    @Test func apAtTheLimitAndOneByteOver() throws {
        // 2 (PayloadHdr) + 2+6 + 2+5 + 2+4 + 2+1175 = 1200: one AP.
        let fits = try hevcPayloads([Self.vps, Self.sps, Self.pps, hevcNAL(19, size: 1175)])
        #expect(fits.map(\.payload.count) == [1200] && fits[0].payload.prefix(2) == [0x60, 0x01])
        let over = try hevcPayloads([Self.vps, Self.sps, Self.pps, hevcNAL(19, size: 1176)])
        #expect(over.map(\.payload.count) == [2 + 8 + 7 + 6, 1176])
    }

    @Test func aggregationPolicies() throws {
        let slices = [Self.vps, Self.sps, Self.pps, hevcNAL(1, size: 100), hevcNAL(1, size: 100)]
        #expect(try hevcPayloads(slices, .init(aggregation: .none)).count == 5)
        // Zero latency: up to and including the first slice; the second goes alone.
        #expect(try hevcPayloads(slices, .init(aggregation: .zeroLatency)).map(\.payload.count) == [2 + 8 + 7 + 6 + 102, 100])
        #expect(try hevcPayloads(slices, .init(aggregation: .max)).map(\.payload.count) == [2 + 8 + 7 + 6 + 102 + 102])
    }

    /// An IRAP access unit without VPS/SPS/PPS gets the last ones seen (or given), after its AUD; other pictures don't.
    @Test func parameterSetsGoInFrontOfAnIRAPThatLacksThem() throws {
        let aud = hevcNAL(35, size: 3)
        let cra = hevcNAL(21, size: 50)
        let given = (Array(Self.vps), Array(Self.sps), Array(Self.pps))
        let out = try hevcPayloads([aud, cra], .init(aggregation: .none), parameterSets: given)
        #expect(out.map(\.payload) == [aud, Self.vps, Self.sps, Self.pps, cra].map { Array($0) })
        // Only the missing ones are inserted, each in its place (VPS, SPS, PPS order: a decoder reads a PPS against
        // its SPS).
        let partial = try hevcPayloads([Self.vps, Self.sps, cra], .init(aggregation: .none), parameterSets: given)
        #expect(partial.map(\.payload) == [Self.vps, Self.sps, Self.pps, cra].map { Array($0) })
        let middle = try hevcPayloads([aud, Self.vps, Self.pps, cra], .init(aggregation: .none), parameterSets: given)
        #expect(middle.map(\.payload) == [aud, Self.vps, Self.sps, Self.pps, cra].map { Array($0) })
        // A trailing picture gets none, and neither does an IRAP when insertion is off.
        #expect(try hevcPayloads([hevcNAL(1, size: 9)], .init(aggregation: .none), parameterSets: given).count == 1)
        #expect(try hevcPayloads([cra], .init(aggregation: .none, insertParameterSetsBeforeIRAP: false), parameterSets: given).count == 1)

        // Remembered from the stream: the second IDR lacks them and gets the first's (the newest copy of each).
        let payloader = try H265Payloader(configuration: .init(aggregation: .none), headroom: 0)
        let newerSPS = hevcNAL(33, size: 7)
        var packets: [[UInt8]] = []
        try payloader.payload([Self.vps, Self.sps, Self.pps, hevcNAL(19, size: 10)]) { p, _ in packets.append(Array(p)) }
        try payloader.payload([newerSPS, hevcNAL(1, size: 10)]) { p, _ in packets.append(Array(p)) }
        packets.removeAll()
        try payloader.payload([hevcNAL(20, size: 10)]) { p, _ in packets.append(Array(p)) }
        #expect(packets == [Self.vps, newerSPS, Self.pps, hevcNAL(20, size: 10)].map { Array($0) })
        #expect(payloader.videoParameterSet == Array(Self.vps) && payloader.sequenceParameterSet == Array(newerSPS))
    }

    @Test(arguments: [
        ("type 48 (AP) in the input", [hevcNAL(48, size: 4)], RTPError.Code.invalidValue),
        ("type 63 in the input", [hevcNAL(63, size: 4)], .invalidValue),
        ("a 1-byte NAL unit", [[0x02][...]], .invalidValue),
        ("an empty NAL unit", [[][...]], .invalidValue),
    ] as [(String, [ArraySlice<UInt8>], RTPError.Code)])
    func refuses(name: String, units: [ArraySlice<UInt8>], code: RTPError.Code) {
        let error = #expect(throws: RTPError.self, "\(name)") { try hevcPayloads(units) }
        #expect(error?.code == code, "\(name)")
    }

    @Test(arguments: [0, 3, 65_496])
    func refusesPayloadSizesOutsideTheRange(size: Int) {
        #expect(throws: RTPError.self) { try H265Payloader(configuration: .init(maxPayloadSize: size)) }
    }

    @Test func smallestPayloadSizeStillCarriesEverything() throws {
        let unit = hevcNAL(19, size: 9)
        let out = try hevcPayloads([unit], .init(maxPayloadSize: 4))
        #expect(out.count == 7 && out.allSatisfy { $0.payload.count == 4 })
        #expect(out.map { $0.payload[3] } == Array(unit[2...]))
    }

    /// What the `RTPPayloader` seam reads: codec, clock rate, sizes, and the headroom in front of every payload.
    @Test func seamProperties() throws {
        let payloader = try H265Payloader(configuration: .init(maxPayloadSize: 1000))
        #expect(payloader.codec == .hevc && payloader.clockRate == 90_000 && payloader.maxPayloadSize == 1000)
        #expect(payloader.headroom == RTPHeader.fixedSize)
        var sawHeadroom = true
        try payloader.payload([hevcNAL(1, size: 3000)]) { packet, _ in sawHeadroom = sawHeadroom && packet.count > RTPHeader.fixedSize }
        #expect(sawHeadroom)
    }
}
