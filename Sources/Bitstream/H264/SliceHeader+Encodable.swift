// JSON-able description of a slice header for `rtenc inspect`, keyed by the syntax-element names of H.264 §7.3.3.

extension H264.SliceHeader: Encodable {
    enum CodingKeys: String, CodingKey {
        case nalRefIdc = "nal_ref_idc"
        case nalUnitType = "nal_unit_type"
        case firstMbInSlice = "first_mb_in_slice"
        case sliceType = "slice_type"
        case picParameterSetId = "pic_parameter_set_id"
        case colourPlaneId = "colour_plane_id"
        case frameNum = "frame_num"
        case fieldPicFlag = "field_pic_flag"
        case bottomFieldFlag = "bottom_field_flag"
        case idrPicId = "idr_pic_id"
        case picOrderCntLsb = "pic_order_cnt_lsb"
        case deltaPicOrderCntBottom = "delta_pic_order_cnt_bottom"
        case deltaPicOrderCnt = "delta_pic_order_cnt"
        case redundantPicCnt = "redundant_pic_cnt"
        case directSpatialMvPredFlag = "direct_spatial_mv_pred_flag"
        case numRefIdxActiveOverrideFlag = "num_ref_idx_active_override_flag"
        case numRefIdxL0ActiveMinus1 = "num_ref_idx_l0_active_minus1"
        case numRefIdxL1ActiveMinus1 = "num_ref_idx_l1_active_minus1"
        case refPicListModificationL0 = "ref_pic_list_modification_l0"
        case refPicListModificationL1 = "ref_pic_list_modification_l1"
        case predWeightTable = "pred_weight_table"
        case decRefPicMarking = "dec_ref_pic_marking"
        case cabacInitIdc = "cabac_init_idc"
        case sliceQpDelta = "slice_qp_delta"
        case spForSwitchFlag = "sp_for_switch_flag"
        case sliceQsDelta = "slice_qs_delta"
        case disableDeblockingFilterIdc = "disable_deblocking_filter_idc"
        case sliceAlphaC0OffsetDiv2 = "slice_alpha_c0_offset_div2"
        case sliceBetaOffsetDiv2 = "slice_beta_offset_div2"
        case sliceGroupChangeCycle = "slice_group_change_cycle"
        case warnings
        // Derived.
        case sliceTypeName = "slice_type_name"
        case qp
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(nalRefIdc, forKey: .nalRefIdc)
        try c.encode(nalUnitType.rawValue, forKey: .nalUnitType)
        try c.encode(firstMbInSlice, forKey: .firstMbInSlice)
        try c.encode(sliceTypeRaw, forKey: .sliceType)
        try c.encode(picParameterSetId, forKey: .picParameterSetId)
        try c.encodeIfPresent(colourPlaneId, forKey: .colourPlaneId)
        try c.encode(frameNum, forKey: .frameNum)
        try c.encode(fieldPicFlag, forKey: .fieldPicFlag)
        try c.encodeIfPresent(bottomFieldFlag, forKey: .bottomFieldFlag)
        try c.encodeIfPresent(idrPicId, forKey: .idrPicId)
        try c.encodeIfPresent(picOrderCntLsb, forKey: .picOrderCntLsb)
        try c.encodeIfPresent(deltaPicOrderCntBottom, forKey: .deltaPicOrderCntBottom)
        if let first = deltaPicOrderCnt0 {
            try c.encode([first] + (deltaPicOrderCnt1.map { [$0] } ?? []), forKey: .deltaPicOrderCnt)
        }
        try c.encodeIfPresent(redundantPicCnt, forKey: .redundantPicCnt)
        try c.encodeIfPresent(directSpatialMvPredFlag, forKey: .directSpatialMvPredFlag)
        try c.encodeIfPresent(numRefIdxActiveOverrideFlag, forKey: .numRefIdxActiveOverrideFlag)
        try c.encodeIfPresent(numRefIdxL0ActiveMinus1, forKey: .numRefIdxL0ActiveMinus1)
        try c.encodeIfPresent(numRefIdxL1ActiveMinus1, forKey: .numRefIdxL1ActiveMinus1)
        try c.encodeIfPresent(refPicListModificationL0, forKey: .refPicListModificationL0)
        try c.encodeIfPresent(refPicListModificationL1, forKey: .refPicListModificationL1)
        try c.encodeIfPresent(predWeightTable, forKey: .predWeightTable)
        try c.encodeIfPresent(decRefPicMarking, forKey: .decRefPicMarking)
        try c.encodeIfPresent(cabacInitIdc, forKey: .cabacInitIdc)
        try c.encode(sliceQpDelta, forKey: .sliceQpDelta)
        try c.encodeIfPresent(spForSwitchFlag, forKey: .spForSwitchFlag)
        try c.encodeIfPresent(sliceQsDelta, forKey: .sliceQsDelta)
        try c.encodeIfPresent(disableDeblockingFilterIdc, forKey: .disableDeblockingFilterIdc)
        try c.encodeIfPresent(sliceAlphaC0OffsetDiv2, forKey: .sliceAlphaC0OffsetDiv2)
        try c.encodeIfPresent(sliceBetaOffsetDiv2, forKey: .sliceBetaOffsetDiv2)
        try c.encodeIfPresent(sliceGroupChangeCycle, forKey: .sliceGroupChangeCycle)
        // Left out when empty: one per slice would drown the access units.
        if !warnings.isEmpty { try c.encode(warnings, forKey: .warnings) }
        try c.encode(sliceType.name, forKey: .sliceTypeName)
        try c.encode(qp, forKey: .qp)
    }
}
