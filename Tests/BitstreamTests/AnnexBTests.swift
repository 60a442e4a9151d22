import Bitstream
import Testing

@Suite struct AnnexBTests {
    struct SplitCase: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let nalUnits: [[UInt8]]
        var testDescription: String { name }
    }

    static let splitCases: [SplitCase] = [
        .init(name: "empty input has no NAL units", bytes: [], nalUnits: []),
        .init(name: "4-byte start codes", bytes: [
            0x00, 0x00, 0x00, 0x01,  // zero_byte + start_code_prefix_one_3bytes
            0x67, 0x42, 0x00, 0x1F,  // SPS: header, profile_idc 66, constraints, level_idc 31
            0x00, 0x00, 0x00, 0x01,  // start code
            0x68, 0xCE, 0x3C, 0x80,  // PPS
        ], nalUnits: [[0x67, 0x42, 0x00, 0x1F], [0x68, 0xCE, 0x3C, 0x80]]),
        .init(name: "3-byte start codes", bytes: [
            0x00, 0x00, 0x01,        // start_code_prefix_one_3bytes
            0x65, 0x88, 0x84,        // IDR slice
            0x00, 0x00, 0x01,        // start code
            0x41, 0x9A,              // non-IDR slice
        ], nalUnits: [[0x65, 0x88, 0x84], [0x41, 0x9A]]),
        .init(name: "mixed 3- and 4-byte start codes", bytes: [
            0x00, 0x00, 0x01, 0x09, 0xF0,        // 3-byte, access unit delimiter
            0x00, 0x00, 0x00, 0x01, 0x65, 0x11,  // 4-byte, IDR slice
            0x00, 0x00, 0x01, 0x65, 0x22,        // 3-byte, second IDR slice
        ], nalUnits: [[0x09, 0xF0], [0x65, 0x11], [0x65, 0x22]]),
        .init(name: "leading_zero_8bits before the first start code", bytes: [
            0x00, 0x00, 0x00,        // leading_zero_8bits × 3
            0x00, 0x00, 0x00, 0x01,  // zero_byte + start code
            0x09, 0x10,              // access unit delimiter
        ], nalUnits: [[0x09, 0x10]]),
        .init(name: "trailing_zero_8bits belong to no NAL unit", bytes: [
            0x00, 0x00, 0x01, 0x06, 0x05, 0x80,  // SEI, ends in rbsp_trailing_bits
            0x00, 0x00, 0x00,                    // trailing_zero_8bits
            0x00, 0x00, 0x00, 0x01, 0x65, 0x01,  // IDR slice
            0x00, 0x00,                          // trailing_zero_8bits at the end of the stream
        ], nalUnits: [[0x06, 0x05, 0x80], [0x65, 0x01]]),
        .init(name: "emulation prevention bytes pass through untouched", bytes: [
            0x00, 0x00, 0x00, 0x01,
            0x67, 0x64, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x01,  // SPS with two 00 00 03 sequences
            0x00, 0x00, 0x01,
            0x65, 0x00, 0x00, 0x03,                                // slice ending in cabac_zero_word + 03
        ], nalUnits: [[0x67, 0x64, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x01], [0x65, 0x00, 0x00, 0x03]]),
        .init(name: "single-byte NAL units", bytes: [
            0x00, 0x00, 0x01, 0x0B,  // end of stream
            0x00, 0x00, 0x01, 0x0A,  // end of sequence
        ], nalUnits: [[0x0B], [0x0A]]),
        .init(name: "a 0x01 byte after a single zero is payload", bytes: [
            0x00, 0x00, 0x01, 0x41, 0x00, 0x01, 0x01, 0x00, 0x02,  // 00 01 and 00 02 inside the slice
        ], nalUnits: [[0x41, 0x00, 0x01, 0x01, 0x00, 0x02]]),
    ]

    @Test(arguments: splitCases)
    func split(_ testCase: SplitCase) throws {
        let nalUnits = try AnnexB.split(testCase.bytes[...])
        #expect(nalUnits.map(Array.init) == testCase.nalUnits)
        var visited: [[UInt8]] = []
        try AnnexB.forEachNALUnit(in: testCase.bytes[...]) { visited.append(Array($0)) }
        #expect(visited == testCase.nalUnits)
    }

    @Test(arguments: splitCases)
    func splitOfSliceWithNonZeroStartIndex(_ testCase: SplitCase) throws {
        let slice = bytesEmbedded(testCase.bytes)
        let nalUnits = try AnnexB.split(slice)
        #expect(nalUnits.map(Array.init) == testCase.nalUnits)
        // Slices share the caller's storage and indices.
        let ranges = try AnnexB.nalUnitRanges(in: slice)
        #expect(ranges == nalUnits.map { $0.startIndex..<$0.endIndex })
        for range in ranges {
            #expect(range.lowerBound >= slice.startIndex && range.upperBound <= slice.endIndex)
        }
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let code: BitstreamError.Code
        let offset: Int
        var testDescription: String { name }
    }

    static let errorCases: [ErrorCase] = [
        .init(name: "garbage before the first start code", bytes: [
            0xAB,                          // not a leading zero byte
            0x00, 0x00, 0x01, 0x65, 0x01,
        ], code: .missingStartCode, offset: 0),
        .init(name: "garbage after leading zeros", bytes: [
            0x00, 0x00, 0x17,              // leading zero, zero, then garbage
            0x00, 0x00, 0x00, 0x01, 0x65,
        ], code: .missingStartCode, offset: 2),
        .init(name: "no start code at all", bytes: [0x65, 0x88, 0x84, 0x00], code: .missingStartCode, offset: 0),
        .init(name: "zeros only", bytes: [0x00, 0x00, 0x00], code: .missingStartCode, offset: 0),
        .init(name: "00 00 only", bytes: [0x00, 0x00], code: .missingStartCode, offset: 0),
        .init(name: "a lone 3-byte start code", bytes: [0x00, 0x00, 0x01], code: .emptyNALUnit, offset: 3),
        .init(name: "a lone 4-byte start code", bytes: [0x00, 0x00, 0x00, 0x01], code: .emptyNALUnit, offset: 4),
        .init(name: "start code followed by zeros only", bytes: [
            0x00, 0x00, 0x01, 0x65,        // IDR slice
            0x00, 0x00, 0x01, 0x00, 0x00,  // start code, then only trailing zeros
        ], code: .emptyNALUnit, offset: 7),
        .init(name: "two start codes in a row", bytes: [
            0x00, 0x00, 0x01,              // start code with nothing after it
            0x00, 0x00, 0x00, 0x01, 0x65,  // next start code
        ], code: .emptyNALUnit, offset: 3),
    ]

    @Test(arguments: errorCases)
    func splitErrors(_ testCase: ErrorCase) {
        expectByteLayerError(testCase.code, offset: testCase.offset) {
            _ = try AnnexB.split(testCase.bytes[...])
        }
        // Offsets count from the start of the slice given, not from the parent array.
        expectByteLayerError(testCase.code, offset: testCase.offset) {
            try AnnexB.forEachNALUnit(in: bytesEmbedded(testCase.bytes)) { _ in }
        }
    }

    @Test func visitorErrorsPassThrough() {
        let bytes: [UInt8] = [0x00, 0x00, 0x01, 0x65, 0x00, 0x00, 0x01, 0x41]
        var seen = 0
        expectByteLayerError(.unsupported) {
            try AnnexB.forEachNALUnit(in: bytes[...]) { _ throws(BitstreamError) in
                seen += 1
                throw .make(.unsupported, "stop")
            }
        }
        #expect(seen == 1)
    }

    @Test func splitIsBoundedButTheVisitorIsNot() throws {
        let nalUnit: [UInt8] = [0x00, 0x00, 0x01, 0x41]  // 3-byte start code + 1-byte slice
        let bytes = [[UInt8]](repeating: nalUnit, count: AnnexB.maxNALUnitsPerAccessUnit + 1).flatMap { $0 }
        expectByteLayerError(.limitExceeded) { _ = try AnnexB.split(bytes[...]) }
        var count = 0
        try AnnexB.forEachNALUnit(in: bytes[...]) { _ in count += 1 }
        #expect(count == AnnexB.maxNALUnitsPerAccessUnit + 1)
        let atLimit = bytes[..<(AnnexB.maxNALUnitsPerAccessUnit * nalUnit.count)]
        #expect(try AnnexB.split(atLimit).count == AnnexB.maxNALUnitsPerAccessUnit)
    }

    @Test func join() throws {
        let nalUnits: [[UInt8]] = [[0x09, 0xF0], [0x67, 0x42, 0x00, 0x1F], [0x65, 0x88]]
        let expected: [UInt8] = [
            0x00, 0x00, 0x00, 0x01, 0x09, 0xF0,              // AUD
            0x00, 0x00, 0x00, 0x01, 0x67, 0x42, 0x00, 0x1F,  // SPS
            0x00, 0x00, 0x00, 0x01, 0x65, 0x88,              // IDR
        ]
        #expect(AnnexB.joinedSize(nalUnits) == expected.count)
        #expect(AnnexB.join(nalUnits) == expected)
        #expect(AnnexB.join([[UInt8]]()) == [])

        var output = [UInt8](repeating: 0xEE, count: expected.count + 3)
        let written = try output.withUnsafeMutableBytes { raw throws(BitstreamError) in
            try AnnexB.join(nalUnits, into: raw)
        }
        #expect(written == expected.count)
        #expect(Array(output[..<written]) == expected)
        #expect(output[written...].allSatisfy { $0 == 0xEE })
    }

    @Test func joinIntoTooSmallBufferWritesNothing() {
        let nalUnits: [ArraySlice<UInt8>] = [[0x65, 0x88][...]]
        var output = [UInt8](repeating: 0xEE, count: 5)
        expectByteLayerError(.outputTooSmall) {
            _ = try output.withUnsafeMutableBytes { raw throws(BitstreamError) in try AnnexB.join(nalUnits, into: raw) }
        }
        #expect(output == [UInt8](repeating: 0xEE, count: 5))
    }

    @Test(arguments: splitCases)
    func joinThenSplitRoundTrips(_ testCase: SplitCase) throws {
        let joined = AnnexB.join(testCase.nalUnits)
        #expect(try AnnexB.split(joined[...]).map(Array.init) == testCase.nalUnits)
    }
}

@Suite struct NALUnitHeaderTests {
    @Test(arguments: [
        // byte, forbidden_zero_bit, nal_ref_idc, nal_unit_type
        (UInt8(0x67), false, UInt8(3), NALUnitType.sps),     // 0 11 00111
        (UInt8(0x68), false, UInt8(3), NALUnitType.pps),     // 0 11 01000
        (UInt8(0x65), false, UInt8(3), NALUnitType.idr),     // 0 11 00101
        (UInt8(0x41), false, UInt8(2), NALUnitType.slice),   // 0 10 00001
        (UInt8(0x06), false, UInt8(0), NALUnitType.sei),     // 0 00 00110
        (UInt8(0x09), false, UInt8(0), NALUnitType.accessUnitDelimiter),
        (UInt8(0x7C), false, UInt8(3), NALUnitType.fuA),     // 0 11 11100
        (UInt8(0x18), false, UInt8(0), NALUnitType.stapA),   // 0 00 11000
        (UInt8(0xE5), true, UInt8(3), NALUnitType.idr),      // 1 11 00101: forbidden bit set, still readable
    ])
    func fields(byte: UInt8, forbidden: Bool, refIdc: UInt8, type: NALUnitType) {
        let header = NALUnitHeader(byte)
        #expect(header.forbiddenZeroBit == forbidden)
        #expect(header.nalRefIdc == refIdc)
        #expect(header.nalUnitType == type)
    }

    @Test func everyByteRoundTrips() {
        for value in UInt8.min...UInt8.max {
            let header = NALUnitHeader(value)
            #expect(header.byte == value)
            #expect(NALUnitHeader(
                forbiddenZeroBit: header.forbiddenZeroBit, nalRefIdc: header.nalRefIdc, nalUnitType: header.nalUnitType
            ) == header)
        }
    }

    @Test func namedAndUnknownTypes() {
        #expect(NALUnitType.sliceDataPartitionA.rawValue == 2)
        #expect(NALUnitType.sliceExtension.rawValue == 20)
        #expect(NALUnitType.fuB.rawValue == 29)
        #expect(NALUnitType.idr.description == "idr")
        // Reserved and unspecified values have no name but never trap.
        #expect(NALUnitType(rawValue: 23).description == "nalUnitType(23)")
        #expect(NALUnitType(rawValue: 31) == NALUnitHeader(0x1F).nalUnitType)
        #expect(NALUnitType.idr.isVCL && NALUnitType.slice.isVCL && !NALUnitType.sps.isVCL && !NALUnitType.fuA.isVCL)
    }
}
