import Bitstream

/// Writes an H.265 SPS with the fields of x265's 320x240 Main SPS (`HEVCFixtures.x265Main320x240`) except those a
/// test sets, so each lenient or strict case changes one syntax element. `x265:` only names where the defaults
/// come from; the builder writes every bit itself.
struct HEVCSPSBuilder {
    var width = 320
    var height = 240
    var confWin: (Int, Int, Int, Int)?
    var bitDepthMinus8 = 0
    var numUnitsInTick: UInt32? = 1
    var timeScale: UInt32 = 30
    /// Short-term RPS as (deltaPocS0 minus1 list, used flags) written explicitly (no prediction).
    var shortTermRefPicSets: [[Int]] = []
    var longTermPocLsbs: [Int]?
    var extraBitsBeforeStop = 0

    init(x265 _: [UInt8]) {}

    func with(confWin: (Int, Int, Int, Int)) -> Self { var copy = self; copy.confWin = confWin; return copy }
    func with(numUnitsInTick: UInt32?) -> Self { var copy = self; copy.numUnitsInTick = numUnitsInTick; return copy }
    func with(width: Int) -> Self { var copy = self; copy.width = width; return copy }
    func with(shortTermRefPicSets: [[Int]]) -> Self {
        var copy = self; copy.shortTermRefPicSets = shortTermRefPicSets; return copy
    }
    func with(longTermPocLsbs: [Int]) -> Self { var copy = self; copy.longTermPocLsbs = longTermPocLsbs; return copy }

    func nalUnit() throws -> [UInt8] {
        var w = BitWriter()
        w.writeBits(0, count: 4)  // sps_video_parameter_set_id
        w.writeBits(0, count: 3)  // sps_max_sub_layers_minus1
        w.writeFlag(true)  // sps_temporal_id_nesting_flag
        // profile_tier_level(1, 0): Main, compatibility flags 1 and 2, progressive/non-packed/frame-only, level 2.
        w.writeBits(0, count: 2)
        w.writeFlag(false)
        w.writeBits(bitDepthMinus8 == 0 ? 1 : 2, count: 5)
        w.writeBits(UInt64(bitDepthMinus8 == 0 ? 0x6000_0000 : 0x2000_0000), count: 32)
        w.writeBits(UInt64(0x9000_0000_0000), count: 48)
        w.writeBits(60, count: 8)
        w.writeUE(0)  // sps_seq_parameter_set_id
        w.writeUE(1)  // chroma_format_idc
        w.writeUE(width)
        w.writeUE(height)
        w.writeFlag(confWin != nil)
        if let (l, r, t, b) = confWin { w.writeUE(l); w.writeUE(r); w.writeUE(t); w.writeUE(b) }
        w.writeUE(bitDepthMinus8)
        w.writeUE(bitDepthMinus8)
        w.writeUE(4)  // log2_max_pic_order_cnt_lsb_minus4
        w.writeFlag(true)  // sps_sub_layer_ordering_info_present_flag
        w.writeUE(4); w.writeUE(2); w.writeUE(5)
        w.writeUE(0)  // log2_min_luma_coding_block_size_minus3
        w.writeUE(3)  // log2_diff_max_min_luma_coding_block_size
        w.writeUE(0)  // log2_min_luma_transform_block_size_minus2
        w.writeUE(3)  // log2_diff_max_min_luma_transform_block_size
        w.writeUE(1); w.writeUE(1)  // max_transform_hierarchy_depth_inter/intra
        w.writeFlag(false)  // scaling_list_enabled_flag
        w.writeFlag(false)  // amp_enabled_flag
        w.writeFlag(true)  // sample_adaptive_offset_enabled_flag
        w.writeFlag(false)  // pcm_enabled_flag
        w.writeUE(shortTermRefPicSets.count)
        for (index, set) in shortTermRefPicSets.enumerated() {
            if index != 0 { w.writeFlag(false) }  // inter_ref_pic_set_prediction_flag
            w.writeUE(set.count)  // num_negative_pics
            w.writeUE(0)  // num_positive_pics
            for minus1 in set { w.writeUE(minus1); w.writeFlag(true) }
        }
        w.writeFlag(longTermPocLsbs != nil)
        if let lsbs = longTermPocLsbs {
            w.writeUE(lsbs.count)
            for lsb in lsbs { w.writeBits(lsb, count: 8); w.writeFlag(true) }
        }
        w.writeFlag(true)  // sps_temporal_mvp_enabled_flag
        w.writeFlag(true)  // strong_intra_smoothing_enabled_flag
        w.writeFlag(true)  // vui_parameters_present_flag
        w.writeFlag(false); w.writeFlag(false); w.writeFlag(false); w.writeFlag(false)  // aspect, overscan, signal, chroma loc
        w.writeFlag(false); w.writeFlag(false); w.writeFlag(false); w.writeFlag(false)  // neutral, field_seq, frame_field, def disp
        w.writeFlag(numUnitsInTick != nil)
        if let numUnitsInTick {
            w.writeBits(UInt64(numUnitsInTick), count: 32)
            w.writeBits(UInt64(timeScale), count: 32)
            w.writeFlag(false)  // vui_poc_proportional_to_timing_flag
            w.writeFlag(false)  // vui_hrd_parameters_present_flag
        }
        w.writeFlag(false)  // bitstream_restriction_flag
        w.writeFlag(false)  // sps_extension_present_flag
        for _ in 0..<extraBitsBeforeStop { w.writeFlag(false) }
        w.writeTrailingBits()
        return [0x42, 0x01] + RBSP.addingEmulationPrevention(w.bytes)
    }
}
