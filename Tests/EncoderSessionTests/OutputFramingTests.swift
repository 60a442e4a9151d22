import Bitstream
import Testing

@testable import EncoderSession

/// What the session does to the encoder's bytes on the way out: AVCC framing through Bitstream's `AVCC.join`, and the
/// one SPS constraint-flag patch that the frame's bytes, its parameter sets and the avcC record all carry.
@Suite struct OutputFramingTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var annexB: [UInt8]
        var avcc: [UInt8]
        /// (nal_unit_type, range in `avcc`)
        var units: [(UInt8, Range<Int>)]
        var description: String { name }
    }

    static let cases = [
        Case(
            name: "one IDR slice, 4-byte start code",
            annexB: [0, 0, 0, 1, 0x65, 0x88, 0x84],
            avcc: [0, 0, 0, 3, 0x65, 0x88, 0x84],
            units: [(5, 4..<7)]),
        Case(
            name: "SPS, PPS (3-byte start code), non-IDR slice",
            annexB: [
                0, 0, 0, 1, 0x67, 0x42, 0xC0, 0x1E,  // SPS: header, profile_idc 66, constraint flags, level_idc 30
                0, 0, 1, 0x68, 0xCE,  // PPS
                0, 0, 0, 1, 0x41, 0x9A,  // slice
            ],
            avcc: [
                0, 0, 0, 4, 0x67, 0x42, 0xC0, 0x1E,
                0, 0, 0, 2, 0x68, 0xCE,
                0, 0, 0, 2, 0x41, 0x9A,
            ],
            units: [(7, 4..<8), (8, 12..<14), (1, 18..<20)]),
    ]

    @Test(arguments: cases)
    func lengthPrefixingKeepsTheNALUnitRanges(_ test: Case) throws {
        let units = try FrameAnalyzer.nalUnits(of: test.annexB)
        let (bytes, ranges) = try EncoderEngine.lengthPrefixed(test.annexB, nalUnits: units)
        #expect(bytes == test.avcc)
        #expect(ranges.map(\.type) == test.units.map(\.0))
        #expect(ranges.map(\.range) == test.units.map(\.1))
        for (before, after) in zip(units, ranges) {
            #expect(test.annexB[before.range] == bytes[after.range])
        }
    }

    /// The fake encoder writes constraint flags 0xE0 (Constrained Baseline); a Baseline session makes them 0x00 in
    /// the frame's bytes and in every copy of the SPS it hands out.
    @Test(arguments: [CompressionSession.OutputFormat.annexB, .avcc])
    func theSPSPatchReachesBytesParameterSetsAndAvcC(format: CompressionSession.OutputFormat) throws {
        #expect(FakeH264.sps[2] == 0xE0)
        var configuration = smallRealTime()
        configuration.profileLevel = ProfileLevel(profile: .baseline, level: nil)
        configuration.outputFormat = format
        let collector = OutputCollector()
        let session = try CompressionSession(
            configuration: configuration, factory: FakeBackendFactory(), outputHandler: collector.handler)
        try session.encode(PixelBuffer(format: .nv12, width: 160, height: 120), presentationTime: TestMedia.time(0))
        let frame = try #require(collector.frames.first)
        let sets = try #require(frame.parameterSets)
        #expect(sets.sequenceParameterSets.map { $0[2] } == [0x00])
        switch format {
        case .annexB:
            let inBand = try #require(frame.nalUnits.first { $0.type == NALUnitType.sps.rawValue })
            #expect(Array(frame.bytes[inBand.range]) == sets.sequenceParameterSets[0])
        case .avcc:
            #expect(sets.avcC?.sequenceParameterSets.map { $0[2] } == [0x00])
            #expect(sets.avcC?.profileCompatibility == 0x00)
        }
    }
}
