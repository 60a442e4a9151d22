import Bitstream
import Testing

@Suite struct AVCCTests {
    struct SplitCase: Sendable, CustomTestStringConvertible {
        let lengthSize: Int
        let bytes: [UInt8]
        let nalUnits: [[UInt8]]
        var testDescription: String { "lengthSize \(lengthSize)" }
    }

    static let splitCases: [SplitCase] = [
        .init(lengthSize: 4, bytes: [
            0x00, 0x00, 0x00, 0x02, 0x09, 0xF0,        // length 2: access unit delimiter
            0x00, 0x00, 0x00, 0x03, 0x65, 0x88, 0x84,  // length 3: IDR slice
        ], nalUnits: [[0x09, 0xF0], [0x65, 0x88, 0x84]]),
        .init(lengthSize: 2, bytes: [
            0x00, 0x01, 0x0B,                    // length 1: end of stream
            0x00, 0x04, 0x41, 0x00, 0x00, 0x03,  // length 4: slice ending in 00 00 03 (passes through)
        ], nalUnits: [[0x0B], [0x41, 0x00, 0x00, 0x03]]),
        .init(lengthSize: 1, bytes: [
            0x02, 0x68, 0xCE,  // length 2: PPS
            0x01, 0x0A,        // length 1: end of sequence
        ], nalUnits: [[0x68, 0xCE], [0x0A]]),
        .init(lengthSize: 4, bytes: [], nalUnits: []),
    ]

    /// 3-byte lengths (lengthSizeMinusOne 2): reserved by ISO/IEC 14496-15, never written, but read as FFmpeg reads them.
    @Test func threeByteLengthsAreRead() throws {
        let bytes: [UInt8] = [
            0x00, 0x00, 0x02, 0x68, 0xCE,                    // length 2: PPS
            0x00, 0x01, 0x03, 0x65] + [UInt8](repeating: 0x88, count: 0x0102)  // length 259: IDR slice
        let nalUnits = try AVCC.split(bytesEmbedded(bytes), lengthSize: 3)
        #expect(nalUnits.map(\.count) == [2, 259])
        #expect(Array(nalUnits[1].prefix(2)) == [0x65, 0x88])
        #expect(try AVCC.toAnnexB(bytes[...], lengthSize: 3) == [0, 0, 0, 1, 0x68, 0xCE, 0, 0, 0, 1] + Array(bytes[8...]))
        expectByteLayerError(.invalidLengthSize) { _ = try AVCC.join(nalUnits, lengthSize: 3) }
    }

    @Test(arguments: splitCases)
    func split(_ testCase: SplitCase) throws {
        #expect(try AVCC.split(testCase.bytes[...], lengthSize: testCase.lengthSize).map(Array.init) == testCase.nalUnits)
        let slice = bytesEmbedded(testCase.bytes)
        let nalUnits = try AVCC.split(slice, lengthSize: testCase.lengthSize)
        #expect(nalUnits.map(Array.init) == testCase.nalUnits)
        for nalUnit in nalUnits {
            #expect(nalUnit.startIndex >= slice.startIndex && nalUnit.endIndex <= slice.endIndex)
        }
    }

    @Test(arguments: splitCases)
    func joinThenSplitRoundTrips(_ testCase: SplitCase) throws {
        let joined = try AVCC.join(testCase.nalUnits, lengthSize: testCase.lengthSize)
        #expect(joined == testCase.bytes)
        #expect(try AVCC.joinedSize(testCase.nalUnits, lengthSize: testCase.lengthSize) == testCase.bytes.count)
        #expect(try AVCC.split(joined[...], lengthSize: testCase.lengthSize).map(Array.init) == testCase.nalUnits)
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let name: String
        let lengthSize: Int
        let bytes: [UInt8]
        let code: BitstreamError.Code
        let offset: Int?
        var testDescription: String { name }
    }

    static let errorCases: [ErrorCase] = [
        .init(name: "truncated length prefix", lengthSize: 4, bytes: [
            0x00, 0x00, 0x00, 0x01, 0x65,  // length 1, IDR
            0x00, 0x00,                    // half a length prefix
        ], code: .truncated, offset: 5),
        .init(name: "length past the end", lengthSize: 2, bytes: [
            0x00, 0x05, 0x65, 0x88,        // length 5 but 2 bytes follow
        ], code: .lengthPastEnd, offset: 0),
        .init(name: "zero-length NAL unit", lengthSize: 1, bytes: [
            0x01, 0x09,                    // length 1, AUD
            0x00,                          // length 0
            0x01, 0x65,
        ], code: .emptyNALUnit, offset: 2),
        .init(name: "length size 3 past the end", lengthSize: 3, bytes: [0x00, 0x01, 0x00, 0x65], code: .lengthPastEnd, offset: 0),
        .init(name: "length size 0", lengthSize: 0, bytes: [0x65], code: .invalidLengthSize, offset: nil),
        .init(name: "length size 8", lengthSize: 8, bytes: [], code: .invalidLengthSize, offset: nil),
    ]

    @Test(arguments: errorCases)
    func splitErrors(_ testCase: ErrorCase) {
        expectByteLayerError(testCase.code, offset: testCase.offset) {
            _ = try AVCC.split(testCase.bytes[...], lengthSize: testCase.lengthSize)
        }
        expectByteLayerError(testCase.code, offset: testCase.offset) {
            try AVCC.forEachNALUnit(in: bytesEmbedded(testCase.bytes), lengthSize: testCase.lengthSize) { _ in }
        }
    }

    /// Drip feed: a prefix ending on a NAL unit boundary is itself a valid AVCC buffer holding the first NAL units;
    /// every other strict prefix must fail with a typed error, never trap.
    @Test(arguments: [1, 2, 4])
    func dripFeed(lengthSize: Int) throws {
        let nalUnits: [[UInt8]] = [[0x09, 0xF0], [0x67, 0x42, 0xC0, 0x1E, 0xDA], [0x65, 0x88, 0x80, 0x40]]
        let bytes = try AVCC.join(nalUnits, lengthSize: lengthSize)
        var boundaries: [Int: Int] = [0: 0]  // prefix length → NAL units it holds
        var end = 0
        for (index, nalUnit) in nalUnits.enumerated() {
            end += lengthSize + nalUnit.count
            boundaries[end] = index + 1
        }
        for length in 0...bytes.count {
            let prefix = bytesEmbedded(Array(bytes[..<length]))
            if let count = boundaries[length] {
                #expect(try AVCC.split(prefix, lengthSize: lengthSize).map(Array.init) == Array(nalUnits[..<count]))
            } else {
                do {
                    _ = try AVCC.split(prefix, lengthSize: lengthSize)
                    Issue.record("prefix of \(length) bytes parsed")
                } catch {
                    #expect([.truncated, .lengthPastEnd].contains(error.code), "prefix \(length): \(error)")
                }
            }
        }
    }

    @Test func joinRejectsWhatTheLengthCannotSay() throws {
        expectByteLayerError(.nalUnitTooLarge, offset: 2) {
            _ = try AVCC.join([[0x09], [UInt8](repeating: 0x41, count: 256)], lengthSize: 1)
        }
        expectByteLayerError(.nalUnitTooLarge, offset: 0) {
            _ = try AVCC.join([[UInt8](repeating: 0x41, count: 65_536)], lengthSize: 2)
        }
        expectByteLayerError(.emptyNALUnit) {
            _ = try AVCC.join([[0x09], []], lengthSize: 4)
        }
        expectByteLayerError(.invalidLengthSize) {
            _ = try AVCC.join([[0x09]], lengthSize: 3)
        }
        // The largest lengths that fit.
        #expect(try AVCC.join([[UInt8](repeating: 0x41, count: 255)], lengthSize: 1).first == 0xFF)
        #expect(try AVCC.join([[UInt8](repeating: 0x41, count: 65_535)], lengthSize: 2).prefix(2) == [0xFF, 0xFF])
    }

    @Test func joinIntoCallerBuffer() throws {
        let nalUnits: [[UInt8]] = [[0x09, 0xF0], [0x65]]
        var output = [UInt8](repeating: 0xEE, count: 8)
        let written = try output.withUnsafeMutableBytes { raw throws(BitstreamError) in
            try AVCC.join(nalUnits, lengthSize: 2, into: raw)
        }
        #expect(written == 7)
        #expect(output == [0x00, 0x02, 0x09, 0xF0, 0x00, 0x01, 0x65, 0xEE])
        var small = [UInt8](repeating: 0xEE, count: 6)
        expectByteLayerError(.outputTooSmall) {
            _ = try small.withUnsafeMutableBytes { raw throws(BitstreamError) in
                try AVCC.join(nalUnits, lengthSize: 2, into: raw)
            }
        }
        #expect(small == [UInt8](repeating: 0xEE, count: 6))
    }
}
