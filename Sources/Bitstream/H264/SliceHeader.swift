extension H264 {
    /// slice_header() (H.264 §7.3.3) of a coded slice (nal_unit_type 1, 2 or 5), read up to and including the
    /// deblocking and slice-group fields, i.e. everything before slice_data().
    public struct SliceHeader: Hashable, Sendable {
        /// A slice header is a few dozen bytes; the longest legal one (32+32 weighted references, 64 MMCOs) stays
        /// well under this many RBSP bytes, so only this much of a NAL unit is unescaped.
        public static let maxHeaderBytes = 4096

        public var nalRefIdc: UInt8
        public var nalUnitType: NALUnitType
        public var firstMbInSlice: Int
        /// slice_type as coded, 0…9.
        public var sliceTypeRaw: Int
        public var picParameterSetId: Int
        public var colourPlaneId: Int?
        public var frameNum: Int
        public var fieldPicFlag = false
        /// Present only when fieldPicFlag.
        public var bottomFieldFlag: Bool?
        /// Present only in IDR slices.
        public var idrPicId: Int?
        public var picOrderCntLsb: Int?
        public var deltaPicOrderCntBottom: Int?
        /// delta_pic_order_cnt[0] and [1]; absent elements are nil (inferred 0).
        public var deltaPicOrderCnt0: Int?
        public var deltaPicOrderCnt1: Int?
        public var redundantPicCnt: Int?
        public var directSpatialMvPredFlag: Bool?
        public var numRefIdxActiveOverrideFlag: Bool?
        /// The active counts: overridden, else the PPS defaults (§7.4.3); 0 where the list is unused.
        public var numRefIdxL0ActiveMinus1: Int?
        public var numRefIdxL1ActiveMinus1: Int?
        public var refPicListModificationL0: [RefPicListModification]?
        public var refPicListModificationL1: [RefPicListModification]?
        public var predWeightTable: PredWeightTable?
        public var decRefPicMarking: DecRefPicMarking?
        public var cabacInitIdc: Int?
        public var sliceQpDelta: Int
        public var spForSwitchFlag: Bool?
        public var sliceQsDelta: Int?
        public var disableDeblockingFilterIdc: Int?
        public var sliceAlphaC0OffsetDiv2: Int?
        public var sliceBetaOffsetDiv2: Int?
        public var sliceGroupChangeCycle: Int?

        /// pic_init_qp_minus26 of the PPS, kept so `qp` needs no lookup.
        public var picInitQpMinus26: Int

        /// What the parse accepted against the specification (as FFmpeg's h264_slice.c does), in syntax order.
        public var warnings: [BitstreamWarning] = []

        public var sliceType: SliceType { SliceType(sliceType: sliceTypeRaw) ?? .i }
        /// IdrPicFlag (equation 7-1).
        public var idrPicFlag: Bool { nalUnitType == .idr }
        /// SliceQPY = 26 + pic_init_qp_minus26 + slice_qp_delta (equation 7-30).
        public var qp: Int { 26 + picInitQpMinus26 + sliceQpDelta }

        /// Parses the slice header of a coded slice NAL unit (header byte included), looking up its PPS and SPS in
        /// `parameterSets` (absent → `.missingParameterSet`). Only the first `maxHeaderBytes` RBSP bytes are read.
        public init(nalUnit: ArraySlice<UInt8>, parameterSets: ParameterSets) throws(BitstreamError) {
            // Most headers fit `typicalHeaderBytes`: unescape that much first, and all of `maxHeaderBytes` only when
            // the header runs past it. Same result either way (the bits read are the same); unescaping 4 KiB of
            // every slice showed up in profiles of `rtenc send`.
            do throws(BitstreamError) {
                try self.init(nalUnit: nalUnit, parameterSets: parameterSets, limit: Self.typicalHeaderBytes)
            } catch where error.code == .truncated && nalUnit.count > Self.typicalHeaderBytes {
                try self.init(nalUnit: nalUnit, parameterSets: parameterSets, limit: Self.maxHeaderBytes)
            }
        }

        /// RBSP bytes unescaped on the first try: a few times the usual slice header.
        static let typicalHeaderBytes = 256

        private init(nalUnit: ArraySlice<UInt8>, parameterSets: ParameterSets, limit: Int) throws(BitstreamError) {
            let (header, rbsp) = try RBSP.split(nalUnit: nalUnit, limit: limit)
            switch header.nalUnitType.rawValue {
            case 1, 2, 5: break
            default:
                throw .make(.invalidValue,
                    "nal_unit_type \(header.nalUnitType.rawValue) has no slice_header()", offset: 0)
            }
            var reader = BitReader(rbsp)
            try self.init(reading: &reader, header: header, parameterSets: parameterSets)
        }

        public init(
            reading reader: inout BitReader, header: NALUnitHeader, parameterSets: ParameterSets
        ) throws(BitstreamError) {
            nalRefIdc = header.nalRefIdc
            nalUnitType = header.nalUnitType
            firstMbInSlice = try reader.readUE("first_mb_in_slice", max: SequenceParameterSet.maxPicWidthInMbs
                * SequenceParameterSet.maxPicHeightInMapUnits * 2)
            sliceTypeRaw = try reader.readUE("slice_type", max: 9)
            let sliceType = SliceType(sliceType: sliceTypeRaw) ?? .i
            let ppsOffset = reader.bitOffset / 8
            picParameterSetId = try reader.readUE("pic_parameter_set_id", max: 255)
            guard let pps = parameterSets.pictureParameterSets[picParameterSetId] else {
                throw .make(.missingParameterSet, "slice names unknown PPS \(picParameterSetId)", offset: ppsOffset)
            }
            guard let sps = parameterSets.sequenceParameterSets[pps.seqParameterSetId] else {
                throw .make(.missingParameterSet,
                    "PPS \(picParameterSetId) names unknown SPS \(pps.seqParameterSetId)", offset: ppsOffset)
            }
            picInitQpMinus26 = pps.picInitQpMinus26
            let idr = header.nalUnitType == .idr
            if idr, sliceType != .i, sliceType != .si {
                throw .make(.invalidValue, "IDR slice of type \(sliceType.name)", offset: 0)
            }

            if sps.separateColourPlaneFlag {
                colourPlaneId = Int(try reader.readBits(2))
            }
            frameNum = Int(try reader.readBits(sps.log2MaxFrameNum))
            if !sps.frameMbsOnlyFlag {
                fieldPicFlag = try reader.readFlag()
                if fieldPicFlag {
                    bottomFieldFlag = try reader.readFlag()
                }
            }
            // first_mb_in_slice · (1 + MbaffFrameFlag) ≤ PicSizeInMbs − 1 (§7.4.3); FFmpeg refuses a slice past the
            // picture too ("first_mb_in_slice overflow").
            let mbaffFrame = sps.mbAdaptiveFrameFieldFlag && !fieldPicFlag
            let picSizeInMbs = sps.picWidthInMbs * sps.frameHeightInMbs / (fieldPicFlag ? 2 : 1)
            guard firstMbInSlice * (mbaffFrame ? 2 : 1) < picSizeInMbs else {
                throw .make(.invalidValue,
                    "first_mb_in_slice \(firstMbInSlice) is past the picture's \(picSizeInMbs) macroblocks", offset: 0)
            }
            if idr {
                // Tells consecutive IDRs apart; FFmpeg reads it unchecked.
                idrPicId = try reader.readUE("idr_pic_id", max: 65535, orWarnInto: &warnings)
            }
            let int32 = Int(Int32.min + 1)...Int(Int32.max)
            if sps.picOrderCntType == 0, let lsbBits = sps.log2MaxPicOrderCntLsb {
                picOrderCntLsb = Int(try reader.readBits(lsbBits))
                if pps.bottomFieldPicOrderInFramePresentFlag, !fieldPicFlag {
                    deltaPicOrderCntBottom = try reader.readSE("delta_pic_order_cnt_bottom", in: int32)
                }
            }
            if sps.picOrderCntType == 1, sps.deltaPicOrderAlwaysZeroFlag != true {
                deltaPicOrderCnt0 = try reader.readSE("delta_pic_order_cnt[0]", in: int32)
                if pps.bottomFieldPicOrderInFramePresentFlag, !fieldPicFlag {
                    deltaPicOrderCnt1 = try reader.readSE("delta_pic_order_cnt[1]", in: int32)
                }
            }
            if pps.redundantPicCntPresentFlag {
                redundantPicCnt = try reader.readUE("redundant_pic_cnt", max: 127, orWarnInto: &warnings)
            }
            if sliceType == .b {
                directSpatialMvPredFlag = try reader.readFlag()
            }
            if sliceType == .p || sliceType == .sp || sliceType == .b {
                let override = try reader.readFlag()
                numRefIdxActiveOverrideFlag = override
                // 0…15 for frames, 0…31 for fields (§7.4.3).
                let maxIndex = fieldPicFlag ? 31 : 15
                if override {
                    numRefIdxL0ActiveMinus1 = try reader.readUE("num_ref_idx_l0_active_minus1", max: maxIndex)
                    if sliceType == .b {
                        numRefIdxL1ActiveMinus1 = try reader.readUE("num_ref_idx_l1_active_minus1", max: maxIndex)
                    }
                } else {
                    numRefIdxL0ActiveMinus1 = pps.numRefIdxL0DefaultActiveMinus1
                    if sliceType == .b {
                        numRefIdxL1ActiveMinus1 = pps.numRefIdxL1DefaultActiveMinus1
                    }
                }
            }
            if !sliceType.isIntra {
                refPicListModificationL0 = try RefPicListModification.readList(from: &reader)
                if sliceType == .b {
                    refPicListModificationL1 = try RefPicListModification.readList(from: &reader)
                }
            }
            if (pps.weightedPredFlag && sliceType.isPredictive) || (pps.weightedBipredIdc == 1 && sliceType == .b) {
                predWeightTable = try PredWeightTable(
                    reading: &reader, chromaArrayType: sps.chromaArrayType,
                    numRefIdxL0ActiveMinus1: numRefIdxL0ActiveMinus1 ?? 0,
                    numRefIdxL1ActiveMinus1: sliceType == .b ? numRefIdxL1ActiveMinus1 : nil)
            }
            if header.nalRefIdc != 0 {
                decRefPicMarking = try DecRefPicMarking(reading: &reader, idrPicFlag: idr)
            }
            if pps.entropyCodingModeFlag, !sliceType.isIntra {
                cabacInitIdc = try reader.readUE("cabac_init_idc", max: 2)
            }
            let qpBdOffsetY = 6 * sps.bitDepthLumaMinus8
            sliceQpDelta = try reader.readSE("slice_qp_delta", in: -(26 + qpBdOffsetY) - 25...(51 + qpBdOffsetY))
            let sliceQpY = 26 + pps.picInitQpMinus26 + sliceQpDelta
            guard (-qpBdOffsetY...51).contains(sliceQpY) else {
                throw .make(.invalidValue, "SliceQPY \(sliceQpY) outside \(-qpBdOffsetY)…51", offset: reader.bitOffset / 8)
            }
            if sliceType == .sp || sliceType == .si {
                if sliceType == .sp {
                    spForSwitchFlag = try reader.readFlag()
                }
                // QSY only matters to SP/SI decoding, which FFmpeg does not do; it reads this unchecked.
                sliceQsDelta = try reader.readSE("slice_qs_delta", in: -51...51, orWarnInto: &warnings)
            }
            if pps.deblockingFilterControlPresentFlag {
                // 3…6 are Annex G (SVC) values; FFmpeg accepts up to 6 in any stream, so they are kept with a warning.
                let idcOffset = reader.bitOffset / 8
                let idc = try reader.readUE("disable_deblocking_filter_idc", max: 6)
                if idc > 2 {
                    warnings.append(BitstreamWarning(
                        code: .outOfRange, syntaxElement: "disable_deblocking_filter_idc",
                        reason: "\(idc) exceeds 2 (an Annex G value), kept", offset: idcOffset))
                }
                disableDeblockingFilterIdc = idc
                if idc != 1 {
                    sliceAlphaC0OffsetDiv2 = try reader.readSE("slice_alpha_c0_offset_div2", in: -6...6)
                    sliceBetaOffsetDiv2 = try reader.readSE("slice_beta_offset_div2", in: -6...6)
                }
            }
            if pps.numSliceGroupsMinus1 > 0, let map = pps.sliceGroupMap, (3...5).contains(map.sliceGroupMapType),
                case .changing(_, _, let rateMinus1) = map
            {
                // Ceil(Log2(PicSizeInMapUnits ÷ SliceGroupChangeRate + 1)) bits (equation 7-35).
                let units = sps.picSizeInMapUnits
                let rate = rateMinus1 + 1
                let count = (units + rate - 1) / rate + 1
                let bits = Int.bitWidth - (count - 1).leadingZeroBitCount
                sliceGroupChangeCycle = Int(try reader.readBits(bits))
            }
        }
    }
}
