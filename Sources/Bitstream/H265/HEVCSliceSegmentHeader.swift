extension HEVC {
    /// slice_type (H.265 Table 7-7).
    public enum SliceType: Int, Hashable, Sendable, CaseIterable {
        case b = 0, p = 1, i = 2

        public var name: String {
            switch self {
            case .b: "B"
            case .p: "P"
            case .i: "I"
            }
        }
    }

    /// slice_segment_header() (H.265 §7.3.6.1), read from first_slice_segment_in_pic_flag through slice_qp_delta:
    /// enough for the picture boundary, the slice type, the random-access kind, the POC LSBs and the QP. The
    /// fields after slice_qp_delta (chroma QP offsets, deblocking, entry points, extension) are not read.
    ///
    /// A dependent slice segment carries only the fields up to slice_segment_address; the rest are those of the
    /// independent segment before it, so they are nil here.
    public struct SliceSegmentHeader: Hashable, Sendable {
        /// The header up to slice_qp_delta is a few dozen bytes even with a slice-level RPS, 32 long-term entries,
        /// list modification and weights for 2 × 15 references; only this much of a NAL unit is unescaped.
        public static let maxHeaderBytes = 1024

        public var nalUnitType: NALUnitType
        public var nuhTemporalIdPlus1: UInt8
        public var firstSliceSegmentInPicFlag: Bool
        /// Present in IRAP pictures (nal_unit_type 16…23).
        public var noOutputOfPriorPicsFlag: Bool?
        public var slicePicParameterSetId: Int
        public var dependentSliceSegmentFlag = false
        public var sliceSegmentAddress = 0
        /// slice_type; nil for a dependent slice segment.
        public var sliceType: SliceType?
        public var picOutputFlag: Bool?
        public var colourPlaneId: Int?
        /// slice_pic_order_cnt_lsb; nil in IDR pictures (their POC is 0) and in dependent segments.
        public var slicePicOrderCntLsb: Int?
        public var shortTermRefPicSetSpsFlag: Bool?
        /// The slice's own st_ref_pic_set( num_short_term_ref_pic_sets ), when short_term_ref_pic_set_sps_flag is 0.
        public var shortTermRefPicSet: ShortTermRefPicSet?
        public var shortTermRefPicSetIdx: Int?
        public var numLongTermSps: Int?
        public var numLongTermPics: Int?
        public var sliceTemporalMvpEnabledFlag: Bool?
        public var sliceSaoLumaFlag: Bool?
        public var sliceSaoChromaFlag: Bool?
        public var numRefIdxActiveOverrideFlag: Bool?
        /// The active reference counts: overridden, else the PPS defaults; nil where the list is unused.
        public var numRefIdxL0ActiveMinus1: Int?
        public var numRefIdxL1ActiveMinus1: Int?
        public var mvdL1ZeroFlag: Bool?
        public var cabacInitFlag: Bool?
        public var collocatedFromL0Flag: Bool?
        public var collocatedRefIdx: Int?
        public var fiveMinusMaxNumMergeCand: Int?
        public var sliceQpDelta: Int?

        /// 26 + init_qp_minus26 of the PPS, kept so `sliceQpY` needs no lookup.
        public var initQp: Int

        /// What the parse accepted against the specification, in syntax order.
        public var warnings: [BitstreamWarning] = []

        /// SliceQpY = 26 + init_qp_minus26 + slice_qp_delta (equation 7-54); nil for a dependent slice segment.
        public var sliceQpY: Int? { sliceQpDelta.map { initQp + $0 } }
        public var isIRAP: Bool { nalUnitType.isIRAP }
        public var isIDR: Bool { nalUnitType.isIDR }
        /// 16…18: broken link access.
        public var isBLA: Bool { (16...18).contains(nalUnitType.rawValue) }
        public var isCRA: Bool { nalUnitType == .cra }

        /// Parses the header of a coded slice segment NAL unit (types 0…31, header included), looking up its PPS
        /// and SPS in `parameterSets` (absent → `.missingParameterSet`).
        public init(nalUnit: ArraySlice<UInt8>, parameterSets: ParameterSets) throws(BitstreamError) {
            let (header, rbsp) = try HEVC.split(nalUnit: nalUnit, limit: Self.maxHeaderBytes)
            guard header.nalUnitType.isVCL, !(10...15).contains(header.nalUnitType.rawValue),
                  header.nalUnitType.rawValue < 24
            else {
                throw .make(.invalidValue,
                    "nal_unit_type \(header.nalUnitType.rawValue) (\(header.nalUnitType)) is not a coded slice segment",
                    offset: 0)
            }
            guard header.nuhLayerId == 0 else {
                throw .make(.unsupported, "slice of nuh_layer_id \(header.nuhLayerId): only the base layer is read", offset: 0)
            }
            var reader = BitReader(rbsp)
            try self.init(reading: &reader, header: header, parameterSets: parameterSets)
        }

        public init(
            reading reader: inout BitReader, header: NALUnitHeader, parameterSets: ParameterSets
        ) throws(BitstreamError) {
            nalUnitType = header.nalUnitType
            nuhTemporalIdPlus1 = header.nuhTemporalIdPlus1
            firstSliceSegmentInPicFlag = try reader.readFlag()
            if header.nalUnitType.isIRAP {
                noOutputOfPriorPicsFlag = try reader.readFlag()
            }
            let ppsOffset = reader.bitOffset / 8 + 2
            slicePicParameterSetId = try reader.readUE("slice_pic_parameter_set_id", max: 63)
            let (sps, pps) = try parameterSets.active(pictureParameterSetId: slicePicParameterSetId, offset: ppsOffset)
            initQp = pps.initQp
            if sps.spsSccExtensionFlag || pps.ppsSccExtensionFlag {
                // SCC adds syntax (use_integer_mv_flag, pps_curr_pic_ref) before slice_qp_delta that is not read.
                throw .make(.unsupported, "screen content coding extensions are not read", offset: ppsOffset)
            }
            if !firstSliceSegmentInPicFlag {
                if pps.dependentSliceSegmentsEnabledFlag {
                    dependentSliceSegmentFlag = try reader.readFlag()
                }
                let addressOffset = reader.bitOffset / 8 + 2
                sliceSegmentAddress = Int(try reader.readBits(BitReader.ceilLog2(sps.picSizeInCtbsY)))
                guard sliceSegmentAddress < sps.picSizeInCtbsY else {
                    // FFmpeg: "Invalid slice segment address" — the segment has no place in the picture.
                    throw .make(.invalidValue,
                        "slice_segment_address \(sliceSegmentAddress) ≥ PicSizeInCtbsY \(sps.picSizeInCtbsY)",
                        offset: addressOffset)
                }
            }
            if dependentSliceSegmentFlag { return }
            try reader.skipBits(pps.numExtraSliceHeaderBits)  // slice_reserved_flag[ i ]
            let typeOffset = reader.bitOffset / 8 + 2
            let rawType = try reader.readUE("slice_type", max: 2)
            let type = SliceType(rawValue: rawType) ?? .i
            sliceType = type
            if header.nalUnitType.isIRAP, type != .i, header.nuhLayerId == 0 {
                // §7.4.7.1 (base layer): IRAP pictures hold I slices only. FFmpeg refuses this too.
                throw .make(.invalidValue, "\(header.nalUnitType) slice of type \(type.name)", offset: typeOffset)
            }
            if pps.outputFlagPresentFlag {
                picOutputFlag = try reader.readFlag()
            }
            if sps.separateColourPlaneFlag {
                colourPlaneId = Int(try reader.readBits(2))
            }
            var numPicTotalCurr = 0
            if !header.nalUnitType.isIDR {
                slicePicOrderCntLsb = Int(try reader.readBits(sps.log2MaxPicOrderCntLsb))
                let fromSps = try reader.readFlag()
                shortTermRefPicSetSpsFlag = fromSps
                if !fromSps {
                    let set = try ShortTermRefPicSet(
                        reading: &reader, stRpsIdx: sps.numShortTermRefPicSets,
                        numShortTermRefPicSets: sps.numShortTermRefPicSets, previous: sps.shortTermRefPicSets)
                    shortTermRefPicSet = set
                    numPicTotalCurr += set.numUsedByCurrPic
                } else {
                    guard sps.numShortTermRefPicSets > 0 else {
                        throw .make(.invalidValue, "short_term_ref_pic_set_sps_flag 1 but the SPS has no sets",
                                            offset: reader.bitOffset / 8 + 2)
                    }
                    let index = Int(try reader.readBits(BitReader.ceilLog2(sps.numShortTermRefPicSets)))
                    guard index < sps.numShortTermRefPicSets else {
                        throw .make(.invalidValue, "short_term_ref_pic_set_idx \(index) ≥ \(sps.numShortTermRefPicSets)",
                                            offset: reader.bitOffset / 8 + 2)
                    }
                    shortTermRefPicSetIdx = index
                    numPicTotalCurr += sps.shortTermRefPicSets[index].numUsedByCurrPic
                }
                if sps.longTermRefPicsPresentFlag {
                    numPicTotalCurr += try readLongTermPictures(from: &reader, sps: sps)
                }
                if sps.spsTemporalMvpEnabledFlag {
                    sliceTemporalMvpEnabledFlag = try reader.readFlag()
                }
            }
            if sps.sampleAdaptiveOffsetEnabledFlag {
                sliceSaoLumaFlag = try reader.readFlag()
                if sps.chromaArrayType != 0 {
                    sliceSaoChromaFlag = try reader.readFlag()
                }
            }
            if type != .i {
                try readInterFields(from: &reader, type: type, sps: sps, pps: pps, numPicTotalCurr: numPicTotalCurr)
            }
            let qpOffset = reader.bitOffset / 8 + 2
            let delta = try reader.readSE()
            sliceQpDelta = Int(delta)
            // SliceQpY is −QpBdOffsetY…51 (§7.4.7.1); FFmpeg refuses a slice outside it.
            let qp = initQp + Int(delta)
            guard (-sps.qpBdOffsetY...51).contains(qp) else {
                throw .make(.invalidValue, "SliceQpY \(qp) outside \(-sps.qpBdOffsetY)...51", offset: qpOffset)
            }
        }

        /// num_long_term_sps … delta_poc_msb_cycle_lt; returns the long-term pictures the current one uses.
        private mutating func readLongTermPictures(
            from reader: inout BitReader, sps: SequenceParameterSet
        ) throws(BitstreamError) -> Int {
            var sps_ = 0
            if sps.numLongTermRefPicsSps > 0 {
                sps_ = try reader.readUE("num_long_term_sps", max: sps.numLongTermRefPicsSps)
            }
            numLongTermSps = sps_
            // num_long_term_sps + num_long_term_pics ≤ MaxDpbSize − 1 (≤ 15); FFmpeg refuses more than 32 in all.
            let pics = try reader.readUE("num_long_term_pics", max: 32 - sps_)
            numLongTermPics = pics
            var used = 0
            for i in 0..<(sps_ + pics) {
                if i < sps_ {
                    var index = 0
                    if sps.numLongTermRefPicsSps > 1 {
                        index = Int(try reader.readBits(BitReader.ceilLog2(sps.numLongTermRefPicsSps)))
                        guard index < sps.numLongTermRefPicsSps else {
                            throw .make(.invalidValue, "lt_idx_sps \(index) ≥ \(sps.numLongTermRefPicsSps)",
                                                offset: reader.bitOffset / 8 + 2)
                        }
                    }
                    if sps.usedByCurrPicLtSpsFlag[index] { used += 1 }
                } else {
                    try reader.skipBits(sps.log2MaxPicOrderCntLsb)  // poc_lsb_lt[ i ]
                    if try reader.readFlag() { used += 1 }  // used_by_curr_pic_lt_flag[ i ]
                }
                if try reader.readFlag() {  // delta_poc_msb_present_flag[ i ]
                    _ = try reader.readUE()  // delta_poc_msb_cycle_lt[ i ]
                }
            }
            return used
        }

        /// The P/B part: reference counts, list modification, collocated picture, weights, merge candidates.
        private mutating func readInterFields(
            from reader: inout BitReader, type: SliceType, sps: SequenceParameterSet, pps: PictureParameterSet,
            numPicTotalCurr: Int
        ) throws(BitstreamError) {
            var l0 = pps.numRefIdxL0DefaultActiveMinus1
            var l1 = type == .b ? pps.numRefIdxL1DefaultActiveMinus1 : nil
            let override = try reader.readFlag()
            numRefIdxActiveOverrideFlag = override
            if override {
                l0 = try reader.readUE("num_ref_idx_l0_active_minus1", max: 14)
                if type == .b {
                    l1 = try reader.readUE("num_ref_idx_l1_active_minus1", max: 14)
                }
            }
            numRefIdxL0ActiveMinus1 = l0
            numRefIdxL1ActiveMinus1 = l1
            guard numPicTotalCurr > 0 else {
                // FFmpeg: "Zero refs in the frame RPS" — a P or B slice with nothing to predict from.
                throw .make(.invalidValue, "\(type.name) slice with NumPicTotalCurr 0", offset: reader.bitOffset / 8 + 2)
            }
            if pps.listsModificationPresentFlag, numPicTotalCurr > 1 {
                // ref_pic_lists_modification( ): list_entry_lX[ i ] u(v) of Ceil(Log2(NumPicTotalCurr)) bits.
                let bits = BitReader.ceilLog2(numPicTotalCurr)
                if try reader.readFlag() { try reader.skipBits(bits * (l0 + 1)) }
                if let l1, try reader.readFlag() { try reader.skipBits(bits * (l1 + 1)) }
            }
            if type == .b {
                mvdL1ZeroFlag = try reader.readFlag()
            }
            if pps.cabacInitPresentFlag {
                cabacInitFlag = try reader.readFlag()
            }
            if sliceTemporalMvpEnabledFlag == true {
                let fromL0 = type == .b ? try reader.readFlag() : true
                collocatedFromL0Flag = fromL0
                let count = fromL0 ? l0 : (l1 ?? 0)
                if count > 0 {
                    collocatedRefIdx = try reader.readUE("collocated_ref_idx", max: count)
                }
            }
            if (pps.weightedPredFlag && type == .p) || (pps.weightedBipredFlag && type == .b) {
                try Self.skipPredWeightTable(from: &reader, sps: sps, l0: l0, l1: l1)
            }
            fiveMinusMaxNumMergeCand = try reader.readUE("five_minus_max_num_merge_cand", max: 4)
        }

        /// pred_weight_table( ) (§7.3.6.3), read past. For single-layer streams without SCC no reference picture
        /// has the current picture's POC, so every luma_weight_lX_flag is coded.
        private static func skipPredWeightTable(
            from reader: inout BitReader, sps: SequenceParameterSet, l0: Int, l1: Int?
        ) throws(BitstreamError) {
            _ = try reader.readUE("luma_log2_weight_denom", max: 7)
            let chroma = sps.chromaArrayType != 0
            if chroma {
                _ = try reader.readSE("delta_chroma_log2_weight_denom", in: -7...7)
            }
            for count in [l0 + 1, l1.map { $0 + 1 } ?? 0] where count > 0 {
                var lumaFlags: [Bool] = []
                for _ in 0..<count { lumaFlags.append(try reader.readFlag()) }
                var chromaFlags = Array(repeating: false, count: count)
                if chroma {
                    for i in 0..<count { chromaFlags[i] = try reader.readFlag() }
                }
                for i in 0..<count {
                    if lumaFlags[i] {
                        _ = try reader.readSE()  // delta_luma_weight_lX
                        _ = try reader.readSE()  // luma_offset_lX
                    }
                    if chromaFlags[i] {
                        for _ in 0..<4 { _ = try reader.readSE() }  // delta_chroma_weight_lX, delta_chroma_offset_lX
                    }
                }
            }
        }
    }
}
