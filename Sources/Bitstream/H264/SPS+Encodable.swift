// JSON-able descriptions for `rtenc inspect`: keys are the spec's syntax-element names (H.264 §7.3.2.1.1, §E.1),
// absent optional fields are left out, and derived values (width, height, fps …) are added under their own names.

extension H264.SequenceParameterSet: Encodable {
    enum CodingKeys: String, CodingKey {
        case profileIdc = "profile_idc"
        case constraintSet0Flag = "constraint_set0_flag"
        case constraintSet1Flag = "constraint_set1_flag"
        case constraintSet2Flag = "constraint_set2_flag"
        case constraintSet3Flag = "constraint_set3_flag"
        case constraintSet4Flag = "constraint_set4_flag"
        case constraintSet5Flag = "constraint_set5_flag"
        case levelIdc = "level_idc"
        case seqParameterSetId = "seq_parameter_set_id"
        case chromaFormatIdc = "chroma_format_idc"
        case separateColourPlaneFlag = "separate_colour_plane_flag"
        case bitDepthLumaMinus8 = "bit_depth_luma_minus8"
        case bitDepthChromaMinus8 = "bit_depth_chroma_minus8"
        case qpprimeYZeroTransformBypassFlag = "qpprime_y_zero_transform_bypass_flag"
        case seqScalingMatrixPresentFlag = "seq_scaling_matrix_present_flag"
        case seqScalingLists = "seq_scaling_lists"
        case log2MaxFrameNumMinus4 = "log2_max_frame_num_minus4"
        case picOrderCntType = "pic_order_cnt_type"
        case log2MaxPicOrderCntLsbMinus4 = "log2_max_pic_order_cnt_lsb_minus4"
        case deltaPicOrderAlwaysZeroFlag = "delta_pic_order_always_zero_flag"
        case offsetForNonRefPic = "offset_for_non_ref_pic"
        case offsetForTopToBottomField = "offset_for_top_to_bottom_field"
        case numRefFramesInPicOrderCntCycle = "num_ref_frames_in_pic_order_cnt_cycle"
        case offsetForRefFrame = "offset_for_ref_frame"
        case maxNumRefFrames = "max_num_ref_frames"
        case gapsInFrameNumValueAllowedFlag = "gaps_in_frame_num_value_allowed_flag"
        case picWidthInMbsMinus1 = "pic_width_in_mbs_minus1"
        case picHeightInMapUnitsMinus1 = "pic_height_in_map_units_minus1"
        case frameMbsOnlyFlag = "frame_mbs_only_flag"
        case mbAdaptiveFrameFieldFlag = "mb_adaptive_frame_field_flag"
        case direct8x8InferenceFlag = "direct_8x8_inference_flag"
        case frameCroppingFlag = "frame_cropping_flag"
        case frameCropLeftOffset = "frame_crop_left_offset"
        case frameCropRightOffset = "frame_crop_right_offset"
        case frameCropTopOffset = "frame_crop_top_offset"
        case frameCropBottomOffset = "frame_crop_bottom_offset"
        case vuiParametersPresentFlag = "vui_parameters_present_flag"
        case vuiParameters = "vui_parameters"
        case warnings
        // Derived.
        case profile, level, width, height, fps
        case profileLevelID = "profile_level_id"
        case chromaArrayType = "chroma_array_type"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(profileIdc, forKey: .profileIdc)
        try c.encode(constraintSet0Flag, forKey: .constraintSet0Flag)
        try c.encode(constraintSet1Flag, forKey: .constraintSet1Flag)
        try c.encode(constraintSet2Flag, forKey: .constraintSet2Flag)
        try c.encode(constraintSet3Flag, forKey: .constraintSet3Flag)
        try c.encode(constraintSet4Flag, forKey: .constraintSet4Flag)
        try c.encode(constraintSet5Flag, forKey: .constraintSet5Flag)
        try c.encode(levelIdc, forKey: .levelIdc)
        try c.encode(seqParameterSetId, forKey: .seqParameterSetId)
        try c.encode(chromaFormatIdc, forKey: .chromaFormatIdc)
        try c.encode(separateColourPlaneFlag, forKey: .separateColourPlaneFlag)
        try c.encode(bitDepthLumaMinus8, forKey: .bitDepthLumaMinus8)
        try c.encode(bitDepthChromaMinus8, forKey: .bitDepthChromaMinus8)
        try c.encode(qpprimeYZeroTransformBypassFlag, forKey: .qpprimeYZeroTransformBypassFlag)
        try c.encode(seqScalingMatrixPresentFlag, forKey: .seqScalingMatrixPresentFlag)
        try c.encodeIfPresent(seqScalingLists, forKey: .seqScalingLists)
        try c.encode(log2MaxFrameNumMinus4, forKey: .log2MaxFrameNumMinus4)
        try c.encode(picOrderCntType, forKey: .picOrderCntType)
        try c.encodeIfPresent(log2MaxPicOrderCntLsbMinus4, forKey: .log2MaxPicOrderCntLsbMinus4)
        try c.encodeIfPresent(deltaPicOrderAlwaysZeroFlag, forKey: .deltaPicOrderAlwaysZeroFlag)
        try c.encodeIfPresent(offsetForNonRefPic, forKey: .offsetForNonRefPic)
        try c.encodeIfPresent(offsetForTopToBottomField, forKey: .offsetForTopToBottomField)
        try c.encodeIfPresent(offsetForRefFrame?.count, forKey: .numRefFramesInPicOrderCntCycle)
        try c.encodeIfPresent(offsetForRefFrame, forKey: .offsetForRefFrame)
        try c.encode(maxNumRefFrames, forKey: .maxNumRefFrames)
        try c.encode(gapsInFrameNumValueAllowedFlag, forKey: .gapsInFrameNumValueAllowedFlag)
        try c.encode(picWidthInMbsMinus1, forKey: .picWidthInMbsMinus1)
        try c.encode(picHeightInMapUnitsMinus1, forKey: .picHeightInMapUnitsMinus1)
        try c.encode(frameMbsOnlyFlag, forKey: .frameMbsOnlyFlag)
        try c.encode(mbAdaptiveFrameFieldFlag, forKey: .mbAdaptiveFrameFieldFlag)
        try c.encode(direct8x8InferenceFlag, forKey: .direct8x8InferenceFlag)
        try c.encode(frameCroppingFlag, forKey: .frameCroppingFlag)
        try c.encode(frameCropLeftOffset, forKey: .frameCropLeftOffset)
        try c.encode(frameCropRightOffset, forKey: .frameCropRightOffset)
        try c.encode(frameCropTopOffset, forKey: .frameCropTopOffset)
        try c.encode(frameCropBottomOffset, forKey: .frameCropBottomOffset)
        try c.encode(vuiParametersPresentFlag, forKey: .vuiParametersPresentFlag)
        try c.encodeIfPresent(vuiParameters, forKey: .vuiParameters)
        try c.encode(warnings, forKey: .warnings)
        try c.encodeIfPresent(profile?.rawValue, forKey: .profile)
        try c.encodeIfPresent(level?.name, forKey: .level)
        try c.encode(profileLevelID, forKey: .profileLevelID)
        try c.encode(chromaArrayType, forKey: .chromaArrayType)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encodeIfPresent(fps, forKey: .fps)
    }
}

extension H264.VUIParameters: Encodable {
    enum CodingKeys: String, CodingKey {
        case aspectRatioInfoPresentFlag = "aspect_ratio_info_present_flag"
        case aspectRatioIdc = "aspect_ratio_idc"
        case sarWidth = "sar_width"
        case sarHeight = "sar_height"
        case overscanInfoPresentFlag = "overscan_info_present_flag"
        case overscanAppropriateFlag = "overscan_appropriate_flag"
        case videoSignalTypePresentFlag = "video_signal_type_present_flag"
        case videoFormat = "video_format"
        case videoFullRangeFlag = "video_full_range_flag"
        case colourDescriptionPresentFlag = "colour_description_present_flag"
        case colourPrimaries = "colour_primaries"
        case transferCharacteristics = "transfer_characteristics"
        case matrixCoefficients = "matrix_coefficients"
        case chromaLocInfoPresentFlag = "chroma_loc_info_present_flag"
        case chromaSampleLocTypeTopField = "chroma_sample_loc_type_top_field"
        case chromaSampleLocTypeBottomField = "chroma_sample_loc_type_bottom_field"
        case timingInfoPresentFlag = "timing_info_present_flag"
        case numUnitsInTick = "num_units_in_tick"
        case timeScale = "time_scale"
        case fixedFrameRateFlag = "fixed_frame_rate_flag"
        case nalHrdParametersPresentFlag = "nal_hrd_parameters_present_flag"
        case nalHrdParameters = "nal_hrd_parameters"
        case vclHrdParametersPresentFlag = "vcl_hrd_parameters_present_flag"
        case vclHrdParameters = "vcl_hrd_parameters"
        case lowDelayHrdFlag = "low_delay_hrd_flag"
        case picStructPresentFlag = "pic_struct_present_flag"
        case bitstreamRestrictionFlag = "bitstream_restriction_flag"
        case motionVectorsOverPicBoundariesFlag = "motion_vectors_over_pic_boundaries_flag"
        case maxBytesPerPicDenom = "max_bytes_per_pic_denom"
        case maxBitsPerMbDenom = "max_bits_per_mb_denom"
        case log2MaxMvLengthHorizontal = "log2_max_mv_length_horizontal"
        case log2MaxMvLengthVertical = "log2_max_mv_length_vertical"
        case maxNumReorderFrames = "max_num_reorder_frames"
        case maxDecFrameBuffering = "max_dec_frame_buffering"
        case isTruncated = "truncated"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(aspectRatioInfoPresentFlag, forKey: .aspectRatioInfoPresentFlag)
        try c.encodeIfPresent(aspectRatioIdc, forKey: .aspectRatioIdc)
        try c.encodeIfPresent(sarWidth, forKey: .sarWidth)
        try c.encodeIfPresent(sarHeight, forKey: .sarHeight)
        try c.encode(overscanInfoPresentFlag, forKey: .overscanInfoPresentFlag)
        try c.encodeIfPresent(overscanAppropriateFlag, forKey: .overscanAppropriateFlag)
        try c.encode(videoSignalTypePresentFlag, forKey: .videoSignalTypePresentFlag)
        try c.encodeIfPresent(videoFormat, forKey: .videoFormat)
        try c.encodeIfPresent(videoFullRangeFlag, forKey: .videoFullRangeFlag)
        try c.encodeIfPresent(colourDescriptionPresentFlag, forKey: .colourDescriptionPresentFlag)
        try c.encodeIfPresent(colourPrimaries, forKey: .colourPrimaries)
        try c.encodeIfPresent(transferCharacteristics, forKey: .transferCharacteristics)
        try c.encodeIfPresent(matrixCoefficients, forKey: .matrixCoefficients)
        try c.encode(chromaLocInfoPresentFlag, forKey: .chromaLocInfoPresentFlag)
        try c.encodeIfPresent(chromaSampleLocTypeTopField, forKey: .chromaSampleLocTypeTopField)
        try c.encodeIfPresent(chromaSampleLocTypeBottomField, forKey: .chromaSampleLocTypeBottomField)
        try c.encode(timingInfoPresentFlag, forKey: .timingInfoPresentFlag)
        try c.encodeIfPresent(numUnitsInTick, forKey: .numUnitsInTick)
        try c.encodeIfPresent(timeScale, forKey: .timeScale)
        try c.encodeIfPresent(fixedFrameRateFlag, forKey: .fixedFrameRateFlag)
        try c.encode(nalHrdParametersPresentFlag, forKey: .nalHrdParametersPresentFlag)
        try c.encodeIfPresent(nalHrdParameters, forKey: .nalHrdParameters)
        try c.encode(vclHrdParametersPresentFlag, forKey: .vclHrdParametersPresentFlag)
        try c.encodeIfPresent(vclHrdParameters, forKey: .vclHrdParameters)
        try c.encodeIfPresent(lowDelayHrdFlag, forKey: .lowDelayHrdFlag)
        try c.encode(picStructPresentFlag, forKey: .picStructPresentFlag)
        try c.encode(bitstreamRestrictionFlag, forKey: .bitstreamRestrictionFlag)
        try c.encodeIfPresent(motionVectorsOverPicBoundariesFlag, forKey: .motionVectorsOverPicBoundariesFlag)
        try c.encodeIfPresent(maxBytesPerPicDenom, forKey: .maxBytesPerPicDenom)
        try c.encodeIfPresent(maxBitsPerMbDenom, forKey: .maxBitsPerMbDenom)
        try c.encodeIfPresent(log2MaxMvLengthHorizontal, forKey: .log2MaxMvLengthHorizontal)
        try c.encodeIfPresent(log2MaxMvLengthVertical, forKey: .log2MaxMvLengthVertical)
        try c.encodeIfPresent(maxNumReorderFrames, forKey: .maxNumReorderFrames)
        try c.encodeIfPresent(maxDecFrameBuffering, forKey: .maxDecFrameBuffering)
        try c.encode(isTruncated, forKey: .isTruncated)
    }
}

extension H264.HRDParameters: Encodable {
    enum CodingKeys: String, CodingKey {
        case cpbCntMinus1 = "cpb_cnt_minus1"
        case bitRateScale = "bit_rate_scale"
        case cpbSizeScale = "cpb_size_scale"
        case bitRateValueMinus1 = "bit_rate_value_minus1"
        case cpbSizeValueMinus1 = "cpb_size_value_minus1"
        case cbrFlag = "cbr_flag"
        case initialCpbRemovalDelayLengthMinus1 = "initial_cpb_removal_delay_length_minus1"
        case cpbRemovalDelayLengthMinus1 = "cpb_removal_delay_length_minus1"
        case dpbOutputDelayLengthMinus1 = "dpb_output_delay_length_minus1"
        case timeOffsetLength = "time_offset_length"
        // Derived, for SchedSelIdx 0.
        case bitRate = "bit_rate"
        case cpbSize = "cpb_size"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(cpbCntMinus1, forKey: .cpbCntMinus1)
        try c.encode(bitRateScale, forKey: .bitRateScale)
        try c.encode(cpbSizeScale, forKey: .cpbSizeScale)
        // The per-SchedSelIdx arrays, as the syntax writes them.
        try c.encode(schedSel.map(\.bitRateValueMinus1), forKey: .bitRateValueMinus1)
        try c.encode(schedSel.map(\.cpbSizeValueMinus1), forKey: .cpbSizeValueMinus1)
        try c.encode(schedSel.map(\.cbrFlag), forKey: .cbrFlag)
        try c.encode(initialCpbRemovalDelayLengthMinus1, forKey: .initialCpbRemovalDelayLengthMinus1)
        try c.encode(cpbRemovalDelayLengthMinus1, forKey: .cpbRemovalDelayLengthMinus1)
        try c.encode(dpbOutputDelayLengthMinus1, forKey: .dpbOutputDelayLengthMinus1)
        try c.encode(timeOffsetLength, forKey: .timeOffsetLength)
        try c.encodeIfPresent(bitRate(), forKey: .bitRate)
        try c.encodeIfPresent(cpbSize(), forKey: .cpbSize)
    }
}
