import Testing
@testable import RTP
@testable import RTPOut

/// A NAL unit of `size` bytes with header byte `header`, filled with a counting pattern.
func nal(_ header: UInt8, size: Int) -> ArraySlice<UInt8> {
    var bytes = [header]
    for i in 1 ..< max(size, 1) { bytes.append(UInt8(truncatingIfNeeded: i)) }
    return bytes[...]
}

/// Runs the payloader and returns the payloads (without headroom) and marker flags.
func payloads(_ units: [ArraySlice<UInt8>], _ configuration: H264PayloaderConfiguration = .init(),
              sps: [UInt8]? = nil, pps: [UInt8]? = nil) throws(RTPError) -> [(payload: [UInt8], last: Bool)] {
    let payloader = try H264Payloader(configuration: configuration, headroom: 0, sequenceParameterSet: sps, pictureParameterSet: pps)
    var result: [(payload: [UInt8], last: Bool)] = []
    try payloader.payload(units) { packet, last in result.append((Array(packet), last)) }
    return result
}

struct H264PayloaderTests {
    static let sps = nal(0x67, size: 10)  // F=0 NRI=3 type 7
    static let pps = nal(0x68, size: 4)  // NRI=3 type 8

    @Test func exactFitIsOneSingleNALPacket() throws {
        let unit = nal(0x65, size: 1200)  // IDR, NRI=3
        let out = try payloads([unit], .init(insertParameterSetsBeforeIDR: false))
        #expect(out.count == 1)
        #expect(out[0].payload == Array(unit))
        #expect(out[0].last)
    }

    @Test func oneByteOverIsTwoEqualFUAFragments() throws {
        let unit = nal(0x41, size: 1201)  // non-IDR, NRI=2: 1200 data bytes after the header
        let out = try payloads([unit])
        #expect(out.map(\.payload.count) == [602, 602])  // 2 FU bytes + 600 data each
        #expect(out[0].payload[0] == 0x5C)  // FU indicator: F=0 NRI=2 type 28
        #expect(out[0].payload[1] == 0x81)  // FU header: S=1 E=0 type 1
        #expect(out[1].payload[1] == 0x41)  // S=0 E=1 type 1
        #expect(out.map(\.last) == [false, true])
        #expect(Array(out[0].payload[2...] + out[1].payload[2...]) == Array(unit.dropFirst()))
    }

    @Test(arguments: [2_000, 5_000, 100_003])
    func fragmentsDifferByAtMostOneByte(size: Int) throws {
        let out = try payloads([nal(0x65, size: size)], .init(insertParameterSetsBeforeIDR: false))
        let sizes = out.map(\.payload.count)
        #expect(sizes.max()! - sizes.min()! <= 1)
        #expect(sizes.allSatisfy { $0 <= 1200 })
        #expect(sizes.reduce(0, +) == size - 1 + 2 * out.count)
        #expect(out.filter { $0.payload[1] & 0x80 != 0 }.count == 1)
        #expect(out.filter { $0.payload[1] & 0x40 != 0 }.count == 1)
    }

    @Test func stapAAtTheLimit() throws {
        // 1 (STAP-A header) + 2+10 + 2+4 + 2+1179 = 1200: everything in one STAP-A.
        let fits = try payloads([Self.sps, Self.pps, nal(0x65, size: 1179)])
        #expect(fits.count == 1)
        #expect(fits[0].payload.count == 1200)
        #expect(Array(fits[0].payload.prefix(4)) == [
            0x78,  // F=0 NRI=3 type 24
            0x00, 0x0A,  // NALU 1 size 10
            0x67,  // SPS header
        ])
        #expect(fits[0].last)
        // One byte more: SPS+PPS in a STAP-A, the slice on its own.
        let over = try payloads([Self.sps, Self.pps, nal(0x65, size: 1180)])
        #expect(over.map(\.payload.count) == [1 + 12 + 6, 1180])
        #expect(over.map(\.last) == [false, true])
    }

    @Test func stapAHeaderTakesORofFAndMaxNRI() throws {
        let out = try payloads([nal(0x06, size: 5), nal(0xA1, size: 5)])  // SEI NRI=0; slice F=1 NRI=1
        #expect(out.count == 1)
        #expect(out[0].payload[0] == 0x80 | 0x20 | 24)
    }

    @Test func aggregationModes() throws {
        let slices = [Self.sps, Self.pps, nal(0x65, size: 100), nal(0x65, size: 100)]
        #expect(try payloads(slices, .init(aggregation: .none)).count == 4)
        // zero-latency: SPS+PPS+first slice, then the second slice alone.
        #expect(try payloads(slices, .init(aggregation: .zeroLatency)).map(\.payload.count) == [1 + 12 + 6 + 102, 100])
        #expect(try payloads(slices, .init(aggregation: .max)).map(\.payload.count) == [1 + 12 + 6 + 102 + 102])
    }

    @Test func parameterSetsInsertedBeforeIDR() throws {
        // An earlier access unit carried them…
        let payloader = try H264Payloader(configuration: .init(aggregation: .none), headroom: 0)
        try payloader.payload([Self.sps, Self.pps, nal(0x65, size: 20)]) { _, _ in }
        var headers: [UInt8] = []
        try payloader.payload([nal(0x09, size: 2), nal(0x65, size: 20)]) { packet, _ in headers.append(packet[0]) }
        #expect(headers == [0x09, 0x67, 0x68, 0x65])  // AUD stays first
        // …and a non-IDR access unit gets nothing.
        headers = []
        try payloader.payload([nal(0x41, size: 20)]) { packet, _ in headers.append(packet[0]) }
        #expect(headers == [0x41])
        // Given at creation.
        let given = try payloads([nal(0x65, size: 20)], .init(aggregation: .none), sps: Array(Self.sps), pps: Array(Self.pps))
        #expect(given.map { $0.payload[0] } == [0x67, 0x68, 0x65])
    }

    @Test func singleNALModeRejectsLargeUnitNamingTheFix() {
        let error = #expect(throws: RTPError.self) {
            try payloads([nal(0x65, size: 1201)], .init(packetizationMode: .singleNALUnit))
        }
        #expect(error?.code == .nalUnitTooLarge)
        #expect(error?.reason.contains("slice") == true)
    }

    @Test func singleNALModeNeverAggregates() throws {
        let out = try payloads([Self.sps, Self.pps, nal(0x65, size: 1200)], .init(packetizationMode: .singleNALUnit))
        #expect(out.map { $0.payload.count } == [10, 4, 1200])
        #expect(out.map(\.last) == [false, false, true])
    }

    @Test func rejectsEmptyAndPayloadOnlyTypes() {
        #expect(#expect(throws: RTPError.self) { try payloads([[]]) }?.code == .invalidValue)
        #expect(#expect(throws: RTPError.self) { try payloads([nal(0x1C, size: 3)]) }?.code == .invalidValue)
    }

    @Test func packetizerWritesHeaderSequenceAndMarker() throws {
        let packetizer = try H264Packetizer(payloader: try H264Payloader(), payloadType: 96, ssrc: 0xCAFE,
                                            sequencer: RTPSequencer(initial: 65535))
        var packets: [RTPPacket] = []
        try packetizer.packetize([nal(0x65, size: 3000)], timestamp: 9000) { bytes, _, _ in
            packets.append(try! RTPPacket(parsing: Array(bytes)))
        }
        #expect(packets.map(\.header.sequenceNumber) == [65535, 0, 1])
        #expect(packets.map(\.header.marker) == [false, false, true])
        #expect(packets.allSatisfy { $0.header.timestamp == 9000 && $0.header.ssrc == 0xCAFE && $0.header.payloadType == 96 })
        #expect(packetizer.sequencer.rolloverCount == 1)
    }

    @Test func timestampsFromPTS() {
        #expect(RTPClock.timestamp(pts: 1, timeBaseNumerator: 1, timeBaseDenominator: 30) == 3000)
        #expect(RTPClock.timestamp(pts: 90, timeBaseNumerator: 1, timeBaseDenominator: 90000, offset: 10) == 100)
        // Wraps modulo 2^32 instead of trapping.
        #expect(RTPClock.timestamp(pts: 1 << 40, timeBaseNumerator: 1, timeBaseDenominator: 1) == UInt32(truncatingIfNeeded: (1 << 40) * 90000))
    }
}
