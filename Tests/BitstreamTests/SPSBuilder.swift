import Bitstream

/// Writes an SPS NAL unit field by field (§7.3.2.1.1) for tests, so cases can vary one syntax element at a time.
struct SPSBuilder {
    var profileIdc = 100
    var constraintFlags = 0  // the six flags and two reserved bits as one byte
    var levelIdc = 40
    var seqParameterSetId = 0
    var chromaFormatIdc = 1
    var separateColourPlaneFlag = false
    var bitDepthLumaMinus8 = 0
    var bitDepthChromaMinus8 = 0
    /// nil: seq_scaling_matrix_present_flag 0. Else per list: nil (not present) or the delta_scale values.
    var scalingLists: [[Int]?]?
    var log2MaxFrameNumMinus4 = 0
    var picOrderCntType = 0
    var log2MaxPicOrderCntLsbMinus4 = 2
    var offsetForRefFrame: [Int] = [1, -2, 3]
    var maxNumRefFrames = 1
    var picWidthInMbsMinus1 = 119
    var picHeightInMapUnitsMinus1 = 67
    var frameMbsOnlyFlag = true
    var crop: (left: Int, right: Int, top: Int, bottom: Int)?
    /// Raw VUI bits to append after vui_parameters_present_flag = 1; nil writes flag 0.
    var vui: ((inout BitWriter) -> Void)?
    /// Ends the SPS after the cropping: no vui_parameters_present_flag, the rbsp_stop_one_bit right after.
    var omitVUIParametersPresentFlag = false

    var nalUnit: [UInt8] {
        var w = BitWriter()
        w.writeBits(profileIdc, count: 8)
        w.writeBits(constraintFlags, count: 8)
        w.writeBits(levelIdc, count: 8)
        w.writeUE(seqParameterSetId)
        if H264.SequenceParameterSet.profilesWithChromaInfo.contains(UInt8(profileIdc)) {
            w.writeUE(chromaFormatIdc)
            if chromaFormatIdc == 3 { w.writeFlag(separateColourPlaneFlag) }
            w.writeUE(bitDepthLumaMinus8)
            w.writeUE(bitDepthChromaMinus8)
            w.writeFlag(false)  // qpprime_y_zero_transform_bypass_flag
            w.writeFlag(scalingLists != nil)
            if let lists = scalingLists {
                for list in lists {
                    w.writeFlag(list != nil)
                    for delta in list ?? [] { w.writeSE(delta) }
                }
            }
        }
        w.writeUE(log2MaxFrameNumMinus4)
        w.writeUE(picOrderCntType)
        if picOrderCntType == 0 {
            w.writeUE(log2MaxPicOrderCntLsbMinus4)
        } else if picOrderCntType == 1 {
            w.writeFlag(false)  // delta_pic_order_always_zero_flag
            w.writeSE(-5)  // offset_for_non_ref_pic
            w.writeSE(7)  // offset_for_top_to_bottom_field
            w.writeUE(offsetForRefFrame.count)
            for offset in offsetForRefFrame { w.writeSE(offset) }
        }
        w.writeUE(maxNumRefFrames)
        w.writeFlag(false)  // gaps_in_frame_num_value_allowed_flag
        w.writeUE(picWidthInMbsMinus1)
        w.writeUE(picHeightInMapUnitsMinus1)
        w.writeFlag(frameMbsOnlyFlag)
        if !frameMbsOnlyFlag { w.writeFlag(true) }  // mb_adaptive_frame_field_flag
        w.writeFlag(true)  // direct_8x8_inference_flag
        w.writeFlag(crop != nil)
        if let crop {
            w.writeUE(crop.left)
            w.writeUE(crop.right)
            w.writeUE(crop.top)
            w.writeUE(crop.bottom)
        }
        if !omitVUIParametersPresentFlag {
            w.writeFlag(vui != nil)
            vui?(&w)
        }
        w.writeTrailingBits()
        return [0x67] + RBSP.addingEmulationPrevention(w.bytes)
    }
}
