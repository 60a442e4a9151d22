import Bitstream
import Testing

/// Which out-of-range values the SPS parser keeps with a warning and which it refuses: FFmpeg 5.1's line
/// (libavcodec/h264_ps.c, checked with ffprobe on each case): refuse what changes decoding, keep what derives nothing.
@Suite struct SPSLenientTests {
    /// A VUI with every group present whose fields the cases vary.
    struct VUIFields: Sendable {
        var aspectRatioIdc = 1
        var videoFormat = 5
        var chromaLoc = 0
        var numUnitsInTick: UInt64 = 1
        var timeScale: UInt64 = 60
        var cpbCntMinus1 = 0
        var denom = 0
        var mvLength = 9
        var reorder = 0
        var buffering = 1

        func write(_ w: inout BitWriter) {
            w.writeFlag(true); w.writeBits(aspectRatioIdc, count: 8)
            if aspectRatioIdc == 255 { w.writeBits(1, count: 16); w.writeBits(1, count: 16) }
            w.writeFlag(false)  // overscan_info_present_flag
            w.writeFlag(true); w.writeBits(videoFormat, count: 3); w.writeFlag(false); w.writeFlag(false)
            w.writeFlag(true); w.writeUE(chromaLoc); w.writeUE(chromaLoc)
            w.writeFlag(true); w.writeBits(numUnitsInTick, count: 32); w.writeBits(timeScale, count: 32); w.writeFlag(true)
            w.writeFlag(true)  // nal_hrd_parameters_present_flag
            w.writeUE(cpbCntMinus1); w.writeBits(0, count: 4); w.writeBits(0, count: 4)
            for _ in 0...cpbCntMinus1 { w.writeUE(999); w.writeUE(999); w.writeFlag(false) }
            w.writeBits(23, count: 5); w.writeBits(23, count: 5); w.writeBits(23, count: 5); w.writeBits(24, count: 5)
            w.writeFlag(false)  // vcl_hrd_parameters_present_flag
            w.writeFlag(false)  // low_delay_hrd_flag
            w.writeFlag(false)  // pic_struct_present_flag
            w.writeFlag(true)  // bitstream_restriction_flag
            w.writeFlag(true); w.writeUE(denom); w.writeUE(denom); w.writeUE(mvLength); w.writeUE(mvLength)
            w.writeUE(reorder); w.writeUE(buffering)
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var vui: VUIFields
        /// (syntax element, code) of each warning, in order; nil: the SPS is refused with `.invalidValue`.
        var warnings: [(String, String)]?
        var testDescription: String { name }
    }

    static func vui(_ change: (inout VUIFields) -> Void) -> VUIFields {
        var fields = VUIFields()
        change(&fields)
        return fields
    }

    static let cases: [Case] = [
        Case(name: "clean", vui: VUIFields(), warnings: []),
        // OpenH264 writes 16; FFmpeg reads these unchecked.
        Case(name: "log2_max_mv_length 16", vui: vui { $0.mvLength = 16 },
             warnings: [("log2_max_mv_length_horizontal", "outOfRange"), ("log2_max_mv_length_vertical", "outOfRange")]),
        Case(name: "log2_max_mv_length 40", vui: vui { $0.mvLength = 40 },
             warnings: [("log2_max_mv_length_horizontal", "outOfRange"), ("log2_max_mv_length_vertical", "outOfRange")]),
        Case(name: "max_bytes/bits denom 20", vui: vui { $0.denom = 20 },
             warnings: [("max_bytes_per_pic_denom", "outOfRange"), ("max_bits_per_mb_denom", "outOfRange")]),
        Case(name: "max_dec_frame_buffering 40", vui: vui { $0.buffering = 40 },
             warnings: [("max_dec_frame_buffering", "outOfRange")]),
        // FFmpeg: "Clipping illegal num_reorder_frames 17", and decodes.
        Case(name: "max_num_reorder_frames 17", vui: vui { $0.reorder = 17; $0.buffering = 17 },
             warnings: [("max_num_reorder_frames", "outOfRange"), ("max_dec_frame_buffering", "outOfRange")]),
        Case(name: "reorder > buffering", vui: vui { $0.reorder = 3 }, warnings: [("max_num_reorder_frames", "outOfRange")]),
        Case(name: "chroma_sample_loc_type 9", vui: vui { $0.chromaLoc = 9 },
             warnings: [("chroma_sample_loc_type_top_field", "outOfRange"),
                        ("chroma_sample_loc_type_bottom_field", "outOfRange")]),
        Case(name: "video_format 7", vui: vui { $0.videoFormat = 7 }, warnings: [("video_format", "reservedValue")]),
        // FFmpeg 5.1 refuses this one ("illegal aspect ratio"); 6.0 and later warn, as here.
        Case(name: "aspect_ratio_idc 100", vui: vui { $0.aspectRatioIdc = 100 },
             warnings: [("aspect_ratio_idc", "reservedValue")]),
        Case(name: "extended SAR", vui: vui { $0.aspectRatioIdc = 255 }, warnings: []),
        // FFmpeg: "time_scale/num_units_in_tick invalid", and decodes without a frame rate.
        Case(name: "num_units_in_tick 0", vui: vui { $0.numUnitsInTick = 0 }, warnings: [("num_units_in_tick", "outOfRange")]),
        Case(name: "time_scale 0", vui: vui { $0.timeScale = 0 }, warnings: [("time_scale", "outOfRange")]),
        // FFmpeg: "cpb_count 41 invalid", SPS refused.
        Case(name: "cpb_cnt_minus1 40", vui: vui { $0.cpbCntMinus1 = 40 }, warnings: nil),
    ]

    @Test(arguments: cases)
    func keepOrRefuse(_ testCase: Case) throws {
        var builder = SPSBuilder()
        builder.vui = { w in testCase.vui.write(&w) }
        guard let expected = testCase.warnings else {
            #expect(throws: BitstreamError.self) { try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...]) }
            do {
                _ = try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...])
            } catch {
                #expect(error.code == .invalidValue)
            }
            return
        }
        let sps = try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...])
        #expect(sps.warnings.map(\.syntaxElement) == expected.map(\.0), "\(sps.warnings)")
        #expect(sps.warnings.map(\.code.name) == expected.map(\.1))
        #expect(!sps.vuiTruncated)
        #expect(sps.width == 1920 && sps.height == 1088)
        // Kept as read.
        let vui = try #require(sps.vuiParameters)
        #expect(vui.log2MaxMvLengthHorizontal == testCase.vui.mvLength)
        #expect(vui.maxDecFrameBuffering == testCase.vui.buffering)
        #expect(vui.maxNumReorderFrames == testCase.vui.reorder)
        #expect(vui.chromaSampleLocTypeTopField == testCase.vui.chromaLoc)
        #expect(vui.aspectRatioIdc == UInt8(testCase.vui.aspectRatioIdc))
        #expect(vui.numUnitsInTick.map(UInt64.init) == testCase.vui.numUnitsInTick)
        if testCase.vui.numUnitsInTick == 0 || testCase.vui.timeScale == 0 {
            #expect(sps.fps == nil)
        }
        for warning in sps.warnings {
            #expect(warning.description.hasPrefix(warning.syntaxElement + ": "))
            #expect(warning.offset != nil)
        }
    }

    /// Bits between the last field and the rbsp_stop_one_bit, or a byte after the trailing bits: FFmpeg reads
    /// the SPS and ignores them; so does this parser, with a warning.
    @Test func trailingDataIsAWarning() throws {
        var builder = SPSBuilder()
        builder.vui = { w in VUIFields().write(&w) }
        let clean = try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...])
        for extra in [[0x55], [0x00, 0x80], [0x01]] as [[UInt8]] {
            let sps = try H264.SequenceParameterSet(nalUnit: (builder.nalUnit + extra)[...])
            #expect(sps.warnings.map(\.code) == [.trailingData], "\(extra): \(sps.warnings)")
            #expect(sps.vuiParameters == clean.vuiParameters)
            #expect(sps.width == clean.width)
        }
    }

    /// What changes how the stream decodes is still refused.
    @Test func decodingFieldsAreStillRefused() {
        for mutate in [
            { (b: inout SPSBuilder) in b.seqParameterSetId = 32 },
            { (b: inout SPSBuilder) in b.chromaFormatIdc = 4 },
            { (b: inout SPSBuilder) in b.bitDepthLumaMinus8 = 7 },
            { (b: inout SPSBuilder) in b.log2MaxFrameNumMinus4 = 13 },
            { (b: inout SPSBuilder) in b.log2MaxPicOrderCntLsbMinus4 = 13 },
            { (b: inout SPSBuilder) in b.maxNumRefFrames = 17 },
            { (b: inout SPSBuilder) in b.crop = (0, 0, 0, 544) },
        ] {
            var builder = SPSBuilder()
            builder.vui = { w in VUIFields().write(&w) }
            mutate(&builder)
            #expect(throws: BitstreamError.self) { try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...]) }
        }
    }

    /// An SPS that ends right after the cropping (its rbsp_stop_one_bit where vui_parameters_present_flag should
    /// be): the size is known, so it is kept with a truncation warning, as libwebrtc and mediacommon read it.
    @Test func endingBeforeTheVUIFlagKeepsTheSize() throws {
        var builder = SPSBuilder()
        builder.crop = (0, 0, 0, 4)
        builder.omitVUIParametersPresentFlag = true
        let sps = try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...])
        #expect(sps.width == 1920 && sps.height == 1080)
        #expect(sps.vuiTruncated)
        #expect(!sps.vuiParametersPresentFlag && sps.vuiParameters == nil)
        #expect(sps.warnings.map(\.syntaxElement) == ["vui_parameters_present_flag"])
    }
}
