/// Minimal H.264 readers for `FrameAnalyzer` until the Bitstream syntax layer is merged: RBSP extraction (7.4.1), and the SPS (7.3.2.1.1), PPS (7.3.2.2) and slice-header (7.3.3) fields up to slice_qp_delta.
/// Only ever fed the encoder's own output, but still bounds-checked: a short read throws, never traps.
enum MiniH264 {
    /// Bits needed from a slice header at most (with a 32-entry pred_weight_table it stays far below this).
    static let maxSliceHeaderBytes = 1024

    /// Drops emulation_prevention_three_byte (00 00 03 → 00 00) from at most `limit` bytes after the header.
    static func rbsp(_ nalUnit: ArraySlice<UInt8>, headerBytes: Int = 1, limit: Int = .max) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(min(nalUnit.count, limit))
        var zeros = 0
        for byte in nalUnit.dropFirst(headerBytes) {
            if out.count >= limit { break }
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
        return out
    }

    struct BitReader {
        let bytes: [UInt8]
        var bit = 0

        mutating func u(_ count: Int) throws(EncoderSessionError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<count {
                let byteIndex = bit >> 3
                guard byteIndex < bytes.count else { throw .malformedOutput("H.264 syntax ends early") }
                value = value << 1 | UInt32(bytes[byteIndex] >> (7 - UInt8(bit & 7)) & 1)
                bit += 1
            }
            return value
        }

        mutating func flag() throws(EncoderSessionError) -> Bool { try u(1) == 1 }

        /// ue(v), 9.1.
        mutating func ue() throws(EncoderSessionError) -> UInt32 {
            var zeros = 0
            while try u(1) == 0 {
                zeros += 1
                guard zeros <= 31 else { throw .malformedOutput("Exp-Golomb code longer than 32 bits") }
            }
            return (UInt32(1) << zeros) - 1 + (try u(zeros))
        }

        /// se(v), 9.1.1.
        mutating func se() throws(EncoderSessionError) -> Int32 {
            let k = try ue()
            return k & 1 == 1 ? Int32((k + 1) / 2) : -Int32(k / 2)
        }
    }

    struct SPS {
        var profileIDC: UInt8
        var constraintFlags: UInt8
        var levelIDC: UInt8
        var chromaFormatIDC: UInt32 = 1
        var separateColourPlane = false
        var log2MaxFrameNum: Int
        var picOrderCntType: UInt32
        var log2MaxPicOrderCntLsb = 0
        var deltaPicOrderAlwaysZero = false
        var frameMbsOnly: Bool
        var width: Int
        var height: Int

        init(nalUnit: ArraySlice<UInt8>) throws(EncoderSessionError) {
            var r = BitReader(bytes: rbsp(nalUnit))
            profileIDC = UInt8(try r.u(8))
            constraintFlags = UInt8(try r.u(8))
            levelIDC = UInt8(try r.u(8))
            _ = try r.ue()  // seq_parameter_set_id
            if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profileIDC) {
                chromaFormatIDC = try r.ue()
                if chromaFormatIDC == 3 { separateColourPlane = try r.flag() }
                _ = try r.ue()  // bit_depth_luma_minus8
                _ = try r.ue()  // bit_depth_chroma_minus8
                _ = try r.flag()  // qpprime_y_zero_transform_bypass_flag
                if try r.flag() {  // seq_scaling_matrix_present_flag
                    for index in 0..<(chromaFormatIDC != 3 ? 8 : 12) where try r.flag() {
                        try Self.skipScalingList(&r, size: index < 6 ? 16 : 64)
                    }
                }
            }
            log2MaxFrameNum = Int(try r.ue()) + 4
            picOrderCntType = try r.ue()
            if picOrderCntType == 0 {
                log2MaxPicOrderCntLsb = Int(try r.ue()) + 4
            } else if picOrderCntType == 1 {
                deltaPicOrderAlwaysZero = try r.flag()
                _ = try r.se()
                _ = try r.se()
                let cycle = try r.ue()
                guard cycle <= 255 else { throw .malformedOutput("num_ref_frames_in_pic_order_cnt_cycle > 255") }
                for _ in 0..<cycle { _ = try r.se() }
            }
            _ = try r.ue()  // max_num_ref_frames
            _ = try r.flag()  // gaps_in_frame_num_value_allowed_flag
            let widthInMbs = Int(try r.ue()) + 1
            let heightInMapUnits = Int(try r.ue()) + 1
            frameMbsOnly = try r.flag()
            if !frameMbsOnly { _ = try r.flag() }
            _ = try r.flag()  // direct_8x8_inference_flag
            var crop = (left: 0, right: 0, top: 0, bottom: 0)
            if try r.flag() {
                crop = (Int(try r.ue()), Int(try r.ue()), Int(try r.ue()), Int(try r.ue()))
            }
            // 7.4.2.1.1: crop units are 2 luma samples horizontally/vertically for 4:2:0 frames.
            let cropX = chromaFormatIDC == 1 || chromaFormatIDC == 2 ? 2 : 1
            let cropY = (chromaFormatIDC == 1 ? 2 : 1) * (frameMbsOnly ? 1 : 2)
            width = widthInMbs * 16 - cropX * (crop.left + crop.right)
            height = heightInMapUnits * 16 * (frameMbsOnly ? 1 : 2) - cropY * (crop.top + crop.bottom)
        }

        private static func skipScalingList(_ r: inout BitReader, size: Int) throws(EncoderSessionError) {
            var last: Int32 = 8, next: Int32 = 8
            for _ in 0..<size where next != 0 {
                next = (last + (try r.se()) + 256) % 256
                last = next == 0 ? last : next
            }
        }
    }

    struct PPS {
        var entropyCodingModeFlag: Bool
        var bottomFieldPicOrderInFramePresent: Bool
        var numRefIdxL0DefaultActive: Int
        var numRefIdxL1DefaultActive: Int
        var weightedPredFlag: Bool
        var weightedBipredIDC: UInt32
        var picInitQPMinus26: Int32
        var redundantPicCntPresent: Bool

        init(nalUnit: ArraySlice<UInt8>) throws(EncoderSessionError) {
            var r = BitReader(bytes: rbsp(nalUnit))
            _ = try r.ue()  // pic_parameter_set_id
            _ = try r.ue()  // seq_parameter_set_id
            entropyCodingModeFlag = try r.flag()
            bottomFieldPicOrderInFramePresent = try r.flag()
            guard try r.ue() == 0 else { throw .malformedOutput("slice groups (FMO) are not read") }
            numRefIdxL0DefaultActive = Int(try r.ue()) + 1
            numRefIdxL1DefaultActive = Int(try r.ue()) + 1
            weightedPredFlag = try r.flag()
            weightedBipredIDC = try r.u(2)
            picInitQPMinus26 = try r.se()
            _ = try r.se()  // pic_init_qs_minus26
            _ = try r.se()  // chroma_qp_index_offset
            _ = try r.flag()  // deblocking_filter_control_present_flag
            _ = try r.flag()  // constrained_intra_pred_flag
            redundantPicCntPresent = try r.flag()
        }
    }

    /// SliceQPY = 26 + pic_init_qp_minus26 + slice_qp_delta (7.4.3), read through the slice header (7.3.3).
    static func sliceQP(nalUnit: ArraySlice<UInt8>, sps: SPS, pps: PPS) throws(EncoderSessionError) -> Int {
        guard let header = nalUnit.first else { throw .malformedOutput("empty slice NAL unit") }
        let nalRefIDC = header >> 5 & 3
        let idr = header & 0x1F == 5
        var r = BitReader(bytes: rbsp(nalUnit, limit: maxSliceHeaderBytes))
        _ = try r.ue()  // first_mb_in_slice
        let sliceType = try r.ue() % 5  // 0 P, 1 B, 2 I, 3 SP, 4 SI
        _ = try r.ue()  // pic_parameter_set_id
        if sps.separateColourPlane { _ = try r.u(2) }
        _ = try r.u(sps.log2MaxFrameNum)
        var fieldPic = false
        if !sps.frameMbsOnly {
            fieldPic = try r.flag()
            if fieldPic { _ = try r.flag() }
        }
        if idr { _ = try r.ue() }  // idr_pic_id
        if sps.picOrderCntType == 0 {
            _ = try r.u(sps.log2MaxPicOrderCntLsb)
            if pps.bottomFieldPicOrderInFramePresent, !fieldPic { _ = try r.se() }
        }
        if sps.picOrderCntType == 1, !sps.deltaPicOrderAlwaysZero {
            _ = try r.se()
            if pps.bottomFieldPicOrderInFramePresent, !fieldPic { _ = try r.se() }
        }
        if pps.redundantPicCntPresent { _ = try r.ue() }
        if sliceType == 1 { _ = try r.flag() }  // direct_spatial_mv_pred_flag
        var l0 = pps.numRefIdxL0DefaultActive, l1 = pps.numRefIdxL1DefaultActive
        if sliceType == 0 || sliceType == 3 || sliceType == 1 {
            if try r.flag() {  // num_ref_idx_active_override_flag
                l0 = Int(try r.ue()) + 1
                if sliceType == 1 { l1 = Int(try r.ue()) + 1 }
            }
        }
        guard l0 <= 32, l1 <= 32 else { throw .malformedOutput("num_ref_idx_active above 32") }
        // ref_pic_list_modification (7.3.3.1)
        for list in 0..<(sliceType == 1 ? 2 : (sliceType == 2 || sliceType == 4 ? 0 : 1)) {
            _ = list
            if try r.flag() {
                var guardCount = 0
                while try r.ue() != 3 {
                    _ = try r.ue()
                    guardCount += 1
                    guard guardCount <= 33 else { throw .malformedOutput("ref_pic_list_modification too long") }
                }
            }
        }
        if (pps.weightedPredFlag && (sliceType == 0 || sliceType == 3)) || (pps.weightedBipredIDC == 1 && sliceType == 1) {
            try skipPredWeightTable(&r, sps: sps, l0: l0, l1: sliceType == 1 ? l1 : 0)
        }
        if nalRefIDC != 0 {  // dec_ref_pic_marking (7.3.3.3)
            if idr {
                _ = try r.flag()
                _ = try r.flag()
            } else if try r.flag() {
                var guardCount = 0
                while true {
                    let operation = try r.ue()
                    if operation == 0 { break }
                    if operation == 1 || operation == 3 { _ = try r.ue() }
                    if operation == 2 { _ = try r.ue() }
                    if operation == 3 || operation == 6 { _ = try r.ue() }
                    if operation == 4 { _ = try r.ue() }
                    guardCount += 1
                    guard guardCount <= 66 else { throw .malformedOutput("memory_management_control too long") }
                }
            }
        }
        if pps.entropyCodingModeFlag, sliceType != 2, sliceType != 4 { _ = try r.ue() }  // cabac_init_idc
        let sliceQPDelta = try r.se()
        return Int(26 + pps.picInitQPMinus26 + sliceQPDelta)
    }

    /// pred_weight_table (7.3.3.2).
    private static func skipPredWeightTable(_ r: inout BitReader, sps: SPS, l0: Int, l1: Int) throws(EncoderSessionError) {
        _ = try r.ue()  // luma_log2_weight_denom
        let chroma = sps.chromaFormatIDC != 0 && !sps.separateColourPlane
        if chroma { _ = try r.ue() }
        for count in [l0, l1] {
            for _ in 0..<count {
                if try r.flag() { _ = try r.se(); _ = try r.se() }
                if chroma, try r.flag() { for _ in 0..<4 { _ = try r.se() } }
            }
        }
    }
}
