import Bitstream
import Foundation
import Testing

@Suite struct SliceHeaderTests {
    /// A PPS written field by field with the switches the slice header depends on.
    struct PPSSwitches {
        var ppsId = 1
        var spsId = 0
        var entropyCodingModeFlag = true
        var bottomFieldPicOrderInFramePresentFlag = false
        var numRefIdxL0DefaultActiveMinus1 = 2
        var numRefIdxL1DefaultActiveMinus1 = 0
        var weightedPredFlag = false
        var weightedBipredIdc = 0
        var picInitQpMinus26 = -3
        var deblockingFilterControlPresentFlag = true
        var redundantPicCntPresentFlag = false

        var nalUnit: [UInt8] {
            var w = BitWriter()
            w.writeUE(ppsId)
            w.writeUE(spsId)
            w.writeFlag(entropyCodingModeFlag)
            w.writeFlag(bottomFieldPicOrderInFramePresentFlag)
            w.writeUE(0)  // num_slice_groups_minus1
            w.writeUE(numRefIdxL0DefaultActiveMinus1)
            w.writeUE(numRefIdxL1DefaultActiveMinus1)
            w.writeFlag(weightedPredFlag)
            w.writeBits(weightedBipredIdc, count: 2)
            w.writeSE(picInitQpMinus26)
            w.writeSE(0)  // pic_init_qs_minus26
            w.writeSE(0)  // chroma_qp_index_offset
            w.writeFlag(deblockingFilterControlPresentFlag)
            w.writeFlag(false)  // constrained_intra_pred_flag
            w.writeFlag(redundantPicCntPresentFlag)
            w.writeTrailingBits()
            return [0x68] + RBSP.addingEmulationPrevention(w.bytes)
        }
    }

    static func parameterSets(sps: SPSBuilder = SPSBuilder(), pps: PPSSwitches = PPSSwitches()) throws
        -> H264.ParameterSets
    {
        var sets = H264.ParameterSets()
        try sets.update(nalUnit: sps.nalUnit[...])
        try sets.update(nalUnit: pps.nalUnit[...])
        return sets
    }

    /// Wraps slice header bits in a NAL unit with some slice data after it.
    static func nal(_ header: UInt8, _ write: (inout BitWriter) -> Void) -> [UInt8] {
        var w = BitWriter()
        write(&w)
        w.writeBits(0x5A5A, count: 16)  // stand-in slice data
        w.writeTrailingBits()
        return [header] + RBSP.addingEmulationPrevention(w.bytes)
    }

    /// SPS defaults: log2_max_frame_num 4 bits, pic_order_cnt_type 0 with 6-bit lsb, frame_mbs_only, 4:2:0.
    @Test func idrSlice() throws {
        let sets = try Self.parameterSets()
        let bytes = Self.nal(0x65) { w in  // nal_ref_idc 3, IDR
            w.writeUE(0)  // first_mb_in_slice
            w.writeUE(7)  // slice_type 7 = I (all slices)
            w.writeUE(1)  // pic_parameter_set_id
            w.writeBits(0, count: 4)  // frame_num
            w.writeUE(3)  // idr_pic_id
            w.writeBits(0, count: 6)  // pic_order_cnt_lsb
            w.writeFlag(false)  // no_output_of_prior_pics_flag
            w.writeFlag(true)  // long_term_reference_flag
            w.writeSE(6)  // slice_qp_delta
            w.writeUE(1)  // disable_deblocking_filter_idc 1: no offsets
        }
        let header = try H264.SliceHeader(nalUnit: bytes[...], parameterSets: sets)
        #expect(header.sliceType == .i)
        #expect(header.sliceTypeRaw == 7)
        #expect(header.idrPicFlag)
        #expect(header.idrPicId == 3)
        #expect(header.picOrderCntLsb == 0)
        #expect(header.decRefPicMarking?.longTermReferenceFlag == true)
        #expect(header.decRefPicMarking?.noOutputOfPriorPicsFlag == false)
        #expect(header.cabacInitIdc == nil)
        #expect(header.sliceQpDelta == 6)
        #expect(header.qp == 26 - 3 + 6)
        #expect(header.disableDeblockingFilterIdc == 1)
        #expect(header.sliceAlphaC0OffsetDiv2 == nil)
    }

    /// A P slice with list modification, weighted prediction, MMCOs and CABAC.
    @Test func pSliceWithEverything() throws {
        var pps = PPSSwitches()
        pps.weightedPredFlag = true
        let sets = try Self.parameterSets(pps: pps)
        let bytes = Self.nal(0x41) { w in  // nal_ref_idc 2, non-IDR slice
            w.writeUE(40)  // first_mb_in_slice
            w.writeUE(0)  // slice_type P
            w.writeUE(1)  // pic_parameter_set_id
            w.writeBits(5, count: 4)  // frame_num
            w.writeBits(10, count: 6)  // pic_order_cnt_lsb
            w.writeFlag(true)  // num_ref_idx_active_override_flag
            w.writeUE(1)  // num_ref_idx_l0_active_minus1: two references
            w.writeFlag(true)  // ref_pic_list_modification_flag_l0
            w.writeUE(0); w.writeUE(2)  // subtract: abs_diff_pic_num_minus1 2
            w.writeUE(2); w.writeUE(1)  // long_term_pic_num 1
            w.writeUE(3)  // end
            w.writeUE(5)  // luma_log2_weight_denom
            w.writeUE(4)  // chroma_log2_weight_denom
            w.writeFlag(true); w.writeSE(30); w.writeSE(-3)  // ref 0 luma weight, offset
            w.writeFlag(true); w.writeSE(16); w.writeSE(1); w.writeSE(15); w.writeSE(-1)  // ref 0 chroma
            w.writeFlag(false); w.writeFlag(false)  // ref 1: no weights
            w.writeFlag(true)  // adaptive_ref_pic_marking_mode_flag
            w.writeUE(1); w.writeUE(4)  // MMCO 1: difference_of_pic_nums_minus1 4
            w.writeUE(3); w.writeUE(0); w.writeUE(2)  // MMCO 3: difference 0, long_term_frame_idx 2
            w.writeUE(4); w.writeUE(3)  // MMCO 4: max_long_term_frame_idx_plus1 3
            w.writeUE(0)  // end
            w.writeUE(2)  // cabac_init_idc
            w.writeSE(-4)  // slice_qp_delta
            w.writeUE(0); w.writeSE(-2); w.writeSE(3)  // deblocking idc 0 with offsets
        }
        let header = try H264.SliceHeader(nalUnit: bytes[...], parameterSets: sets)
        #expect(header.firstMbInSlice == 40)
        #expect(header.sliceType == .p)
        #expect(header.frameNum == 5)
        #expect(header.picOrderCntLsb == 10)
        #expect(header.numRefIdxActiveOverrideFlag == true)
        #expect(header.numRefIdxL0ActiveMinus1 == 1)
        let modifications = try #require(header.refPicListModificationL0)
        #expect(modifications.map(\.modificationOfPicNumsIdc) == [0, 2])
        #expect(modifications[0].absDiffPicNumMinus1 == 2)
        #expect(modifications[1].longTermPicNum == 1)
        let table = try #require(header.predWeightTable)
        #expect(table.lumaLog2WeightDenom == 5)
        #expect(table.chromaLog2WeightDenom == 4)
        #expect(table.l0.count == 2)
        #expect(table.l0[0].lumaWeight == 30 && table.l0[0].lumaOffset == -3)
        #expect(table.l0[0].chromaWeight == [16, 15] && table.l0[0].chromaOffset == [1, -1])
        #expect(table.l0[1].lumaWeight == nil && table.l0[1].chromaWeight == nil)
        #expect(table.l1 == nil)
        let marking = try #require(header.decRefPicMarking)
        #expect(marking.adaptiveRefPicMarkingModeFlag == true)
        #expect(marking.operations?.map(\.memoryManagementControlOperation) == [1, 3, 4])
        #expect(marking.operations?[1].longTermFrameIdx == 2)
        #expect(marking.operations?[2].maxLongTermFrameIdxPlus1 == 3)
        #expect(header.cabacInitIdc == 2)
        #expect(header.qp == 19)
        #expect(header.sliceAlphaC0OffsetDiv2 == -2 && header.sliceBetaOffsetDiv2 == 3)
    }

    /// A non-reference B slice of a field: direct_spatial_mv_pred_flag, both lists, implicit defaults, POC type 1.
    @Test func bFieldSliceWithPicOrderCntType1() throws {
        var sps = SPSBuilder()
        sps.picOrderCntType = 1
        sps.frameMbsOnlyFlag = false
        var pps = PPSSwitches()
        pps.bottomFieldPicOrderInFramePresentFlag = true
        pps.weightedBipredIdc = 1
        pps.numRefIdxL1DefaultActiveMinus1 = 1
        pps.redundantPicCntPresentFlag = true
        let sets = try Self.parameterSets(sps: sps, pps: pps)
        let bytes = Self.nal(0x01) { w in  // nal_ref_idc 0
            w.writeUE(0)  // first_mb_in_slice
            w.writeUE(1)  // slice_type B
            w.writeUE(1)  // pic_parameter_set_id
            w.writeBits(9, count: 4)  // frame_num
            w.writeFlag(true); w.writeFlag(true)  // field_pic_flag, bottom_field_flag
            w.writeSE(-6)  // delta_pic_order_cnt[0] (no [1]: field picture)
            w.writeUE(0)  // redundant_pic_cnt
            w.writeFlag(true)  // direct_spatial_mv_pred_flag
            w.writeFlag(false)  // num_ref_idx_active_override_flag: PPS defaults 2 and 1
            w.writeFlag(false); w.writeFlag(false)  // no list modification, l0 and l1
            w.writeUE(0); w.writeUE(0)  // denominators
            for _ in 0..<(3 + 2) { w.writeFlag(false); w.writeFlag(false) }  // no weights in l0 (3) and l1 (2)
            w.writeUE(1)  // cabac_init_idc (no dec_ref_pic_marking: nal_ref_idc 0)
            w.writeSE(0)  // slice_qp_delta
            w.writeUE(1)  // disable_deblocking_filter_idc
        }
        let header = try H264.SliceHeader(nalUnit: bytes[...], parameterSets: sets)
        #expect(header.sliceType == .b)
        #expect(header.fieldPicFlag && header.bottomFieldFlag == true)
        #expect(header.deltaPicOrderCnt0 == -6 && header.deltaPicOrderCnt1 == nil)
        #expect(header.picOrderCntLsb == nil)
        #expect(header.redundantPicCnt == 0)
        #expect(header.directSpatialMvPredFlag == true)
        #expect(header.numRefIdxL0ActiveMinus1 == 2 && header.numRefIdxL1ActiveMinus1 == 1)
        #expect(header.predWeightTable?.l0.count == 3 && header.predWeightTable?.l1?.count == 2)
        #expect(header.decRefPicMarking == nil)
        #expect(header.cabacInitIdc == 1)
        #expect(header.qp == 23)
    }

    @Test func sliceTypeMapping() {
        let expected: [H264.SliceType] = [.p, .b, .i, .sp, .si, .p, .b, .i, .sp, .si]
        for (raw, type) in expected.enumerated() {
            #expect(H264.SliceType(sliceType: raw) == type)
        }
        #expect(H264.SliceType(sliceType: 10) == nil)
    }

    @Test func missingParameterSets() throws {
        let bytes = Self.nal(0x65) { w in
            w.writeUE(0); w.writeUE(7); w.writeUE(1)
            w.writeBits(0, count: 4); w.writeUE(0); w.writeBits(0, count: 6)
            w.writeFlag(false); w.writeFlag(false); w.writeSE(0); w.writeUE(1)
        }
        do {
            _ = try H264.SliceHeader(nalUnit: bytes[...], parameterSets: H264.ParameterSets())
            Issue.record("parsed without PPS")
        } catch {
            #expect(error.code == .missingParameterSet)
        }
        var onlyPPS = H264.ParameterSets()
        try onlyPPS.update(nalUnit: PPSSwitches().nalUnit[...])
        do {
            _ = try H264.SliceHeader(nalUnit: bytes[...], parameterSets: onlyPPS)
            Issue.record("parsed without SPS")
        } catch {
            #expect(error.code == .missingParameterSet)
        }
        #expect(throws: Never.self) { try H264.SliceHeader(nalUnit: bytes[...], parameterSets: Self.parameterSets()) }
    }

    @Test func rejectsBadValues() throws {
        let sets = try Self.parameterSets()
        // slice_type 10.
        let badType = Self.nal(0x41) { w in w.writeUE(0); w.writeUE(10); w.writeUE(1) }
        #expect(throws: BitstreamError.self) { try H264.SliceHeader(nalUnit: badType[...], parameterSets: sets) }
        // An IDR P slice.
        let idrP = Self.nal(0x65) { w in w.writeUE(0); w.writeUE(5); w.writeUE(1); w.writeBits(0, count: 16) }
        #expect(throws: BitstreamError.self) { try H264.SliceHeader(nalUnit: idrP[...], parameterSets: sets) }
        // Not a slice.
        #expect(throws: BitstreamError.self) {
            try H264.SliceHeader(nalUnit: PPSSwitches().nalUnit[...], parameterSets: sets)
        }
        // SliceQPY out of range: −3 + 26 + 40 = 63.
        let qp = Self.nal(0x21) { w in
            w.writeUE(0); w.writeUE(2); w.writeUE(1); w.writeBits(1, count: 4); w.writeBits(2, count: 6)
            w.writeFlag(false)  // adaptive_ref_pic_marking_mode_flag
            w.writeSE(40)
        }
        #expect(throws: BitstreamError.self) { try H264.SliceHeader(nalUnit: qp[...], parameterSets: sets) }
        // Endless ref_pic_list_modification.
        let endless = Self.nal(0x21) { w in
            w.writeUE(0); w.writeUE(0); w.writeUE(1); w.writeBits(1, count: 4); w.writeBits(2, count: 6)
            w.writeFlag(false)  // no override
            w.writeFlag(true)
            for _ in 0..<40 { w.writeUE(0); w.writeUE(0) }
        }
        do {
            _ = try H264.SliceHeader(nalUnit: endless[...], parameterSets: sets)
            Issue.record("40 modifications accepted")
        } catch {
            #expect(error.code == .limitExceeded)
        }
    }

    /// Every prefix that cuts into the header fails with a typed error; the header alone (no slice data) parses.
    @Test func dripFeed() throws {
        var pps = PPSSwitches()
        pps.weightedPredFlag = true
        let sets = try Self.parameterSets(pps: pps)
        var w = BitWriter()
        w.writeUE(0); w.writeUE(5); w.writeUE(1); w.writeBits(3, count: 4); w.writeBits(6, count: 6)
        w.writeFlag(true); w.writeUE(0)  // override: one reference
        w.writeFlag(false)  // no modification
        w.writeUE(6); w.writeUE(6); w.writeFlag(true); w.writeSE(70); w.writeSE(-5); w.writeFlag(false)
        w.writeFlag(false)  // adaptive_ref_pic_marking_mode_flag
        w.writeUE(0); w.writeSE(3); w.writeUE(0); w.writeSE(1); w.writeSE(-1)
        let headerBits = w.bitCount
        while !w.isByteAligned { w.writeFlag(true) }  // pad with slice-data-like bits
        let bytes = [0x41] + RBSP.addingEmulationPrevention(w.bytes)
        let header = try H264.SliceHeader(nalUnit: bytes[...], parameterSets: sets)
        #expect(header.qp == 26)
        #expect(header.predWeightTable?.l0.first?.lumaWeight == 70)
        let neededBytes = 1 + (headerBits + 7) / 8
        for length in 0..<neededBytes {
            #expect(throws: BitstreamError.self, "prefix \(length)") {
                try H264.SliceHeader(nalUnit: bytes[..<length], parameterSets: sets)
            }
        }
    }

    @Test func jsonUsesSyntaxElementNames() throws {
        let sets = try Self.parameterSets()
        let bytes = Self.nal(0x65) { w in
            w.writeUE(0); w.writeUE(7); w.writeUE(1); w.writeBits(0, count: 4); w.writeUE(3); w.writeBits(0, count: 6)
            w.writeFlag(false); w.writeFlag(false); w.writeSE(6); w.writeUE(1)
        }
        let header = try H264.SliceHeader(nalUnit: bytes[...], parameterSets: sets)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(header)) as? [String: Any])
        #expect(object["first_mb_in_slice"] as? Int == 0)
        #expect(object["slice_type"] as? Int == 7)
        #expect(object["idr_pic_id"] as? Int == 3)
        #expect(object["slice_qp_delta"] as? Int == 6)
        #expect(object["qp"] as? Int == 29)
        #expect(object["slice_type_name"] as? String == "I")
        let marking = try #require(object["dec_ref_pic_marking"] as? [String: Any])
        #expect(marking["long_term_reference_flag"] as? Bool == false)
    }
}

extension SliceHeaderTests {
    /// A header longer than the first unescaping try (256 RBSP bytes) still parses: many MMCOs with large
    /// differences put slice_qp_delta and the deblocking fields past byte 256.
    @Test func headerLongerThanTheFirstTryParsesWhole() throws {
        let sets = try Self.parameterSets()
        let operations = 60
        let bytes = Self.nal(0x41) { w in
            w.writeUE(0)  // first_mb_in_slice
            w.writeUE(0)  // slice_type P
            w.writeUE(1)  // pic_parameter_set_id
            w.writeBits(5, count: 4)  // frame_num
            w.writeBits(10, count: 6)  // pic_order_cnt_lsb
            w.writeFlag(false)  // num_ref_idx_active_override_flag
            w.writeFlag(false)  // ref_pic_list_modification_flag_l0
            w.writeFlag(true)  // adaptive_ref_pic_marking_mode_flag
            for _ in 0 ..< operations { w.writeUE(1); w.writeUE(131_071) }  // 35 bits each for the difference
            w.writeUE(0)  // end
            w.writeUE(2)  // cabac_init_idc
            w.writeSE(-4)  // slice_qp_delta
            w.writeUE(1)  // disable_deblocking_filter_idc
        }
        #expect(bytes.count > 280)  // the header alone is about 285 bytes
        let header = try H264.SliceHeader(nalUnit: bytes[...], parameterSets: sets)
        #expect(header.decRefPicMarking?.operations?.count == operations)
        #expect(header.sliceQpDelta == -4)
        #expect(header.disableDeblockingFilterIdc == 1)
        // Cut inside the header: still an error, not a half-read header.
        #expect(throws: BitstreamError.self) { try H264.SliceHeader(nalUnit: bytes[..<200], parameterSets: sets) }
    }
}
