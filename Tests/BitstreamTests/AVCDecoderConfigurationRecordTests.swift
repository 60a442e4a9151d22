import Bitstream
import Testing

@Suite struct AVCDecoderConfigurationRecordTests {
    /// A Constrained Baseline record (no extension).
    static let baseline: [UInt8] = [
        0x01,                                // configurationVersion 1
        0x42,                                // AVCProfileIndication 66 (Baseline)
        0xC0,                                // profile_compatibility: constraint_set0 + constraint_set1
        0x1E,                                // AVCLevelIndication 30
        0xFF,                                // reserved '111111' + lengthSizeMinusOne 3
        0xE1,                                // reserved '111' + numOfSequenceParameterSets 1
        0x00, 0x05,                          // sequenceParameterSetLength 5
        0x67, 0x42, 0xC0, 0x1E, 0xDA,        // SPS NAL unit
        0x01,                                // numOfPictureParameterSets 1
        0x00, 0x04,                          // pictureParameterSetLength 4
        0x68, 0xCE, 0x3C, 0x80,              // PPS NAL unit
    ]

    /// A High profile record with the extension, as FFmpeg's MP4 muxer writes it for x264.
    static let high: [UInt8] = [
        0x01, 0x64, 0x00, 0x0D,              // version 1, profile 100 (High), compatibility 0, level 1.3
        0xFF,                                // lengthSizeMinusOne 3
        0xE1, 0x00, 0x08,                    // 1 SPS of 8 bytes
        0x67, 0x64, 0x00, 0x0D, 0xAC, 0xD9, 0x41, 0x41,
        //                      ^ ue(v) '1' seq_parameter_set_id 0, '010' chroma_format_idc 1,
        //                        '1' bit_depth_luma_minus8 0, '1' bit_depth_chroma_minus8 0
        0x01, 0x00, 0x04,                    // 1 PPS of 4 bytes
        0x68, 0xEB, 0xE3, 0xCB,
        0xFD,                                // reserved '111111' + chroma_format 1
        0xF8,                                // reserved '11111' + bit_depth_luma_minus8 0
        0xF8,                                // reserved '11111' + bit_depth_chroma_minus8 0
        0x00,                                // numOfSequenceParameterSetExt 0
    ]

    @Test func parseBaseline() throws {
        let record = try AVCDecoderConfigurationRecord(parsing: Self.baseline[...])
        #expect(record.configurationVersion == 1)
        #expect(record.avcProfileIndication == 66)
        #expect(record.profileCompatibility == 0xC0)
        #expect(record.avcLevelIndication == 30)
        #expect(record.lengthSizeMinusOne == 3 && record.nalUnitLengthSize == 4)
        #expect(record.sequenceParameterSets == [[0x67, 0x42, 0xC0, 0x1E, 0xDA]])
        #expect(record.pictureParameterSets == [[0x68, 0xCE, 0x3C, 0x80]])
        #expect(record.highProfileExtension == nil)
        #expect(record.serialized() == Self.baseline)
        #expect(record.serializedSize == Self.baseline.count)
    }

    @Test func parseHighWithExtension() throws {
        let record = try AVCDecoderConfigurationRecord(parsing: bytesEmbedded(Self.high))
        #expect(record.avcProfileIndication == 100)
        let ext = try #require(record.highProfileExtension)
        #expect(ext.chromaFormat == 1 && ext.bitDepthLumaMinus8 == 0 && ext.bitDepthChromaMinus8 == 0)
        #expect(ext.sequenceParameterSetExtensions.isEmpty)
        #expect(record.serialized() == Self.high)
    }

    @Test func highWithoutExtensionIsAccepted() throws {
        // Muxers older than 14496-15:2010 end a High profile record after the PPSs.
        let record = try AVCDecoderConfigurationRecord(parsing: Self.high[..<(Self.high.count - 4)])
        #expect(record.highProfileExtension == nil)
        #expect(record.serialized() == Array(Self.high[..<(Self.high.count - 4)]))
    }

    @Test func trailingBytesAreIgnored() throws {
        let record = try AVCDecoderConfigurationRecord(parsing: (Self.baseline + [0x00, 0x00])[...])
        #expect(record.serialized() == Self.baseline)
    }

    @Test func extensionWithSPSExtensionsRoundTrips() throws {
        let ext = try AVCDecoderConfigurationRecord.HighProfileExtension(
            chromaFormat: 3, bitDepthLumaMinus8: 2, bitDepthChromaMinus8: 4,
            sequenceParameterSetExtensions: [[0x6D, 0x01, 0x02]]
        )
        let record = try AVCDecoderConfigurationRecord(
            avcProfileIndication: 122, profileCompatibility: 0, avcLevelIndication: 40, nalUnitLengthSize: 2,
            sequenceParameterSets: [[0x67, 0x7A, 0x00, 0x28], [0x67, 0x7A, 0x00, 0x28, 0x01]],
            pictureParameterSets: [[0x68, 0x01], [0x68, 0x02], [0x68, 0x03]],
            highProfileExtension: ext
        )
        let bytes = record.serialized()
        #expect(bytes[4] == 0xFD)   // lengthSizeMinusOne 1
        #expect(bytes[5] == 0xE2)   // 2 SPSs
        #expect(bytes.suffix(9) == [0xFF, 0xFA, 0xFC, 0x01, 0x00, 0x03, 0x6D, 0x01, 0x02])
        #expect(try AVCDecoderConfigurationRecord(parsing: bytes[...]) == record)
    }

    /// Drip feed: every strict prefix fails with a typed error, except — for the High record — the one that ends
    /// right after the PPSs, which is the accepted extension-less form, and those that cut into the High-profile
    /// extension: FFmpeg ignores the extension, so a cut one is dropped with a warning (since issue 12; it was
    /// `.truncated`).
    @Test(arguments: [baseline, high])
    func dripFeed(bytes: [UInt8]) throws {
        let extensionStart = bytes[1] == 100 ? bytes.count - 4 : nil
        for length in 0..<bytes.count {
            do throws(BitstreamError) {
                let record = try AVCDecoderConfigurationRecord(parsing: bytesEmbedded(Array(bytes[..<length])))
                guard let start = extensionStart, length >= start else {
                    Issue.record("prefix of \(length) bytes parsed")
                    continue
                }
                #expect(record.highProfileExtension == nil)
                #expect(record.warnings.map(\.code) == (length == start ? [] : [.truncated]))
                #expect(record.sequenceParameterSets.count == 1 && record.pictureParameterSets.count == 1)
            } catch {
                #expect(error.code == .truncated, "prefix \(length): \(error)")
            }
        }
        #expect(try AVCDecoderConfigurationRecord(parsing: bytes[...]).warnings.isEmpty)
        #expect(try AVCDecoderConfigurationRecord(parsing: bytes[...]).serialized() == bytes)
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let code: BitstreamError.Code
        let offset: Int?
        var testDescription: String { name }
    }

    /// lengthSizeMinusOne 2 (3-byte lengths) is reserved, yet FFmpeg reads it: kept, with a warning, and written back.
    @Test func reservedLengthSizeIsReadWithAWarning() throws {
        let bytes = Array(Self.baseline[..<4]) + [0xFE] + Array(Self.baseline[5...])
        let record = try AVCDecoderConfigurationRecord(parsing: bytes[...])
        #expect(record.nalUnitLengthSize == 3)
        #expect(record.warnings.map(\.syntaxElement) == ["lengthSizeMinusOne"])
        #expect(record.warnings.map(\.offset) == [4])
        #expect(record.serialized() == bytes)
    }

    static let errorCases: [ErrorCase] = [
        .init(name: "configurationVersion 0", bytes: [0x00] + baseline.dropFirst(), code: .unsupported, offset: 0),
        .init(name: "zero-length SPS", bytes: [
            0x01, 0x42, 0xC0, 0x1E, 0xFF,
            0xE1, 0x00, 0x00,                // 1 SPS of length 0
            0x00,                            // 0 PPS
        ], code: .emptyNALUnit, offset: 6),
        .init(name: "PPS length past the end", bytes: [
            0x01, 0x42, 0xC0, 0x1E, 0xFF,
            0xE0,                            // 0 SPS
            0x01, 0x00, 0x09, 0x68, 0xCE,    // 1 PPS of length 9, 2 bytes present
        ], code: .truncated, offset: 7),
    ]

    @Test(arguments: errorCases)
    func parseErrors(_ testCase: ErrorCase) {
        expectByteLayerError(testCase.code, offset: testCase.offset) {
            _ = try AVCDecoderConfigurationRecord(parsing: bytesEmbedded(testCase.bytes))
        }
    }

    @Test func reservedBitsAreNotChecked() throws {
        var bytes = Self.baseline
        bytes[4] = 0x03  // reserved bits zero, lengthSizeMinusOne 3
        bytes[5] = 0x01  // reserved bits zero, one SPS
        let record = try AVCDecoderConfigurationRecord(parsing: bytes[...])
        #expect(record.nalUnitLengthSize == 4 && record.sequenceParameterSets.count == 1)
        #expect(record.serialized() == Self.baseline)  // written back with the reserved bits set
    }

    @Test func buildFromParameterSets() throws {
        let baseline = try AVCDecoderConfigurationRecord(
            sequenceParameterSets: [[0x67, 0x42, 0xC0, 0x1E, 0xDA]], pictureParameterSets: [[0x68, 0xCE, 0x3C, 0x80]]
        )
        #expect(baseline.serialized() == Self.baseline)
        let high = try AVCDecoderConfigurationRecord(
            sequenceParameterSets: [Array(Self.high[8..<16])], pictureParameterSets: [Array(Self.high[19..<23])]
        )
        #expect(high.serialized() == Self.high)
    }

    @Test func buildReadsHighProfileFieldsFromTheSPS() throws {
        // profile 122 (High 4:2:2), then ue(v) fields: '1' sps id 0, '011' chroma_format_idc 2,
        // '00101' bit_depth_luma_minus8 4 (12-bit), '011' bit_depth_chroma_minus8 2, padding '1...'
        // bits: 1 011 00101 011 1111 → 1011 0010 | 1011 1111 = 0xB2 0xBF
        let sps: [UInt8] = [0x67, 0x7A, 0x00, 0x28, 0xB2, 0xBF]
        let record = try AVCDecoderConfigurationRecord(sequenceParameterSets: [sps], pictureParameterSets: [[0x68, 0x01]])
        let ext = try #require(record.highProfileExtension)
        #expect(ext.chromaFormat == 2 && ext.bitDepthLumaMinus8 == 4 && ext.bitDepthChromaMinus8 == 2)
        // chroma_format_idc 3 is followed by separate_colour_plane_flag before the bit depths:
        // '1' sps id, '00100' chroma 3, '0' flag, '1' luma 0, '010' chroma 1, pad '11'
        // bits: 1001 0001 | 0101 1111 → 0x91 0x5F
        let sps444: [UInt8] = [0x67, 0x7A, 0x00, 0x28, 0x91, 0x5F]
        let record444 = try AVCDecoderConfigurationRecord(sequenceParameterSets: [sps444], pictureParameterSets: [])
        #expect(record444.highProfileExtension?.chromaFormat == 3)
        #expect(record444.highProfileExtension?.bitDepthChromaMinus8 == 1)
    }

    @Test func buildErrors() {
        expectByteLayerError(.invalidValue) {
            _ = try AVCDecoderConfigurationRecord(sequenceParameterSets: [], pictureParameterSets: [[0x68]])
        }
        expectByteLayerError(.truncated) {
            _ = try AVCDecoderConfigurationRecord(sequenceParameterSets: [[0x67, 0x42]], pictureParameterSets: [])
        }
        // High profile SPS that ends before its bit depths.
        expectByteLayerError(.truncated) {
            _ = try AVCDecoderConfigurationRecord(sequenceParameterSets: [[0x67, 0x64, 0x00, 0x0D]], pictureParameterSets: [])
        }
        expectByteLayerError(.invalidLengthSize) {
            _ = try AVCDecoderConfigurationRecord(
                sequenceParameterSets: [[0x67, 0x42, 0xC0, 0x1E]], pictureParameterSets: [], nalUnitLengthSize: 3
            )
        }
        expectByteLayerError(.invalidValue) {
            _ = try AVCDecoderConfigurationRecord(
                sequenceParameterSets: [[UInt8]](repeating: [0x67, 0x42, 0xC0, 0x1E], count: 32), pictureParameterSets: []
            )
        }
        expectByteLayerError(.nalUnitTooLarge) {
            _ = try AVCDecoderConfigurationRecord(
                sequenceParameterSets: [[0x67, 0x42, 0xC0, 0x1E]], pictureParameterSets: [[UInt8](repeating: 0x68, count: 65_536)]
            )
        }
        expectByteLayerError(.invalidValue) {
            _ = try AVCDecoderConfigurationRecord(
                avcProfileIndication: 66, profileCompatibility: 0, avcLevelIndication: 30,
                sequenceParameterSets: [], pictureParameterSets: [],
                highProfileExtension: try .init(chromaFormat: 1, bitDepthLumaMinus8: 0, bitDepthChromaMinus8: 0)
            )
        }
    }
}
