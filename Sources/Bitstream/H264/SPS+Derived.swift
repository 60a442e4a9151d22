extension H264.SequenceParameterSet {
    /// ChromaArrayType (§7.4.2.1.1): 0 for monochrome and for 4:4:4 coded as separate colour planes.
    public var chromaArrayType: Int { separateColourPlaneFlag ? 0 : chromaFormatIdc }

    /// SubWidthC and SubHeightC (Table 6-1); 0 where there are no chroma arrays.
    public var subWidthC: Int { chromaArrayType == 0 ? 0 : (chromaFormatIdc == 3 ? 1 : 2) }
    public var subHeightC: Int { chromaArrayType == 0 ? 0 : (chromaFormatIdc == 1 ? 2 : 1) }

    public var bitDepthLuma: Int { 8 + bitDepthLumaMinus8 }
    public var bitDepthChroma: Int { 8 + bitDepthChromaMinus8 }
    /// MaxFrameNum = 2^(log2_max_frame_num_minus4 + 4).
    public var log2MaxFrameNum: Int { log2MaxFrameNumMinus4 + 4 }
    public var log2MaxPicOrderCntLsb: Int? { log2MaxPicOrderCntLsbMinus4.map { $0 + 4 } }

    public var picWidthInMbs: Int { picWidthInMbsMinus1 + 1 }
    public var picHeightInMapUnits: Int { picHeightInMapUnitsMinus1 + 1 }
    public var picSizeInMapUnits: Int { picWidthInMbs * picHeightInMapUnits }
    /// FrameHeightInMbs = (2 − frame_mbs_only_flag) · PicHeightInMapUnits.
    public var frameHeightInMbs: Int { (frameMbsOnlyFlag ? 1 : 2) * picHeightInMapUnits }

    /// CropUnitX (§7.4.2.1.1, equations 7-19 and 7-21).
    public var cropUnitX: Int { chromaArrayType == 0 ? 1 : subWidthC }
    /// CropUnitY (equations 7-20 and 7-22): doubled for field-capable streams.
    public var cropUnitY: Int { (chromaArrayType == 0 ? 1 : subHeightC) * (frameMbsOnlyFlag ? 1 : 2) }

    /// Luma width after cropping.
    public var width: Int { picWidthInMbs * 16 - cropUnitX * (frameCropLeftOffset + frameCropRightOffset) }
    /// Luma height of a frame after cropping.
    public var height: Int { frameHeightInMbs * 16 - cropUnitY * (frameCropTopOffset + frameCropBottomOffset) }
    /// Coded (uncropped) size.
    public var codedWidth: Int { picWidthInMbs * 16 }
    public var codedHeight: Int { frameHeightInMbs * 16 }

    /// Frames per second from VUI timing: time_scale ÷ (2 · num_units_in_tick), as ffprobe reports for x264 streams
    /// (one tick is a field period; §E.2.1). Nil without timing info.
    public var fps: Double? {
        guard let vui = vuiParameters, let tick = vui.numUnitsInTick, let scale = vui.timeScale, tick > 0, scale > 0
        else { return nil }
        return Double(scale) / (2 * Double(tick))
    }

    /// The 24-bit profile-level-id (RFC 6184 §8.1) this SPS announces.
    public var profileLevelID: H264.ProfileLevelID {
        let flags: [Bool] = [
            constraintSet0Flag, constraintSet1Flag, constraintSet2Flag,
            constraintSet3Flag, constraintSet4Flag, constraintSet5Flag,
        ]
        var iop: UInt8 = reservedZero2Bits & 0x03
        for (i, flag) in flags.enumerated() where flag { iop |= 0x80 >> UInt8(i) }
        return H264.ProfileLevelID(profileIdc: profileIdc, profileIop: iop, levelIdc: levelIdc)
    }
}

extension H264.SequenceParameterSet {
    public var profile: H264Profile? { profileLevelID.profile }
    public var level: H264Level? { profileLevelID.level }
}
