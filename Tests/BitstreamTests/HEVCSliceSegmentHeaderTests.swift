import Testing
@testable import Bitstream

/// Slice segment headers of the committed x265 stream (`HEVCFixtures.x265Main320x240`, first 3 frames of
/// testsrc2: IDR_N_LP, then a TRAIL_R P and a TRAIL_N B picture), cut to their first 16 bytes, which hold the
/// whole header up to slice_qp_delta.
struct HEVCSliceSegmentHeaderTests {
    static let idr = HEVCFixtures.bytes("2801af08482ed7a9768b63fb4d763820")
    static let trailR = HEVCFixtures.bytes("0201d011578431840413bc24e82060f0")
    static let trailN = HEVCFixtures.bytes("0001e024bf86149045f82ad4fe7e9aff")

    static func parameterSets() throws -> HEVC.ParameterSets {
        var sets = HEVC.ParameterSets()
        let vector = HEVCFixtures.x265Main320x240
        for nal in [vector.vps, vector.sps, vector.pps] { try sets.update(nalUnit: nal[...]) }
        return sets
    }

    struct Expected: Sendable {
        var bytes: [UInt8]
        var type: HEVC.NALUnitType
        var sliceType: HEVC.SliceType
        var poc: Int?
        var qp: Int
    }

    // slice_qp_delta as ffmpeg's trace_headers reads it: 8 (IDR), 8 (P), 10 (B), on init_qp_minus26 0.
    static let cases: [Expected] = [
        Expected(bytes: idr, type: .idrNLP, sliceType: .i, poc: nil, qp: 34),
        Expected(bytes: trailR, type: .trailR, sliceType: .p, poc: 2, qp: 34),
        Expected(bytes: trailN, type: .trailN, sliceType: .b, poc: 1, qp: 36),
    ]

    @Test(arguments: cases)
    func x265Slices(_ expected: Expected) throws {
        let header = try HEVC.SliceSegmentHeader(nalUnit: expected.bytes[...], parameterSets: try Self.parameterSets())
        #expect(header.nalUnitType == expected.type)
        #expect(header.firstSliceSegmentInPicFlag)
        #expect(header.sliceType == expected.sliceType)
        #expect(header.slicePicOrderCntLsb == expected.poc)
        #expect(header.sliceQpY == expected.qp)
        #expect(header.isIDR == (expected.type == .idrNLP))
        #expect(header.warnings.isEmpty)
    }

    /// Every prefix shorter than the header fails with a typed error; from the end of slice_qp_delta on, all parse.
    @Test(arguments: cases)
    func dripFeed(_ expected: Expected) throws {
        let sets = try Self.parameterSets()
        var firstParsed: Int?
        for length in 0...expected.bytes.count {
            do {
                let header = try HEVC.SliceSegmentHeader(nalUnit: expected.bytes[..<length], parameterSets: sets)
                #expect(header.sliceQpY == expected.qp)
                if firstParsed == nil { firstParsed = length }
            } catch {
                #expect(firstParsed == nil, "prefix \(length) failed after a shorter one parsed: \(error)")
                #expect([.truncated, .emptyNALUnit].contains(error.code), "prefix \(length): \(error)")
            }
        }
        #expect(try #require(firstParsed) > 2)
    }

    @Test func missingParameterSetsAndOtherTypes() throws {
        #expect {
            try HEVC.SliceSegmentHeader(nalUnit: Self.idr[...], parameterSets: HEVC.ParameterSets())
        } throws: { ($0 as? BitstreamError)?.code == .missingParameterSet }
        let vector = HEVCFixtures.x265Main320x240
        #expect(throws: BitstreamError.self) {
            try HEVC.SliceSegmentHeader(nalUnit: vector.sps[...], parameterSets: try Self.parameterSets())
        }
        // An IDR whose slice_type says P: refused (IRAP pictures hold I slices only), as FFmpeg refuses it.
        var w = BitWriter()
        w.writeFlag(true); w.writeFlag(false); w.writeUE(0); w.writeUE(1); w.writeTrailingBits()
        #expect {
            try HEVC.SliceSegmentHeader(nalUnit: ([0x28, 0x01] + w.bytes)[...], parameterSets: try Self.parameterSets())
        } throws: { ($0 as? BitstreamError)?.code == .invalidValue }
    }
}
