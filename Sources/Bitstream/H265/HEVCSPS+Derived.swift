extension HEVC.SequenceParameterSet {
    /// ChromaArrayType (§7.4.3.2.1): 0 for monochrome and for 4:4:4 coded as separate colour planes.
    public var chromaArrayType: Int { separateColourPlaneFlag ? 0 : chromaFormatIdc }
    /// SubWidthC and SubHeightC (Table 6-1): 1 for monochrome and 4:4:4.
    public var subWidthC: Int { chromaFormatIdc == 1 || chromaFormatIdc == 2 ? 2 : 1 }
    public var subHeightC: Int { chromaFormatIdc == 1 ? 2 : 1 }

    public var bitDepthLuma: Int { 8 + bitDepthLumaMinus8 }
    public var bitDepthChroma: Int { 8 + bitDepthChromaMinus8 }
    /// QpBdOffsetY = 6 · bit_depth_luma_minus8.
    public var qpBdOffsetY: Int { 6 * bitDepthLumaMinus8 }
    /// MaxPicOrderCntLsb = 2^log2MaxPicOrderCntLsb.
    public var log2MaxPicOrderCntLsb: Int { log2MaxPicOrderCntLsbMinus4 + 4 }

    public var minCbLog2SizeY: Int { log2MinLumaCodingBlockSizeMinus3 + 3 }
    public var minCbSizeY: Int { 1 << minCbLog2SizeY }
    public var ctbLog2SizeY: Int { minCbLog2SizeY + log2DiffMaxMinLumaCodingBlockSize }
    public var ctbSizeY: Int { 1 << ctbLog2SizeY }
    public var minTbLog2SizeY: Int { log2MinLumaTransformBlockSizeMinus2 + 2 }
    /// PicWidthInCtbsY, PicHeightInCtbsY, PicSizeInCtbsY (equations 7-15 to 7-19).
    public var picWidthInCtbsY: Int { (picWidthInLumaSamples + ctbSizeY - 1) / ctbSizeY }
    public var picHeightInCtbsY: Int { (picHeightInLumaSamples + ctbSizeY - 1) / ctbSizeY }
    public var picSizeInCtbsY: Int { picWidthInCtbsY * picHeightInCtbsY }

    /// The size inside the conformance window, which may be ≤ 0 for a broken one (see `width`).
    var croppedWidth: Int { picWidthInLumaSamples - subWidthC * (confWinLeftOffset + confWinRightOffset) }
    var croppedHeight: Int { picHeightInLumaSamples - subHeightC * (confWinTopOffset + confWinBottomOffset) }
    /// Whether the conformance window is applied: it is ignored (with a warning) when it leaves no picture.
    public var conformanceWindowApplies: Bool { croppedWidth > 0 && croppedHeight > 0 }

    /// Luma width output: the conformance window applied (§7.4.3.2.1), as ffprobe's `width`.
    public var width: Int { conformanceWindowApplies ? croppedWidth : picWidthInLumaSamples }
    /// Luma height output.
    public var height: Int { conformanceWindowApplies ? croppedHeight : picHeightInLumaSamples }

    /// Frames per second from VUI timing: vui_time_scale ÷ vui_num_units_in_tick (in H.265 one tick is a picture
    /// period, unlike H.264's field period). Nil without timing info.
    public var fps: Double? {
        guard let vui = vuiParameters, let tick = vui.vuiNumUnitsInTick, let scale = vui.vuiTimeScale,
              tick > 0, scale > 0
        else { return nil }
        return Double(scale) / Double(tick)
    }

    /// The general profile (Annex A) by general_profile_idc, or by the compatibility flags when the idc is not a
    /// known one (§A.3: a decoder may use either).
    public var profile: HEVC.Profile? { HEVC.Profile(profileTierLevel: profileTierLevel) }
    public var tier: HEVC.Tier { profileTierLevel.generalTierFlag ? .high : .main }
    public var level: HEVC.Level? { HEVC.Level(generalLevelIdc: profileTierLevel.generalLevelIdc) }

    /// sps_max_dec_pic_buffering_minus1 + 1 of the highest sub-layer: the DPB size the stream needs.
    public var maxDecPicBuffering: Int { (subLayerOrderingInfo.last?.maxDecPicBufferingMinus1 ?? 0) + 1 }
}
