extension H264 {
    /// pic_parameter_set_rbsp() (H.264 §7.3.2.2).
    public struct PictureParameterSet: Hashable, Sendable {
        /// num_slice_groups_minus1 is 0…7 (Annex A allows slice groups only in Baseline and Extended, at most 8).
        public static let maxSliceGroups = 8
        /// pic_size_in_map_units_minus1 + 1 bound for slice_group_map_type 6: the level 6.2 MaxFS (Table A-1).
        public static let maxPicSizeInMapUnits = 139_264

        /// Slice group map syntax when num_slice_groups_minus1 > 0 (§7.4.2.2).
        public enum SliceGroupMap: Hashable, Sendable {
            /// Type 0: run_length_minus1 per group.
            case interleaved(runLengthMinus1: [Int])
            /// Type 1.
            case dispersed
            /// Type 2: top_left / bottom_right per group except the last.
            case foreground(topLeft: [Int], bottomRight: [Int])
            /// Types 3, 4, 5.
            case changing(type: Int, sliceGroupChangeDirectionFlag: Bool, sliceGroupChangeRateMinus1: Int)
            /// Type 6: slice_group_id per map unit.
            case explicit(picSizeInMapUnitsMinus1: Int, sliceGroupId: [Int])

            public var sliceGroupMapType: Int {
                switch self {
                case .interleaved: 0
                case .dispersed: 1
                case .foreground: 2
                case .changing(let type, _, _): type
                case .explicit: 6
                }
            }
        }

        public var picParameterSetId: Int
        public var seqParameterSetId: Int
        public var entropyCodingModeFlag: Bool
        public var bottomFieldPicOrderInFramePresentFlag: Bool
        public var numSliceGroupsMinus1: Int
        public var sliceGroupMap: SliceGroupMap?
        public var numRefIdxL0DefaultActiveMinus1: Int
        public var numRefIdxL1DefaultActiveMinus1: Int
        public var weightedPredFlag: Bool
        public var weightedBipredIdc: Int
        public var picInitQpMinus26: Int
        public var picInitQsMinus26: Int
        public var chromaQpIndexOffset: Int
        public var deblockingFilterControlPresentFlag: Bool
        public var constrainedIntraPredFlag: Bool
        public var redundantPicCntPresentFlag: Bool
        /// The fields below follow only when more_rbsp_data(); they keep their inferred values otherwise.
        public var transform8x8ModeFlag = false
        public var picScalingMatrixPresentFlag = false
        /// 6, 8 or 12 lists when picScalingMatrixPresentFlag.
        public var picScalingLists: [ScalingList]?
        /// Equal to chroma_qp_index_offset when not present (§7.4.2.2).
        public var secondChromaQpIndexOffset: Int

        /// What the parse accepted against the specification (as FFmpeg does), in syntax order.
        public var warnings: [BitstreamWarning] = []

        /// Parses a PPS NAL unit, header byte included. The SPS it names is needed only when the PPS carries a
        /// scaling matrix with 8×8 lists (their count depends on chroma_format_idc); it is looked up in
        /// `sequenceParameterSets` then, and its absence is `.missingParameterSet`.
        public init(
            nalUnit: ArraySlice<UInt8>, sequenceParameterSets: [Int: SequenceParameterSet] = [:]
        ) throws(BitstreamError) {
            let (header, rbsp) = try RBSP.split(nalUnit: nalUnit)
            try BitstreamError.expect(.pps, in: header)
            guard let stopBit = RBSP.stopBitOffset(rbsp) else {
                throw .make(.truncated, "PPS has no rbsp_stop_one_bit (\(rbsp.count) RBSP byte(s), all zero)", offset: 1)
            }
            // Read up to the stop bit, as FFmpeg does (and as more_rbsp_data() defines the end anyway).
            var reader = BitReader(rbsp, bitCount: stopBit)
            try self.init(reading: &reader, sequenceParameterSets: sequenceParameterSets)
        }

        /// Parses the whole RBSP up to its rbsp_stop_one_bit. Bits left before the stop bit after the last field
        /// (FFmpeg ignores them) are a `trailingData` warning.
        public init(
            reading reader: inout BitReader, sequenceParameterSets: [Int: SequenceParameterSet]
        ) throws(BitstreamError) {
            picParameterSetId = try reader.readUE("pic_parameter_set_id", max: 255)
            seqParameterSetId = try reader.readUE("seq_parameter_set_id", max: 31)
            entropyCodingModeFlag = try reader.readFlag()
            bottomFieldPicOrderInFramePresentFlag = try reader.readFlag()
            numSliceGroupsMinus1 = try reader.readUE("num_slice_groups_minus1", max: Self.maxSliceGroups - 1)
            if numSliceGroupsMinus1 > 0 {
                sliceGroupMap = try Self.readSliceGroupMap(groupsMinus1: numSliceGroupsMinus1, from: &reader)
            }
            numRefIdxL0DefaultActiveMinus1 = try reader.readUE("num_ref_idx_l0_default_active_minus1", max: 31)
            numRefIdxL1DefaultActiveMinus1 = try reader.readUE("num_ref_idx_l1_default_active_minus1", max: 31)
            weightedPredFlag = try reader.readFlag()
            let bipredOffset = reader.bitOffset / 8
            weightedBipredIdc = Int(try reader.readBits(2))
            if weightedBipredIdc == 3 {
                // FFmpeg reads it unchecked; only 1 (explicit) makes a slice carry pred_weight_table().
                warnings.append(BitstreamWarning(
                    code: .reservedValue, syntaxElement: "weighted_bipred_idc",
                    reason: "3 is reserved (§7.4.2.2); kept, B slices get no explicit weights", offset: bipredOffset))
            }
            // −(26 + QpBdOffsetY) … +25; QpBdOffsetY is at most 36 (14-bit), and the SPS may not be known yet.
            // FFmpeg checks neither here: what matters is SliceQPY (the slice header checks it) and QSY (SP/SI only).
            picInitQpMinus26 = try reader.readSE("pic_init_qp_minus26", in: -62...25, orWarnInto: &warnings)
            picInitQsMinus26 = try reader.readSE("pic_init_qs_minus26", in: -26...25, orWarnInto: &warnings)
            chromaQpIndexOffset = try reader.readSE("chroma_qp_index_offset", in: -12...12)
            deblockingFilterControlPresentFlag = try reader.readFlag()
            constrainedIntraPredFlag = try reader.readFlag()
            redundantPicCntPresentFlag = try reader.readFlag()
            secondChromaQpIndexOffset = chromaQpIndexOffset
            if reader.moreRBSPData() {
                transform8x8ModeFlag = try reader.readFlag()
                picScalingMatrixPresentFlag = try reader.readFlag()
                if picScalingMatrixPresentFlag {
                    var count = 6
                    if transform8x8ModeFlag {
                        guard let sps = sequenceParameterSets[seqParameterSetId] else {
                            throw .make(.missingParameterSet,
                                "PPS \(picParameterSetId) scaling matrix needs SPS \(seqParameterSetId)",
                                offset: reader.bitOffset / 8)
                        }
                        count += sps.chromaFormatIdc != 3 ? 2 : 6
                    }
                    picScalingLists = try ScalingList.readMatrix(count: count, from: &reader)
                }
                secondChromaQpIndexOffset = try reader.readSE("second_chroma_qp_index_offset", in: -12...12)
            }
            if let stopBit = RBSP.stopBitOffset(reader.bytes), reader.bitOffset < stopBit {
                warnings.append(BitstreamWarning(
                    code: .trailingData, syntaxElement: "rbsp_trailing_bits",
                    reason: "\(stopBit - reader.bitOffset) bit(s) between the last syntax element and the "
                        + "rbsp_stop_one_bit, ignored", offset: reader.bitOffset / 8))
            }
        }

        private static func readSliceGroupMap(
            groupsMinus1: Int, from reader: inout BitReader
        ) throws(BitstreamError) -> SliceGroupMap {
            let type = try reader.readUE("slice_group_map_type", max: 6)
            switch type {
            case 0:
                var runs: [Int] = []
                for _ in 0...groupsMinus1 {
                    runs.append(try reader.readUE("run_length_minus1", max: maxPicSizeInMapUnits - 1))
                }
                return .interleaved(runLengthMinus1: runs)
            case 1:
                return .dispersed
            case 2:
                var topLeft: [Int] = []
                var bottomRight: [Int] = []
                for _ in 0..<groupsMinus1 {
                    topLeft.append(try reader.readUE("top_left", max: maxPicSizeInMapUnits - 1))
                    bottomRight.append(try reader.readUE("bottom_right", max: maxPicSizeInMapUnits - 1))
                }
                return .foreground(topLeft: topLeft, bottomRight: bottomRight)
            case 3, 4, 5:
                let direction = try reader.readFlag()
                let rate = try reader.readUE("slice_group_change_rate_minus1", max: maxPicSizeInMapUnits - 1)
                return .changing(type: type, sliceGroupChangeDirectionFlag: direction, sliceGroupChangeRateMinus1: rate)
            default:
                let sizeMinus1 = try reader.readUE("pic_size_in_map_units_minus1", max: maxPicSizeInMapUnits - 1)
                // slice_group_id is u(v) of Ceil(Log2(num_slice_groups_minus1 + 1)) bits.
                let bits = Int.bitWidth - groupsMinus1.leadingZeroBitCount
                var ids: [Int] = []
                ids.reserveCapacity(Swift.min(sizeMinus1 + 1, reader.bitsLeft / Swift.max(bits, 1) + 1))
                for _ in 0...sizeMinus1 {
                    let id = Int(try reader.readBits(bits))
                    guard id <= groupsMinus1 else {
                        throw .make(.invalidValue, "slice_group_id \(id) > \(groupsMinus1)", offset: reader.bitOffset / 8)
                    }
                    ids.append(id)
                }
                return .explicit(picSizeInMapUnitsMinus1: sizeMinus1, sliceGroupId: ids)
            }
        }
    }
}
