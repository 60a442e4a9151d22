import Bitstream
import Foundation
import Testing

@Suite struct SPSTests {
    /// x264 (ultrafast, 320x240, 30 fps) Constrained Baseline SPS, field by field:
    ///
    ///     67              forbidden_zero_bit 0, nal_ref_idc 3, nal_unit_type 7
    ///     42              profile_idc 66
    ///     c0              constraint_set0_flag 1, constraint_set1_flag 1, set2…5 0, reserved_zero_2bits 0
    ///     0d              level_idc 13
    ///     da  1|1|011|010 seq_parameter_set_id 0, log2_max_frame_num_minus4 0, pic_order_cnt_type 2,
    ///                     max_num_ref_frames 1
    ///     05 07 ec        gaps_in_frame_num_value_allowed_flag 0, pic_width_in_mbs_minus1 19 (000010100),
    ///                     pic_height_in_map_units_minus1 14 (0001111), frame_mbs_only_flag 1,
    ///                     direct_8x8_inference_flag 1, frame_cropping_flag 0, vui_parameters_present_flag 1,
    ///                     aspect_ratio_info_present_flag 1, aspect_ratio_idc 1 (8 bits across ec/04)
    ///     04 40           overscan_info_present_flag 0, video_signal_type_present_flag 0,
    ///                     chroma_loc_info_present_flag 0, timing_info_present_flag 1,
    ///     00 00 03 00 40  num_units_in_tick 1 (the 03 is emulation prevention)
    ///     00 00 0f 03     time_scale 60, fixed_frame_rate_flag 0, nal/vcl_hrd_parameters_present_flag 0,
    ///                     pic_struct_present_flag 0, bitstream_restriction_flag 1,
    ///                     motion_vectors_over_pic_boundaries_flag 1
    ///     c5 0a a8        max_bytes_per_pic_denom 0, max_bits_per_mb_denom 0, log2_max_mv_length_horizontal 9,
    ///                     log2_max_mv_length_vertical 9, max_num_reorder_frames 0, max_dec_frame_buffering 1,
    ///                     rbsp_stop_one_bit and alignment
    static let x264Baseline: [UInt8] = [
        0x67, 0x42, 0xC0, 0x0D, 0xDA, 0x05, 0x07, 0xEC, 0x04, 0x40, 0x00, 0x00, 0x03, 0x00, 0x40, 0x00, 0x00, 0x0F,
        0x03, 0xC5, 0x0A, 0xA8,
    ]
    /// x264 (veryfast, Main, 320x240, 30 fps): pic_order_cnt_type 0, 4 reference frames, B-frame reordering.
    static let x264Main: [UInt8] = [
        0x67, 0x4D, 0x40, 0x0D, 0xEC, 0xA0, 0xA0, 0xFD, 0x80, 0x88, 0x00, 0x00, 0x03, 0x00, 0x08, 0x00, 0x00, 0x03,
        0x01, 0xE0, 0x78, 0xA1, 0x4C, 0xB0,
    ]
    /// x264 (veryfast, High, 320x240, 30 fps): chroma_format_idc 1 and bit depths present.
    static let x264High: [UInt8] = [
        0x67, 0x64, 0x00, 0x0D, 0xAC, 0xD9, 0x41, 0x41, 0xFB, 0x01, 0x10, 0x00, 0x00, 0x03, 0x00, 0x10, 0x00, 0x00,
        0x03, 0x03, 0xC0, 0xF1, 0x42, 0x99, 0x60,
    ]

    struct Expected: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var profile: H264Profile
        var levelIdc: UInt8
        var picOrderCntType: Int
        var maxNumRefFrames: Int
        var width = 320
        var height = 240
        var fps: Double = 30
        var testDescription: String { name }
    }

    static let committed: [Expected] = [
        Expected(name: "baseline", bytes: x264Baseline, profile: .constrainedBaseline, levelIdc: 13,
                 picOrderCntType: 2, maxNumRefFrames: 1),
        Expected(name: "main", bytes: x264Main, profile: .main, levelIdc: 13, picOrderCntType: 0,
                 maxNumRefFrames: 4),
        Expected(name: "high", bytes: x264High, profile: .high, levelIdc: 13, picOrderCntType: 0,
                 maxNumRefFrames: 4),
    ]

    @Test(arguments: committed)
    func x264ParameterSets(_ expected: Expected) throws {
        let sps = try H264.SequenceParameterSet(nalUnit: expected.bytes[...])
        #expect(sps.profile == expected.profile)
        #expect(sps.levelIdc == expected.levelIdc)
        #expect(sps.level == .level1_3)
        #expect(sps.seqParameterSetId == 0)
        #expect(sps.chromaFormatIdc == 1)
        #expect(sps.chromaArrayType == 1)
        #expect(sps.picOrderCntType == expected.picOrderCntType)
        #expect(sps.maxNumRefFrames == expected.maxNumRefFrames)
        #expect(sps.picWidthInMbsMinus1 == 19)
        #expect(sps.picHeightInMapUnitsMinus1 == 14)
        #expect(sps.frameMbsOnlyFlag)
        #expect(!sps.frameCroppingFlag)
        #expect(sps.width == expected.width)
        #expect(sps.height == expected.height)
        #expect(sps.fps == expected.fps)
        let vui = try #require(sps.vuiParameters)
        #expect(vui.aspectRatioIdc == 1)
        #expect(vui.numUnitsInTick == 1)
        #expect(vui.timeScale == 60)
        #expect(vui.bitstreamRestrictionFlag)
        #expect(vui.maxDecFrameBuffering == expected.maxNumRefFrames)
    }

    @Test func baselineFieldByField() throws {
        let sps = try H264.SequenceParameterSet(nalUnit: Self.x264Baseline[...])
        #expect(sps.profileIdc == 66)
        #expect(sps.constraintSet0Flag && sps.constraintSet1Flag)
        #expect(!sps.constraintSet2Flag && !sps.constraintSet3Flag && !sps.constraintSet4Flag && !sps.constraintSet5Flag)
        #expect(sps.log2MaxFrameNumMinus4 == 0)
        #expect(sps.log2MaxPicOrderCntLsbMinus4 == nil)
        #expect(!sps.gapsInFrameNumValueAllowedFlag)
        #expect(sps.direct8x8InferenceFlag)
        let vui = try #require(sps.vuiParameters)
        #expect(vui.overscanInfoPresentFlag == false)
        #expect(vui.fixedFrameRateFlag == false)
        #expect(vui.nalHrdParameters == nil)
        #expect(vui.motionVectorsOverPicBoundariesFlag == true)
        #expect(vui.maxBytesPerPicDenom == 0)
        #expect(vui.log2MaxMvLengthHorizontal == 9)
        #expect(vui.log2MaxMvLengthVertical == 9)
        #expect(vui.maxNumReorderFrames == 0)
        #expect(sps.profileLevelID.hexString == "42c00d")
    }

    /// Every strict prefix of a valid SPS either fails with a typed error (cut before the picture size is known)
    /// or, cut inside the VUI, parses with the whole's size and a truncation warning (as FFmpeg keeps an SPS whose
    /// VUI it overread). Only the whole parses clean. (Until issue 12 every prefix had to fail.)
    @Test(arguments: committed)
    func dripFeed(_ expected: Expected) throws {
        let whole = try H264.SequenceParameterSet(nalUnit: expected.bytes[...])
        #expect(whole.warnings.isEmpty)
        for length in 0..<expected.bytes.count {
            do {
                let sps = try H264.SequenceParameterSet(nalUnit: expected.bytes[..<length])
                #expect(sps.vuiTruncated, "\(expected.name): prefix of \(length) bytes parsed clean")
                #expect(sps.width == whole.width && sps.height == whole.height)
            } catch {
                #expect([.truncated, .emptyNALUnit].contains(error.code), "\(error)")
            }
        }
    }

    /// Another NAL unit type is refused. A byte after the trailing bits is ignored with a warning, as FFmpeg
    /// ignores it (until issue 12 it was `.trailingData`, an error).
    @Test func rejectsOtherNALTypesAndWarnsOnTrailingGarbage() throws {
        var pps = Self.x264High
        pps[0] = 0x68
        #expect(throws: BitstreamError.self) { try H264.SequenceParameterSet(nalUnit: pps[...]) }
        let sps = try H264.SequenceParameterSet(nalUnit: (Self.x264High + [0x55])[...])
        #expect(sps.warnings.map(\.code) == [.trailingData])
        #expect(sps.vuiParameters == (try H264.SequenceParameterSet(nalUnit: Self.x264High[...])).vuiParameters)
    }

    @Test func jsonUsesSyntaxElementNames() throws {
        let sps = try H264.SequenceParameterSet(nalUnit: Self.x264High[...])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(sps)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["profile_idc"] as? Int == 100)
        #expect(object["constraint_set1_flag"] as? Bool == false)
        #expect(object["level_idc"] as? Int == 13)
        #expect(object["chroma_format_idc"] as? Int == 1)
        #expect(object["frame_crop_bottom_offset"] as? Int == 0)
        #expect(object["width"] as? Int == 320)
        #expect(object["height"] as? Int == 240)
        #expect(object["fps"] as? Double == 30)
        #expect(object["profile"] as? String == "High")
        #expect(object["level"] as? String == "1.3")
        #expect(object["profile_level_id"] as? String == "64000d")
        let vui = try #require(object["vui_parameters"] as? [String: Any])
        #expect(vui["time_scale"] as? Int == 60)
        #expect(vui["num_units_in_tick"] as? Int == 1)
        #expect(vui["sar_width"] == nil)
        #expect(vui["truncated"] as? Bool == false)
        #expect((object["warnings"] as? [Any])?.isEmpty == true)
    }
}
