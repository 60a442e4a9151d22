import Bitstream
import Testing

@Suite struct ConversionTests {
    // One access unit, written three ways.
    static let nalUnits: [[UInt8]] = [
        [0x09, 0xF0],                    // access unit delimiter
        [0x06, 0x05, 0x01, 0x80],        // SEI
        [0x65, 0x88, 0x00, 0x00, 0x03],  // IDR slice with an emulation prevention byte
    ]
    static let annexB: [UInt8] = [
        0x00, 0x00, 0x00, 0x01, 0x09, 0xF0,
        0x00, 0x00, 0x00, 0x01, 0x06, 0x05, 0x01, 0x80,
        0x00, 0x00, 0x00, 0x01, 0x65, 0x88, 0x00, 0x00, 0x03,
    ]
    static func avcc(lengthSize: Int) -> [UInt8] {
        switch lengthSize {
        case 1: [0x02, 0x09, 0xF0, 0x04, 0x06, 0x05, 0x01, 0x80, 0x05, 0x65, 0x88, 0x00, 0x00, 0x03]
        case 2: [0x00, 0x02, 0x09, 0xF0, 0x00, 0x04, 0x06, 0x05, 0x01, 0x80, 0x00, 0x05, 0x65, 0x88, 0x00, 0x00, 0x03]
        default: [
            0x00, 0x00, 0x00, 0x02, 0x09, 0xF0,
            0x00, 0x00, 0x00, 0x04, 0x06, 0x05, 0x01, 0x80,
            0x00, 0x00, 0x00, 0x05, 0x65, 0x88, 0x00, 0x00, 0x03,
        ]
        }
    }

    @Test(arguments: [1, 2, 4])
    func avccToAnnexB(lengthSize: Int) throws {
        let avcc = bytesEmbedded(Self.avcc(lengthSize: lengthSize))
        #expect(try AVCC.annexBSize(avcc, lengthSize: lengthSize) == Self.annexB.count)
        #expect(try AVCC.toAnnexB(avcc, lengthSize: lengthSize) == Self.annexB)
        var output = [UInt8](repeating: 0xEE, count: Self.annexB.count + 2)
        let written = try output.withUnsafeMutableBytes { raw in
            try AVCC.toAnnexB(avcc, lengthSize: lengthSize, into: raw)
        }
        #expect(Array(output[..<written]) == Self.annexB)
        #expect(output[written...] == [0xEE, 0xEE])
    }

    @Test func avccToAnnexBInPlaceEqualsCopy() throws {
        var buffer = Self.avcc(lengthSize: 4)
        try AVCC.toAnnexBInPlace(&buffer)
        #expect(buffer == Self.annexB)
        #expect(buffer == (try AVCC.toAnnexB(Self.avcc(lengthSize: 4)[...], lengthSize: 4)))
    }

    @Test(arguments: [
        // Valid up to the last NAL unit, whose length runs past the end: nothing may be rewritten.
        ([0x00, 0x00, 0x00, 0x01, 0x09, 0x00, 0x00, 0x00, 0x09, 0x65] as [UInt8], BitstreamError.Code.lengthPastEnd),
        // A zero length after a valid NAL unit.
        ([0x00, 0x00, 0x00, 0x01, 0x09, 0x00, 0x00, 0x00, 0x00], .emptyNALUnit),
        // Two bytes of a third length prefix.
        ([0x00, 0x00, 0x00, 0x01, 0x09, 0x00, 0x00, 0x00, 0x01, 0x65, 0x00, 0x00], .truncated),
    ])
    func avccToAnnexBInPlaceLeavesBadBuffersUntouched(bytes: [UInt8], code: BitstreamError.Code) {
        var buffer = bytes
        expectByteLayerError(code) { try AVCC.toAnnexBInPlace(&buffer) }
        #expect(buffer == bytes)
    }

    @Test func avccToAnnexBOutputTooSmall() {
        var output = [UInt8](repeating: 0xEE, count: Self.annexB.count - 1)
        expectByteLayerError(.outputTooSmall) {
            _ = try output.withUnsafeMutableBytes { raw in
                try AVCC.toAnnexB(Self.avcc(lengthSize: 2)[...], lengthSize: 2, into: raw)
            }
        }
        #expect(output.allSatisfy { $0 == 0xEE })
    }

    @Test(arguments: [1, 2, 4])
    func annexBToAVCC(lengthSize: Int) throws {
        let annexB = bytesEmbedded(Self.annexB)
        let expected = Self.avcc(lengthSize: lengthSize)
        #expect(try AnnexB.avccSize(annexB, lengthSize: lengthSize) == expected.count)
        #expect(try AnnexB.toAVCC(annexB, lengthSize: lengthSize) == expected)
        var output = [UInt8](repeating: 0xEE, count: expected.count)
        let written = try output.withUnsafeMutableBytes { raw in
            try AnnexB.toAVCC(annexB, lengthSize: lengthSize, into: raw)
        }
        #expect(written == expected.count && output == expected)
        var small = [UInt8](repeating: 0xEE, count: expected.count - 1)
        expectByteLayerError(.outputTooSmall) {
            _ = try small.withUnsafeMutableBytes { raw in try AnnexB.toAVCC(annexB, lengthSize: lengthSize, into: raw) }
        }
    }

    @Test(arguments: [
        // Plain 4-byte start codes: no byte moves.
        annexB,
        // Leading zeros, trailing zeros between and after NAL units: the NAL units move to the front.
        [0x00, 0x00] + annexB[..<6] + [0x00, 0x00, 0x00] + annexB[6...] + [0x00, 0x00],
    ])
    func annexBToAVCCInPlaceEqualsCopy(bytes: [UInt8]) throws {
        let copied = try AnnexB.toAVCC(bytes[...], lengthSize: 4)
        #expect(copied == Self.avcc(lengthSize: 4))
        var buffer = bytes
        try AnnexB.toAVCCInPlace(&buffer)
        #expect(buffer == copied)
    }

    @Test func annexBToAVCCInPlaceRefusesThreeByteStartCodes() {
        let bytes: [UInt8] = [
            0x00, 0x00, 0x00, 0x01, 0x09, 0xF0,  // 4-byte start code, AUD
            0x00, 0x00, 0x01, 0x65, 0x88,        // 3-byte start code at offset 6: no room for a 4-byte length
        ]
        var buffer = bytes
        expectByteLayerError(.shortStartCode, offset: 6) { try AnnexB.toAVCCInPlace(&buffer) }
        #expect(buffer == bytes)
        // A 3-byte start code first in the buffer is just as short.
        var first: [UInt8] = [0x00, 0x00, 0x01, 0x65]
        expectByteLayerError(.shortStartCode, offset: 0) { try AnnexB.toAVCCInPlace(&first) }
        // Errors of the scan leave the buffer untouched as well.
        var bad: [UInt8] = [0x00, 0x00, 0x00, 0x01, 0x09, 0x00, 0x00, 0x00, 0x01]
        expectByteLayerError(.emptyNALUnit) { try AnnexB.toAVCCInPlace(&bad) }
        #expect(bad == [0x00, 0x00, 0x00, 0x01, 0x09, 0x00, 0x00, 0x00, 0x01])
    }

    @Test func annexBToAVCCRejectsNALUnitsTooLargeForTheLengthSize() {
        let bytes = AnnexB.join([[UInt8](repeating: 0x41, count: 256)])
        expectByteLayerError(.nalUnitTooLarge, offset: 4) { _ = try AnnexB.toAVCC(bytes[...], lengthSize: 1) }
        #expect((try? AnnexB.toAVCC(bytes[...], lengthSize: 2))?.prefix(2) == [0x01, 0x00])
    }

    @Test(arguments: [1, 2, 4])
    func roundTripAVCCToAnnexBToAVCC(lengthSize: Int) throws {
        let avcc = Self.avcc(lengthSize: lengthSize)
        let annexB = try AVCC.toAnnexB(avcc[...], lengthSize: lengthSize)
        #expect(try AnnexB.toAVCC(annexB[...], lengthSize: lengthSize) == avcc)
    }

    // MARK: Parameter sets in front of IDR access units

    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E, 0xDA]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]

    struct InsertionCase: Sendable, CustomTestStringConvertible {
        let name: String
        let input: [[UInt8]]
        let expected: [[UInt8]]
        var testDescription: String { name }
    }

    static let aud: [UInt8] = [0x09, 0xF0]
    static let sei: [UInt8] = [0x06, 0x05, 0x01, 0x80]
    static let idr: [UInt8] = [0x65, 0x88]
    static let idr2: [UInt8] = [0x65, 0x99]
    static let slice: [UInt8] = [0x41, 0x9A]
    static let otherPPS: [UInt8] = [0x68, 0xEE]

    static let insertionCases: [InsertionCase] = [
        .init(name: "IDR without parameter sets gets both, after AUD and SEI",
              input: [aud, sei, idr], expected: [aud, sei, sps, pps, idr]),
        .init(name: "IDR with its own SPS and PPS is left alone",
              input: [sps, otherPPS, idr], expected: [sps, otherPPS, idr]),
        .init(name: "IDR with an SPS only gets the PPS",
              input: [sps, idr], expected: [sps, pps, idr]),
        .init(name: "a non-IDR access unit is left alone", input: [aud, slice], expected: [aud, slice]),
        .init(name: "parameter sets go in front of the first IDR slice only",
              input: [idr, idr2], expected: [sps, pps, idr, idr2]),
        .init(name: "SPS/PPS after the IDR do not count", input: [idr, sps, pps], expected: [sps, pps, idr, sps, pps]),
    ]

    @Test(arguments: insertionCases)
    func parameterSetsGoInFrontOfIDRsThatLackThem(_ testCase: InsertionCase) throws {
        let record = try AVCDecoderConfigurationRecord(sequenceParameterSets: [Self.sps], pictureParameterSets: [Self.pps])
        // Length size 4 without insertion takes the bulk-copy path, everything else the per-NAL-unit path.
        for lengthSize in [1, 2, 4] {
            let avcc = try AVCC.join(testCase.input, lengthSize: lengthSize)
            let annexB = try AVCC.toAnnexB(bytesEmbedded(avcc), lengthSize: lengthSize, parameterSets: record)
            #expect(try AnnexB.split(annexB[...]).map(Array.init) == testCase.expected)
            #expect(try AVCC.annexBSize(avcc[...], lengthSize: lengthSize, parameterSets: record) == annexB.count)
            #expect(annexB == AnnexB.join(testCase.expected))
        }
    }
}

/// Checks against FFmpeg itself on a real x264 stream (see `BytesFFmpegFixture`).
@Suite struct FFmpegStreamConversionTests {
    static func nalUnitType(_ nalUnit: ArraySlice<UInt8>) -> NALUnitType? {
        nalUnit.first.map { NALUnitHeader($0).nalUnitType }
    }

    @Test func avcCBuiltFromTheStreamMatchesFFmpegsMP4Muxer() throws {
        let fixture = try BytesFFmpegFixture.shared.get()
        let avcC = try BytesMP4Reader(bytes: fixture.mp4).avcC()
        let parsed = try AVCDecoderConfigurationRecord(parsing: avcC)
        #expect(parsed.serialized() == Array(avcC))
        #expect(parsed.avcProfileIndication == 100)  // libx264 picks High for yuv420p
        #expect(parsed.highProfileExtension?.chromaFormat == 1)
        #expect(parsed.nalUnitLengthSize == 4)

        // Built from the SPS/PPS found in the Annex-B stream, the record must be what FFmpeg's muxer wrote.
        let nalUnits = try AnnexB.split(fixture.annexB[...])
        let sps = try #require(nalUnits.first { Self.nalUnitType($0) == .sps })
        let pps = try #require(nalUnits.first { Self.nalUnitType($0) == .pps })
        let built = try AVCDecoderConfigurationRecord(sequenceParameterSets: [Array(sps)], pictureParameterSets: [Array(pps)])
        #expect(built.serialized() == Array(avcC))
        #expect(built == parsed)
    }

    @Test func samplesToAnnexBGiveFFmpegsMP4ToAnnexBNALUnits() throws {
        let fixture = try BytesFFmpegFixture.shared.get()
        let reader = BytesMP4Reader(bytes: fixture.mp4)
        let record = try AVCDecoderConfigurationRecord(parsing: reader.avcC())
        let samples = try reader.samples()
        #expect(samples.count == 10)

        var ours: [[UInt8]] = []
        var idrSamplesWithoutParameterSets = 0
        for sample in samples {
            let types = try AVCC.split(sample, lengthSize: record.nalUnitLengthSize).compactMap(Self.nalUnitType)
            if types.contains(.idr), !types.contains(.sps) { idrSamplesWithoutParameterSets += 1 }
            let annexB = try AVCC.toAnnexB(sample, lengthSize: record.nalUnitLengthSize, parameterSets: record)
            ours += try AnnexB.split(annexB[...]).map(Array.init)
        }
        // -g 4 over 10 frames: IDRs at frames 0, 4 and 8, none carrying SPS/PPS in an MP4 with a global header.
        #expect(idrSamplesWithoutParameterSets == 3)
        let theirs = try AnnexB.split(fixture.annexB[...]).map(Array.init)
        #expect(ours.count == theirs.count)
        #expect(ours == theirs)
        #expect(ours.filter { $0.first.map { NALUnitHeader($0).nalUnitType } == .sps }.count == 3)
    }

    @Test func inPlaceEqualsCopyAndRoundTripsOnRealSamples() throws {
        let fixture = try BytesFFmpegFixture.shared.get()
        for sample in try BytesMP4Reader(bytes: fixture.mp4).samples() {
            let copied = try AVCC.toAnnexB(sample, lengthSize: 4)
            var inPlace = Array(sample)
            try AVCC.toAnnexBInPlace(&inPlace)
            #expect(inPlace == copied)
            #expect(try AnnexB.toAVCC(copied[...], lengthSize: 4) == Array(sample))
            try AnnexB.toAVCCInPlace(&inPlace)
            #expect(inPlace == Array(sample))
        }
    }
}

/// Random buffers, biased towards the bytes that matter (00, 01, 03 and small lengths), through every reader:
/// each must either throw a BitstreamError or return something that satisfies its invariants — never trap.
@Suite struct ByteLayerHostileInputTests {
    /// A fixed-seed xorshift generator, so a failure reproduces.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }

    static func buffers() -> [[UInt8]] {
        var generator = Generator(state: 0x9E37_79B9_7F4A_7C15)
        let alphabet: [UInt8] = [0x00, 0x00, 0x00, 0x01, 0x03, 0x02, 0x05, 0x65, 0x67, 0xFF]
        return (0..<3000).map { _ in
            let count = Int.random(in: 0...40, using: &generator)
            return (0..<count).map { _ in
                Bool.random(using: &generator)
                    ? alphabet.randomElement(using: &generator) ?? 0 : UInt8.random(in: 0...255, using: &generator)
            }
        }
    }

    @Test func annexBReadersNeverTrap() throws {
        var accepted = 0
        for bytes in Self.buffers() {
            // Half the buffers start with a start code, so that many get past the first one.
            let bytes = bytes.count % 2 == 0 ? [0x00, 0x00, 0x01] + bytes : bytes
            guard let nalUnits = try? AnnexB.split(bytes[...]) else { continue }
            accepted += 1
            for nalUnit in nalUnits {
                #expect(!nalUnit.isEmpty && nalUnit.last != 0x00)
            }
            // What split accepts converts both ways and back.
            let avcc = try AnnexB.toAVCC(bytes[...], lengthSize: 4)
            #expect(try AVCC.split(avcc[...], lengthSize: 4).map(Array.init) == nalUnits.map(Array.init))
            var inPlace = bytes
            if (try? AnnexB.toAVCCInPlace(&inPlace)) != nil {
                #expect(inPlace == avcc)
            } else {
                #expect(inPlace == bytes)
            }
        }
        #expect(accepted > 100, "too few valid buffers for the round trips to mean anything")
    }

    @Test(arguments: [1, 2, 4])
    func avccReadersNeverTrap(lengthSize: Int) throws {
        var accepted = 0
        for (index, random) in Self.buffers().enumerated() {
            // Every other buffer is a valid AVCC buffer (its bytes cut at zeros into NAL units), with every fourth
            // of those damaged in one byte, so that many get past the first length prefix.
            var bytes = random
            if index % 2 == 0, var valid = try? AVCC.join(random.split(separator: 0x00), lengthSize: lengthSize) {
                if index % 8 == 0, !valid.isEmpty { valid[random.count % valid.count] ^= 0x5A }
                bytes = valid
            }
            var inPlace = bytes
            guard let nalUnits = try? AVCC.split(bytes[...], lengthSize: lengthSize) else {
                if lengthSize == 4 {
                    #expect(throws: BitstreamError.self) { try AVCC.toAnnexBInPlace(&inPlace) }
                    #expect(inPlace == bytes)
                }
                continue
            }
            accepted += 1
            #expect(try AVCC.join(nalUnits, lengthSize: lengthSize) == bytes)
            let annexB = try AVCC.toAnnexB(bytes[...], lengthSize: lengthSize)
            #expect(annexB.count == AnnexB.joinedSize(nalUnits))
            if lengthSize == 4 {
                try AVCC.toAnnexBInPlace(&inPlace)
                #expect(inPlace == annexB)
            }
        }
        #expect(accepted > 100, "too few valid buffers for the round trips to mean anything")
    }

    @Test func avcCParserNeverTraps() throws {
        // Valid records with one to three bytes replaced and a random cut or tail.
        var generator = Generator(state: 0xD1B5_4A32_D192_ED03)
        var parsed = 0
        for seed in [AVCDecoderConfigurationRecordTests.baseline, AVCDecoderConfigurationRecordTests.high] {
            for _ in 0..<2000 {
                var bytes = seed
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count + 4, using: &generator)))
                guard let record = try? AVCDecoderConfigurationRecord(parsing: bytes[...]) else { continue }
                parsed += 1
                // Same fields (serialized() writes them all); a cut High-profile extension was dropped with a
                // warning (since issue 12), so the round trip is clean but for 3-byte lengths, which stay what they
                // were and warn again.
                let again = try AVCDecoderConfigurationRecord(parsing: record.serialized()[...])
                #expect(again.serialized() == record.serialized())
                #expect(again.warnings.map(\.syntaxElement) == (record.nalUnitLengthSize == 3 ? ["lengthSizeMinusOne"] : []))
                #expect(again == record || !record.warnings.isEmpty)
            }
        }
        #expect(parsed > 100)  // the mutations leave many records valid, so the round trip above really ran
    }
}
