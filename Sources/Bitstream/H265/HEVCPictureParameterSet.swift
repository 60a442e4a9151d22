extension HEVC {
    /// pic_parameter_set_rbsp() (H.265 §7.3.2.3.1), the range extension included; the multilayer, 3D and SCC
    /// extensions are noted by their flags and not read.
    public struct PictureParameterSet: Hashable, Sendable {
        /// num_tile_columns_minus1 < PicWidthInCtbsY ≤ 16888 / 16; Table A.8 allows at most 20 × 22 tiles, and
        /// FFmpeg refuses more than HEVC_MAX_TILE_COLUMNS/ROWS (20, 22). The bound keeps the width lists small.
        public static let maxTileColumns = 20
        public static let maxTileRows = 22

        public var ppsPicParameterSetId: Int
        public var ppsSeqParameterSetId: Int
        public var dependentSliceSegmentsEnabledFlag: Bool
        public var outputFlagPresentFlag: Bool
        public var numExtraSliceHeaderBits: Int
        public var signDataHidingEnabledFlag: Bool
        public var cabacInitPresentFlag: Bool
        public var numRefIdxL0DefaultActiveMinus1: Int
        public var numRefIdxL1DefaultActiveMinus1: Int
        public var initQpMinus26: Int
        public var constrainedIntraPredFlag: Bool
        public var transformSkipEnabledFlag: Bool
        public var cuQpDeltaEnabledFlag: Bool
        public var diffCuQpDeltaDepth = 0
        public var ppsCbQpOffset: Int
        public var ppsCrQpOffset: Int
        public var ppsSliceChromaQpOffsetsPresentFlag: Bool
        public var weightedPredFlag: Bool
        public var weightedBipredFlag: Bool
        public var transquantBypassEnabledFlag: Bool
        public var tilesEnabledFlag: Bool
        public var entropyCodingSyncEnabledFlag: Bool
        public var numTileColumnsMinus1 = 0
        public var numTileRowsMinus1 = 0
        public var uniformSpacingFlag = true
        /// column_width_minus1 / row_height_minus1 when tiles are not uniformly spaced.
        public var columnWidthMinus1: [Int] = []
        public var rowHeightMinus1: [Int] = []
        public var loopFilterAcrossTilesEnabledFlag = true
        public var ppsLoopFilterAcrossSlicesEnabledFlag: Bool
        public var deblockingFilterControlPresentFlag: Bool
        public var deblockingFilterOverrideEnabledFlag = false
        public var ppsDeblockingFilterDisabledFlag = false
        public var ppsBetaOffsetDiv2 = 0
        public var ppsTcOffsetDiv2 = 0
        public var ppsScalingListDataPresentFlag: Bool
        public var scalingListData: ScalingListData?
        public var listsModificationPresentFlag: Bool
        public var log2ParallelMergeLevelMinus2: Int
        public var sliceSegmentHeaderExtensionPresentFlag: Bool
        public var ppsExtensionPresentFlag = false
        public var ppsRangeExtensionFlag = false
        public var ppsMultilayerExtensionFlag = false
        public var pps3dExtensionFlag = false
        public var ppsSccExtensionFlag = false
        public var ppsExtension4bits: UInt8 = 0
        /// pps_range_extension( ) fields the slice header reads (chroma_qp_offset_list_enabled_flag).
        public var chromaQpOffsetListEnabledFlag = false

        /// What the parse accepted against the specification, in syntax order.
        public var warnings: [BitstreamWarning] = []

        /// SliceQpY of a slice with slice_qp_delta 0: 26 + init_qp_minus26.
        public var initQp: Int { 26 + initQpMinus26 }

        /// Parses a PPS NAL unit, header included. No SPS is needed: init_qp_minus26's lower bound depends on the
        /// SPS's bit depth, so it is checked loosely here (−62, the 16-bit bound) and exactly per slice.
        public init(nalUnit: ArraySlice<UInt8>) throws(BitstreamError) {
            var (_, reader) = try HEVC.parameterSetReader(nalUnit, expecting: .pps, name: "PPS")
            try self.init(reading: &reader)
            if !ppsExtensionPresentFlag || (!ppsMultilayerExtensionFlag && !pps3dExtensionFlag && !ppsSccExtensionFlag
                && ppsExtension4bits == 0), let warning = HEVC.trailingBitsWarning(reader)
            {
                warnings.append(warning)
            }
        }

        public init(reading reader: inout BitReader) throws(BitstreamError) {
            ppsPicParameterSetId = try reader.readUE("pps_pic_parameter_set_id", max: 63)
            ppsSeqParameterSetId = try reader.readUE("pps_seq_parameter_set_id", max: 15)
            dependentSliceSegmentsEnabledFlag = try reader.readFlag()
            outputFlagPresentFlag = try reader.readFlag()
            numExtraSliceHeaderBits = Int(try reader.readBits(3))
            signDataHidingEnabledFlag = try reader.readFlag()
            cabacInitPresentFlag = try reader.readFlag()
            numRefIdxL0DefaultActiveMinus1 = try reader.readUE("num_ref_idx_l0_default_active_minus1", max: 14)
            numRefIdxL1DefaultActiveMinus1 = try reader.readUE("num_ref_idx_l1_default_active_minus1", max: 14)
            // −(26 + QpBdOffsetY)…+25; QpBdOffsetY is at most 48 (16-bit), and the SPS may not be known yet.
            initQpMinus26 = try reader.readSE("init_qp_minus26", in: -(26 + 48)...25)
            constrainedIntraPredFlag = try reader.readFlag()
            transformSkipEnabledFlag = try reader.readFlag()
            cuQpDeltaEnabledFlag = try reader.readFlag()
            if cuQpDeltaEnabledFlag {
                diffCuQpDeltaDepth = try reader.readUE("diff_cu_qp_delta_depth", max: 3)
            }
            ppsCbQpOffset = try reader.readSE("pps_cb_qp_offset", in: -12...12)
            ppsCrQpOffset = try reader.readSE("pps_cr_qp_offset", in: -12...12)
            ppsSliceChromaQpOffsetsPresentFlag = try reader.readFlag()
            weightedPredFlag = try reader.readFlag()
            weightedBipredFlag = try reader.readFlag()
            transquantBypassEnabledFlag = try reader.readFlag()
            tilesEnabledFlag = try reader.readFlag()
            entropyCodingSyncEnabledFlag = try reader.readFlag()
            if tilesEnabledFlag {
                numTileColumnsMinus1 = try reader.readUE("num_tile_columns_minus1", max: Self.maxTileColumns - 1)
                numTileRowsMinus1 = try reader.readUE("num_tile_rows_minus1", max: Self.maxTileRows - 1)
                uniformSpacingFlag = try reader.readFlag()
                if !uniformSpacingFlag {
                    let ctbs = SequenceParameterSet.maxPicSideInLumaSamples / 8
                    for _ in 0..<numTileColumnsMinus1 {
                        columnWidthMinus1.append(try reader.readUE("column_width_minus1", max: ctbs))
                    }
                    for _ in 0..<numTileRowsMinus1 {
                        rowHeightMinus1.append(try reader.readUE("row_height_minus1", max: ctbs))
                    }
                }
                loopFilterAcrossTilesEnabledFlag = try reader.readFlag()
            }
            ppsLoopFilterAcrossSlicesEnabledFlag = try reader.readFlag()
            deblockingFilterControlPresentFlag = try reader.readFlag()
            if deblockingFilterControlPresentFlag {
                deblockingFilterOverrideEnabledFlag = try reader.readFlag()
                ppsDeblockingFilterDisabledFlag = try reader.readFlag()
                if !ppsDeblockingFilterDisabledFlag {
                    ppsBetaOffsetDiv2 = try reader.readSE("pps_beta_offset_div2", in: -6...6)
                    ppsTcOffsetDiv2 = try reader.readSE("pps_tc_offset_div2", in: -6...6)
                }
            }
            ppsScalingListDataPresentFlag = try reader.readFlag()
            if ppsScalingListDataPresentFlag {
                scalingListData = try ScalingListData(reading: &reader)
            }
            listsModificationPresentFlag = try reader.readFlag()
            // Log2ParMrgLevel ≤ CtbLog2SizeY ≤ 6; FFmpeg refuses more than the CTB size.
            log2ParallelMergeLevelMinus2 = try reader.readUE("log2_parallel_merge_level_minus2", max: 4)
            sliceSegmentHeaderExtensionPresentFlag = try reader.readFlag()
            if reader.bitsLeft == 0 {
                // Old encoders end the PPS here; FFmpeg reads the flag as 0.
                return
            }
            ppsExtensionPresentFlag = try reader.readFlag()
            if ppsExtensionPresentFlag {
                ppsRangeExtensionFlag = try reader.readFlag()
                ppsMultilayerExtensionFlag = try reader.readFlag()
                pps3dExtensionFlag = try reader.readFlag()
                ppsSccExtensionFlag = try reader.readFlag()
                ppsExtension4bits = UInt8(try reader.readBits(4))
                if ppsRangeExtensionFlag {
                    try readRangeExtension(from: &reader)
                }
            }
        }

        /// pps_range_extension( ) (§7.3.2.3.2).
        private mutating func readRangeExtension(from reader: inout BitReader) throws(BitstreamError) {
            if transformSkipEnabledFlag {
                _ = try reader.readUE("log2_max_transform_skip_block_size_minus2", max: 3)
            }
            _ = try reader.readFlag()  // cross_component_prediction_enabled_flag
            chromaQpOffsetListEnabledFlag = try reader.readFlag()
            if chromaQpOffsetListEnabledFlag {
                _ = try reader.readUE("diff_cu_chroma_qp_offset_depth", max: 3)
                let length = try reader.readUE("chroma_qp_offset_list_len_minus1", max: 5)
                for _ in 0...length {
                    _ = try reader.readSE("cb_qp_offset_list", in: -12...12)
                    _ = try reader.readSE("cr_qp_offset_list", in: -12...12)
                }
            }
            _ = try reader.readUE("log2_sao_offset_scale_luma", max: 6)
            _ = try reader.readUE("log2_sao_offset_scale_chroma", max: 6)
        }
    }

    /// The parameter sets seen so far, by id, as a decoder keeps them (a set replaces the earlier one with the
    /// same id, §7.4.3).
    public struct ParameterSets: Hashable, Sendable {
        public var videoParameterSets: [Int: VideoParameterSet] = [:]
        public var sequenceParameterSets: [Int: SequenceParameterSet] = [:]
        public var pictureParameterSets: [Int: PictureParameterSet] = [:]

        public init() {}

        /// Parses a VPS, SPS or PPS NAL unit (header included) and stores it; other NAL unit types are ignored.
        /// Returns whether the NAL unit was a parameter set.
        @discardableResult
        public mutating func update(nalUnit: ArraySlice<UInt8>) throws(BitstreamError) -> Bool {
            guard let header = NALUnitHeader(nalUnit) else { return false }
            switch header.nalUnitType {
            case .vps:
                let vps = try VideoParameterSet(nalUnit: nalUnit)
                videoParameterSets[vps.vpsVideoParameterSetId] = vps
            case .sps:
                let sps = try SequenceParameterSet(nalUnit: nalUnit)
                sequenceParameterSets[sps.spsSeqParameterSetId] = sps
            case .pps:
                let pps = try PictureParameterSet(nalUnit: nalUnit)
                pictureParameterSets[pps.ppsPicParameterSetId] = pps
            default:
                return false
            }
            return true
        }

        /// The PPS with `id` and the SPS it names, or `.missingParameterSet`.
        public func active(pictureParameterSetId id: Int, offset: Int? = nil) throws(BitstreamError) -> (
            sps: SequenceParameterSet, pps: PictureParameterSet
        ) {
            guard let pps = pictureParameterSets[id] else {
                throw .make(.missingParameterSet, "slice names unknown PPS \(id)", offset: offset)
            }
            guard let sps = sequenceParameterSets[pps.ppsSeqParameterSetId] else {
                throw .make(.missingParameterSet, "PPS \(id) names unknown SPS \(pps.ppsSeqParameterSetId)", offset: offset)
            }
            return (sps, pps)
        }
    }
}
