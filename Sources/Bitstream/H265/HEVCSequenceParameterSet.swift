extension HEVC {
    /// seq_parameter_set_rbsp() (H.265 §7.3.2.2.1), VUI included (§E.2.1). Field names are the spec's syntax
    /// elements in camelCase; conditional parts are optionals or hold the value §7.4.3.2.1 infers.
    ///
    /// As strict as decoding needs and as lenient as FFmpeg (libavcodec/hevc_ps.c): what changes how the stream
    /// decodes (ids, chroma format, bit depths, POC size, block sizes, picture size, reference picture sets) is
    /// refused when out of range; what derives nothing is kept and listed in `warnings`; a VUI cut short keeps the
    /// fields before the damage. A conformance window that leaves no picture is ignored with a warning, as FFmpeg
    /// does ("Displaying the whole video surface"). The SPS extensions are noted by their flags; only the range
    /// extension's flags are read.
    public struct SequenceParameterSet: Hashable, Sendable {
        /// Sqrt(MaxLumaPs · 8) at level 6.2 (§A.4.1: no side may be longer), a bound that keeps every derived size
        /// far from overflow.
        public static let maxPicSideInLumaSamples = 16_888
        /// num_short_term_ref_pic_sets is 0…64, num_long_term_ref_pics_sps 0…32 (§7.4.3.2.1).
        public static let maxNumShortTermRefPicSets = 64
        public static let maxNumLongTermRefPicsSps = 32

        public var spsVideoParameterSetId: Int
        public var spsMaxSubLayersMinus1: Int
        public var spsTemporalIdNestingFlag: Bool
        public var profileTierLevel: ProfileTierLevel
        public var spsSeqParameterSetId: Int
        public var chromaFormatIdc: Int
        public var separateColourPlaneFlag = false
        public var picWidthInLumaSamples: Int
        public var picHeightInLumaSamples: Int
        public var conformanceWindowFlag: Bool
        /// In units of SubWidthC / SubHeightC luma samples; 0 when conformanceWindowFlag is 0.
        public var confWinLeftOffset = 0
        public var confWinRightOffset = 0
        public var confWinTopOffset = 0
        public var confWinBottomOffset = 0
        public var bitDepthLumaMinus8: Int
        public var bitDepthChromaMinus8: Int
        public var log2MaxPicOrderCntLsbMinus4: Int
        public var spsSubLayerOrderingInfoPresentFlag: Bool
        /// One entry per sub-layer 0…sps_max_sub_layers_minus1.
        public var subLayerOrderingInfo: [SubLayerOrderingInfo]
        public var log2MinLumaCodingBlockSizeMinus3: Int
        public var log2DiffMaxMinLumaCodingBlockSize: Int
        public var log2MinLumaTransformBlockSizeMinus2: Int
        public var log2DiffMaxMinLumaTransformBlockSize: Int
        public var maxTransformHierarchyDepthInter: Int
        public var maxTransformHierarchyDepthIntra: Int
        public var scalingListEnabledFlag: Bool
        public var spsScalingListDataPresentFlag = false
        public var scalingListData: ScalingListData?
        public var ampEnabledFlag: Bool
        public var sampleAdaptiveOffsetEnabledFlag: Bool
        public var pcmEnabledFlag: Bool
        public var pcmSampleBitDepthLumaMinus1: Int?
        public var pcmSampleBitDepthChromaMinus1: Int?
        public var log2MinPcmLumaCodingBlockSizeMinus3: Int?
        public var log2DiffMaxMinPcmLumaCodingBlockSize: Int?
        public var pcmLoopFilterDisabledFlag: Bool?
        /// st_ref_pic_set( i ) for i < num_short_term_ref_pic_sets; its count is num_short_term_ref_pic_sets.
        public var shortTermRefPicSets: [ShortTermRefPicSet]
        public var longTermRefPicsPresentFlag: Bool
        /// lt_ref_pic_poc_lsb_sps[ i ] and used_by_curr_pic_lt_sps_flag[ i ]; the count is num_long_term_ref_pics_sps.
        public var ltRefPicPocLsbSps: [Int] = []
        public var usedByCurrPicLtSpsFlag: [Bool] = []
        public var spsTemporalMvpEnabledFlag: Bool
        public var strongIntraSmoothingEnabledFlag: Bool
        public var vuiParametersPresentFlag: Bool
        public var vuiParameters: VUIParameters?
        public var spsExtensionPresentFlag = false
        public var spsRangeExtensionFlag = false
        public var spsMultilayerExtensionFlag = false
        public var sps3dExtensionFlag = false
        public var spsSccExtensionFlag = false
        public var spsExtension4bits: UInt8 = 0

        /// What the parse accepted against the specification, in syntax order (empty for a clean SPS).
        public var warnings: [BitstreamWarning] = []

        public var numShortTermRefPicSets: Int { shortTermRefPicSets.count }
        public var numLongTermRefPicsSps: Int { ltRefPicPocLsbSps.count }
        /// The VUI was cut short: the fields read before the damage are kept, the later ones absent.
        public var vuiTruncated: Bool { vuiParameters?.isTruncated ?? false }

        /// Parses an SPS NAL unit, header included, up to its rbsp_stop_one_bit (as FFmpeg bounds it).
        public init(nalUnit: ArraySlice<UInt8>) throws(BitstreamError) {
            var (_, reader) = try HEVC.parameterSetReader(nalUnit, expecting: .sps, name: "SPS")
            try self.init(reading: &reader)
            if !vuiTruncated, !spsExtensionPresentFlag || spsExtensionFlagsAllRead,
               let warning = HEVC.trailingBitsWarning(reader)
            {
                warnings.append(warning)
            }
        }

        /// Only the range extension (flags, no data) was present, so the RBSP must end after it.
        private var spsExtensionFlagsAllRead: Bool {
            !spsMultilayerExtensionFlag && !sps3dExtensionFlag && !spsSccExtensionFlag && spsExtension4bits == 0
        }

        public init(reading reader: inout BitReader) throws(BitstreamError) {
            spsVideoParameterSetId = Int(try reader.readBits(4))
            spsMaxSubLayersMinus1 = Int(try reader.readBits(3))
            if spsMaxSubLayersMinus1 == 7 {
                throw .make(.invalidValue, "sps_max_sub_layers_minus1 = 7 exceeds 6", offset: 0)
            }
            spsTemporalIdNestingFlag = try reader.readFlag()
            profileTierLevel = try ProfileTierLevel(reading: &reader, maxNumSubLayersMinus1: spsMaxSubLayersMinus1)
            spsSeqParameterSetId = try reader.readUE("sps_seq_parameter_set_id", max: 15)
            chromaFormatIdc = try reader.readUE("chroma_format_idc", max: 3)
            if chromaFormatIdc == 3 {
                separateColourPlaneFlag = try reader.readFlag()
            }
            let sizeOffset = reader.bitOffset / 8
            let side = Self.maxPicSideInLumaSamples
            picWidthInLumaSamples = try reader.readUE("pic_width_in_luma_samples", max: side)
            picHeightInLumaSamples = try reader.readUE("pic_height_in_luma_samples", max: side)
            guard picWidthInLumaSamples > 0, picHeightInLumaSamples > 0 else {
                throw .make(.invalidValue,
                    "picture of \(picWidthInLumaSamples)x\(picHeightInLumaSamples) luma samples", offset: sizeOffset)
            }
            conformanceWindowFlag = try reader.readFlag()
            let windowOffset = reader.bitOffset / 8
            if conformanceWindowFlag {
                confWinLeftOffset = try reader.readUE("conf_win_left_offset", max: side)
                confWinRightOffset = try reader.readUE("conf_win_right_offset", max: side)
                confWinTopOffset = try reader.readUE("conf_win_top_offset", max: side)
                confWinBottomOffset = try reader.readUE("conf_win_bottom_offset", max: side)
            }
            bitDepthLumaMinus8 = try reader.readUE("bit_depth_luma_minus8", max: 8)
            bitDepthChromaMinus8 = try reader.readUE("bit_depth_chroma_minus8", max: 8)
            log2MaxPicOrderCntLsbMinus4 = try reader.readUE("log2_max_pic_order_cnt_lsb_minus4", max: 12)
            spsSubLayerOrderingInfoPresentFlag = try reader.readFlag()
            subLayerOrderingInfo = try SubLayerOrderingInfo.readLoop(
                "sps", from: &reader, presentFlag: spsSubLayerOrderingInfoPresentFlag,
                maxSubLayersMinus1: spsMaxSubLayersMinus1, warnings: &warnings)

            // MinCbLog2SizeY 3…6 and CtbLog2SizeY ≤ 6 (§7.4.3.2.1; FFmpeg refuses larger CTBs). Locals, since the
            // derived properties need every stored one.
            let blockOffset = reader.bitOffset / 8
            log2MinLumaCodingBlockSizeMinus3 = try reader.readUE("log2_min_luma_coding_block_size_minus3", max: 3)
            log2DiffMaxMinLumaCodingBlockSize = try reader.readUE("log2_diff_max_min_luma_coding_block_size", max: 3)
            let minCbLog2 = log2MinLumaCodingBlockSizeMinus3 + 3
            let ctbLog2 = minCbLog2 + log2DiffMaxMinLumaCodingBlockSize
            guard ctbLog2 <= 6 else {
                throw .make(.invalidValue, "CtbLog2SizeY = \(ctbLog2) exceeds 6", offset: blockOffset)
            }
            log2MinLumaTransformBlockSizeMinus2 = try reader.readUE(
                "log2_min_luma_transform_block_size_minus2", max: minCbLog2 - 3)
            let minTbLog2 = log2MinLumaTransformBlockSizeMinus2 + 2
            log2DiffMaxMinLumaTransformBlockSize = try reader.readUE(
                "log2_diff_max_min_luma_transform_block_size", max: Swift.min(ctbLog2, 5) - minTbLog2)
            let depth = ctbLog2 - minTbLog2
            maxTransformHierarchyDepthInter = try reader.readUE("max_transform_hierarchy_depth_inter", max: depth)
            maxTransformHierarchyDepthIntra = try reader.readUE("max_transform_hierarchy_depth_intra", max: depth)
            let minCb = 1 << minCbLog2
            guard picWidthInLumaSamples % minCb == 0, picHeightInLumaSamples % minCb == 0 else {
                // §7.4.3.2.1; FFmpeg: "Invalid coded frame dimensions".
                throw .make(.invalidValue,
                    "\(picWidthInLumaSamples)x\(picHeightInLumaSamples) is not a multiple of MinCbSizeY \(minCb)",
                    offset: sizeOffset)
            }

            scalingListEnabledFlag = try reader.readFlag()
            if scalingListEnabledFlag {
                spsScalingListDataPresentFlag = try reader.readFlag()
                if spsScalingListDataPresentFlag {
                    scalingListData = try ScalingListData(reading: &reader)
                }
            }
            ampEnabledFlag = try reader.readFlag()
            sampleAdaptiveOffsetEnabledFlag = try reader.readFlag()
            pcmEnabledFlag = try reader.readFlag()
            if pcmEnabledFlag {
                pcmSampleBitDepthLumaMinus1 = Int(try reader.readBits(4))
                pcmSampleBitDepthChromaMinus1 = Int(try reader.readBits(4))
                log2MinPcmLumaCodingBlockSizeMinus3 = try reader.readUE("log2_min_pcm_luma_coding_block_size_minus3", max: 2)
                log2DiffMaxMinPcmLumaCodingBlockSize = try reader.readUE(
                    "log2_diff_max_min_pcm_luma_coding_block_size", max: 2)
                pcmLoopFilterDisabledFlag = try reader.readFlag()
            }
            let count = try reader.readUE("num_short_term_ref_pic_sets", max: Self.maxNumShortTermRefPicSets)
            shortTermRefPicSets = []
            shortTermRefPicSets.reserveCapacity(count)
            for index in 0..<count {
                shortTermRefPicSets.append(try ShortTermRefPicSet(
                    reading: &reader, stRpsIdx: index, numShortTermRefPicSets: count, previous: shortTermRefPicSets))
            }
            longTermRefPicsPresentFlag = try reader.readFlag()
            if longTermRefPicsPresentFlag {
                let longTerm = try reader.readUE("num_long_term_ref_pics_sps", max: Self.maxNumLongTermRefPicsSps)
                for _ in 0..<longTerm {
                    ltRefPicPocLsbSps.append(Int(try reader.readBits(log2MaxPicOrderCntLsbMinus4 + 4)))
                    usedByCurrPicLtSpsFlag.append(try reader.readFlag())
                }
            }
            spsTemporalMvpEnabledFlag = try reader.readFlag()
            strongIntraSmoothingEnabledFlag = try reader.readFlag()
            if reader.bitsLeft == 0 {
                // Cut right before the VUI flag: everything a decoder needs is known; FFmpeg reads a 0 here.
                vuiParametersPresentFlag = false
                warnings.append(BitstreamWarning(
                    code: .truncated, syntaxElement: "vui_parameters_present_flag",
                    reason: "the SPS ends before it: no VUI", offset: reader.bitOffset / 8))
                return
            }
            vuiParametersPresentFlag = try reader.readFlag()
            if vuiParametersPresentFlag {
                let vui = try VUIParameters(
                    reading: &reader, spsMaxSubLayersMinus1: spsMaxSubLayersMinus1, warnings: &warnings)
                vuiParameters = vui
                if vui.isTruncated { return }
            }
            if reader.bitsLeft == 0 {
                warnings.append(BitstreamWarning(
                    code: .truncated, syntaxElement: "sps_extension_present_flag",
                    reason: "the SPS ends before it: no extensions", offset: reader.bitOffset / 8))
            } else {
                spsExtensionPresentFlag = try reader.readFlag()
            }
            if spsExtensionPresentFlag {
                spsRangeExtensionFlag = try reader.readFlag()
                spsMultilayerExtensionFlag = try reader.readFlag()
                sps3dExtensionFlag = try reader.readFlag()
                spsSccExtensionFlag = try reader.readFlag()
                spsExtension4bits = UInt8(try reader.readBits(4))
                if spsRangeExtensionFlag {
                    // sps_range_extension( ): nine flags, none of which the slice header up to slice_qp_delta reads.
                    try reader.skipBits(9)
                }
            }
            if conformanceWindowFlag, croppedWidth <= 0 || croppedHeight <= 0 {
                warnings.append(BitstreamWarning(
                    code: .outOfRange, syntaxElement: "conf_win_left_offset",
                    reason: "the conformance window leaves \(croppedWidth)x\(croppedHeight): ignored, the whole "
                        + "\(picWidthInLumaSamples)x\(picHeightInLumaSamples) picture is output", offset: windowOffset))
            }
        }
    }
}
