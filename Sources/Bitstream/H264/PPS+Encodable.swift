// JSON-able description of a PPS for `rtenc inspect`, keyed by the syntax-element names of H.264 §7.3.2.2.

extension H264.PictureParameterSet: Encodable {
    enum CodingKeys: String, CodingKey {
        case picParameterSetId = "pic_parameter_set_id"
        case seqParameterSetId = "seq_parameter_set_id"
        case entropyCodingModeFlag = "entropy_coding_mode_flag"
        case bottomFieldPicOrderInFramePresentFlag = "bottom_field_pic_order_in_frame_present_flag"
        case numSliceGroupsMinus1 = "num_slice_groups_minus1"
        case sliceGroupMapType = "slice_group_map_type"
        case runLengthMinus1 = "run_length_minus1"
        case topLeft = "top_left"
        case bottomRight = "bottom_right"
        case sliceGroupChangeDirectionFlag = "slice_group_change_direction_flag"
        case sliceGroupChangeRateMinus1 = "slice_group_change_rate_minus1"
        case picSizeInMapUnitsMinus1 = "pic_size_in_map_units_minus1"
        case sliceGroupId = "slice_group_id"
        case numRefIdxL0DefaultActiveMinus1 = "num_ref_idx_l0_default_active_minus1"
        case numRefIdxL1DefaultActiveMinus1 = "num_ref_idx_l1_default_active_minus1"
        case weightedPredFlag = "weighted_pred_flag"
        case weightedBipredIdc = "weighted_bipred_idc"
        case picInitQpMinus26 = "pic_init_qp_minus26"
        case picInitQsMinus26 = "pic_init_qs_minus26"
        case chromaQpIndexOffset = "chroma_qp_index_offset"
        case deblockingFilterControlPresentFlag = "deblocking_filter_control_present_flag"
        case constrainedIntraPredFlag = "constrained_intra_pred_flag"
        case redundantPicCntPresentFlag = "redundant_pic_cnt_present_flag"
        case transform8x8ModeFlag = "transform_8x8_mode_flag"
        case picScalingMatrixPresentFlag = "pic_scaling_matrix_present_flag"
        case picScalingLists = "pic_scaling_lists"
        case secondChromaQpIndexOffset = "second_chroma_qp_index_offset"
        case warnings
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(picParameterSetId, forKey: .picParameterSetId)
        try c.encode(seqParameterSetId, forKey: .seqParameterSetId)
        try c.encode(entropyCodingModeFlag, forKey: .entropyCodingModeFlag)
        try c.encode(bottomFieldPicOrderInFramePresentFlag, forKey: .bottomFieldPicOrderInFramePresentFlag)
        try c.encode(numSliceGroupsMinus1, forKey: .numSliceGroupsMinus1)
        if let map = sliceGroupMap {
            try c.encode(map.sliceGroupMapType, forKey: .sliceGroupMapType)
            switch map {
            case .interleaved(let runs):
                try c.encode(runs, forKey: .runLengthMinus1)
            case .dispersed:
                break
            case .foreground(let topLeft, let bottomRight):
                try c.encode(topLeft, forKey: .topLeft)
                try c.encode(bottomRight, forKey: .bottomRight)
            case .changing(_, let direction, let rate):
                try c.encode(direction, forKey: .sliceGroupChangeDirectionFlag)
                try c.encode(rate, forKey: .sliceGroupChangeRateMinus1)
            case .explicit(let size, let ids):
                try c.encode(size, forKey: .picSizeInMapUnitsMinus1)
                try c.encode(ids, forKey: .sliceGroupId)
            }
        }
        try c.encode(numRefIdxL0DefaultActiveMinus1, forKey: .numRefIdxL0DefaultActiveMinus1)
        try c.encode(numRefIdxL1DefaultActiveMinus1, forKey: .numRefIdxL1DefaultActiveMinus1)
        try c.encode(weightedPredFlag, forKey: .weightedPredFlag)
        try c.encode(weightedBipredIdc, forKey: .weightedBipredIdc)
        try c.encode(picInitQpMinus26, forKey: .picInitQpMinus26)
        try c.encode(picInitQsMinus26, forKey: .picInitQsMinus26)
        try c.encode(chromaQpIndexOffset, forKey: .chromaQpIndexOffset)
        try c.encode(deblockingFilterControlPresentFlag, forKey: .deblockingFilterControlPresentFlag)
        try c.encode(constrainedIntraPredFlag, forKey: .constrainedIntraPredFlag)
        try c.encode(redundantPicCntPresentFlag, forKey: .redundantPicCntPresentFlag)
        try c.encode(transform8x8ModeFlag, forKey: .transform8x8ModeFlag)
        try c.encode(picScalingMatrixPresentFlag, forKey: .picScalingMatrixPresentFlag)
        try c.encodeIfPresent(picScalingLists, forKey: .picScalingLists)
        try c.encode(secondChromaQpIndexOffset, forKey: .secondChromaQpIndexOffset)
        try c.encode(warnings, forKey: .warnings)
    }
}
