extension H264 {
    /// One step of ref_pic_list_modification() (§7.3.3.1).
    public struct RefPicListModification: Hashable, Sendable {
        /// A list can be modified at most num_ref_idx_lX_active_minus1 + 1 ≤ 32 times, plus the ending idc 3.
        public static let maxOperations = 33

        /// 0 or 1: short-term (abs_diff_pic_num_minus1 follows); 2: long-term (long_term_pic_num follows).
        public var modificationOfPicNumsIdc: Int
        public var absDiffPicNumMinus1: Int?
        public var longTermPicNum: Int?

        /// Reads ref_pic_list_modification_flag_lX and, when set, the operations up to idc 3 (not stored).
        /// Nil when the flag is 0.
        static func readList(from reader: inout BitReader) throws(BitstreamError) -> [RefPicListModification]? {
            guard try reader.readFlag() else { return nil }
            var operations: [RefPicListModification] = []
            while true {
                let idc = try reader.readUE("modification_of_pic_nums_idc", max: 5)
                switch idc {
                case 0, 1:
                    let diff = try reader.readUE("abs_diff_pic_num_minus1", max: 131_071)
                    operations.append(.init(modificationOfPicNumsIdc: idc, absDiffPicNumMinus1: diff))
                case 2:
                    let num = try reader.readUE("long_term_pic_num", max: 65_535)
                    operations.append(.init(modificationOfPicNumsIdc: idc, longTermPicNum: num))
                case 3:
                    return operations
                default:
                    // 4 and 5 belong to ref_pic_list_mvc_modification() (Annex H), not to these NAL unit types.
                    throw .make(.invalidValue, "modification_of_pic_nums_idc \(idc) outside 0…3", offset: reader.bitOffset / 8)
                }
                if operations.count >= maxOperations {
                    throw .make(.limitExceeded, "more than \(maxOperations) ref_pic_list_modification operations",
                        offset: reader.bitOffset / 8)
                }
            }
        }
    }

    /// pred_weight_table() (§7.3.3.2). Weights and offsets of references whose flag is 0 are nil.
    public struct PredWeightTable: Hashable, Sendable {
        public struct Entry: Hashable, Sendable {
            /// luma_weight_lX[i], luma_offset_lX[i]; nil when luma_weight_lX_flag is 0.
            public var lumaWeight: Int?
            public var lumaOffset: Int?
            /// chroma_weight_lX[i][0…1], chroma_offset_lX[i][0…1]; nil when chroma_weight_lX_flag is 0 or absent.
            public var chromaWeight: [Int]?
            public var chromaOffset: [Int]?
        }

        public var lumaLog2WeightDenom: Int
        public var chromaLog2WeightDenom: Int?
        public var l0: [Entry]
        public var l1: [Entry]?

        init(
            reading reader: inout BitReader, chromaArrayType: Int, numRefIdxL0ActiveMinus1: Int,
            numRefIdxL1ActiveMinus1: Int?
        ) throws(BitstreamError) {
            lumaLog2WeightDenom = try reader.readUE("luma_log2_weight_denom", max: 7)
            if chromaArrayType != 0 {
                chromaLog2WeightDenom = try reader.readUE("chroma_log2_weight_denom", max: 7)
            }
            l0 = try Self.readEntries(count: numRefIdxL0ActiveMinus1 + 1, chroma: chromaArrayType != 0, from: &reader)
            if let l1Minus1 = numRefIdxL1ActiveMinus1 {
                l1 = try Self.readEntries(count: l1Minus1 + 1, chroma: chromaArrayType != 0, from: &reader)
            }
        }

        private static func readEntries(
            count: Int, chroma: Bool, from reader: inout BitReader
        ) throws(BitstreamError) -> [Entry] {
            var entries: [Entry] = []
            for _ in 0..<count {
                var entry = Entry()
                if try reader.readFlag() {
                    entry.lumaWeight = try reader.readSE("luma_weight", in: -128...127)
                    entry.lumaOffset = try reader.readSE("luma_offset", in: -128...127)
                }
                if chroma, try reader.readFlag() {
                    var weights: [Int] = []
                    var offsets: [Int] = []
                    for _ in 0..<2 {
                        weights.append(try reader.readSE("chroma_weight", in: -128...127))
                        offsets.append(try reader.readSE("chroma_offset", in: -128...127))
                    }
                    entry.chromaWeight = weights
                    entry.chromaOffset = offsets
                }
                entries.append(entry)
            }
            return entries
        }
    }

    /// dec_ref_pic_marking() (§7.3.3.3).
    public struct DecRefPicMarking: Hashable, Sendable {
        /// Bound on memory_management_control_operation entries per slice; the spec implies no more than a few
        /// per reference picture (at most 16 frames, 32 fields), 66 leaves room for one of each kind per field.
        public static let maxOperations = 66

        public struct Operation: Hashable, Sendable {
            public var memoryManagementControlOperation: Int
            public var differenceOfPicNumsMinus1: Int?
            public var longTermPicNum: Int?
            public var longTermFrameIdx: Int?
            public var maxLongTermFrameIdxPlus1: Int?
        }

        /// IDR pictures only.
        public var noOutputOfPriorPicsFlag: Bool?
        public var longTermReferenceFlag: Bool?
        /// Non-IDR pictures only.
        public var adaptiveRefPicMarkingModeFlag: Bool?
        /// The operations before the ending 0, when adaptiveRefPicMarkingModeFlag.
        public var operations: [Operation]?

        init(reading reader: inout BitReader, idrPicFlag: Bool) throws(BitstreamError) {
            if idrPicFlag {
                noOutputOfPriorPicsFlag = try reader.readFlag()
                longTermReferenceFlag = try reader.readFlag()
                return
            }
            let adaptive = try reader.readFlag()
            adaptiveRefPicMarkingModeFlag = adaptive
            guard adaptive else { return }
            var list: [Operation] = []
            while true {
                let mmco = try reader.readUE("memory_management_control_operation", max: 6)
                if mmco == 0 { break }
                var op = Operation(memoryManagementControlOperation: mmco)
                if mmco == 1 || mmco == 3 {
                    op.differenceOfPicNumsMinus1 = try reader.readUE("difference_of_pic_nums_minus1", max: 131_071)
                }
                if mmco == 2 {
                    op.longTermPicNum = try reader.readUE("long_term_pic_num", max: 65_535)
                }
                if mmco == 3 || mmco == 6 {
                    op.longTermFrameIdx = try reader.readUE("long_term_frame_idx", max: 32)
                }
                if mmco == 4 {
                    op.maxLongTermFrameIdxPlus1 = try reader.readUE("max_long_term_frame_idx_plus1", max: 33)
                }
                list.append(op)
                if list.count > Self.maxOperations {
                    throw .make(.limitExceeded, "more than \(Self.maxOperations) memory management operations",
                        offset: reader.bitOffset / 8)
                }
            }
            operations = list
        }
    }
}

// Encodable with the syntax-element names (synthesized, so it must sit in the declaring file).

extension H264.RefPicListModification: Encodable {
    enum CodingKeys: String, CodingKey {
        case modificationOfPicNumsIdc = "modification_of_pic_nums_idc"
        case absDiffPicNumMinus1 = "abs_diff_pic_num_minus1"
        case longTermPicNum = "long_term_pic_num"
    }
}

extension H264.PredWeightTable: Encodable {
    enum CodingKeys: String, CodingKey {
        case lumaLog2WeightDenom = "luma_log2_weight_denom"
        case chromaLog2WeightDenom = "chroma_log2_weight_denom"
        case l0, l1
    }
}

extension H264.PredWeightTable.Entry: Encodable {
    enum CodingKeys: String, CodingKey {
        case lumaWeight = "luma_weight"
        case lumaOffset = "luma_offset"
        case chromaWeight = "chroma_weight"
        case chromaOffset = "chroma_offset"
    }
}

extension H264.DecRefPicMarking: Encodable {
    enum CodingKeys: String, CodingKey {
        case noOutputOfPriorPicsFlag = "no_output_of_prior_pics_flag"
        case longTermReferenceFlag = "long_term_reference_flag"
        case adaptiveRefPicMarkingModeFlag = "adaptive_ref_pic_marking_mode_flag"
        case operations = "memory_management_control_operations"
    }
}

extension H264.DecRefPicMarking.Operation: Encodable {
    enum CodingKeys: String, CodingKey {
        case memoryManagementControlOperation = "memory_management_control_operation"
        case differenceOfPicNumsMinus1 = "difference_of_pic_nums_minus1"
        case longTermPicNum = "long_term_pic_num"
        case longTermFrameIdx = "long_term_frame_idx"
        case maxLongTermFrameIdxPlus1 = "max_long_term_frame_idx_plus1"
    }
}
