import Bitstream
import Foundation
import Testing

@Suite struct PPSTests {
    /// x264 High PPS (veryfast, 320x240), field by field (as ffmpeg's trace_headers bitstream filter lists it):
    ///
    ///     68        nal_ref_idc 3, nal_unit_type 8
    ///     ef        1 pic_parameter_set_id 0 | 1 seq_parameter_set_id 0 | 1 entropy_coding_mode_flag |
    ///               0 bottom_field_pic_order_in_frame_present_flag | 1 num_slice_groups_minus1 0 |
    ///               1 num_ref_idx_l0_default_active_minus1 0 | 1 num_ref_idx_l1_default_active_minus1 0 |
    ///               1 weighted_pred_flag
    ///     8f        10 weighted_bipred_idc 2 | 00111 pic_init_qp_minus26 −3 | 1 pic_init_qs_minus26 0
    ///     cb        1 chroma_qp_index_offset 0 | 1 deblocking_filter_control_present_flag | 0 constrained_intra_pred_flag |
    ///               0 redundant_pic_cnt_present_flag | 1 transform_8x8_mode_flag | 0 pic_scaling_matrix_present_flag |
    ///               1 second_chroma_qp_index_offset 0 | 1 rbsp_stop_one_bit
    static let x264High: [UInt8] = [0x68, 0xEF, 0x8F, 0xCB]
    /// The Main PPS of the same encoder: c8 = 1 chroma_qp_index_offset 0 | 1 deblocking | 0 | 0 | 1 stop bit, so
    /// more_rbsp_data() is false before transform_8x8_mode_flag.
    static let x264Main: [UInt8] = [0x68, 0xEF, 0x8F, 0xC8]

    /// weighted_bipred_idc 3 (reserved): FFmpeg reads it unchecked, so it is kept with a warning (since issue 12;
    /// it was refused). x264's High PPS with the bipred bits 10 → 11 (8f → cf).
    @Test func reservedWeightedBipredIdcIsKept() throws {
        var bytes = Self.x264High
        bytes[2] |= 0x40
        let pps = try H264.PictureParameterSet(nalUnit: bytes[...])
        #expect(pps.weightedBipredIdc == 3)
        #expect(pps.picInitQpMinus26 == -3)
        #expect(pps.warnings.map(\.syntaxElement) == ["weighted_bipred_idc"])
        #expect(pps.warnings.map(\.code) == [.reservedValue])
        #expect(try H264.PictureParameterSet(nalUnit: Self.x264High[...]).warnings.isEmpty)
    }

    /// A byte after the trailing bits: FFmpeg reads the PPS to the last 1 bit and ignores the rest; so does this
    /// parser, with a warning (since issue 12; it was `.trailingData`). x264's High PPS, whose optional fields all
    /// come before the stop bit, + 00 01. (After a PPS without them the garbage would read as
    /// transform_8x8_mode_flag …, in FFmpeg as here.)
    @Test func trailingGarbageIsAWarning() throws {
        let pps = try H264.PictureParameterSet(nalUnit: (Self.x264High + [0x00, 0x01])[...])
        let clean = try H264.PictureParameterSet(nalUnit: Self.x264High[...])
        #expect(pps.warnings.map(\.code) == [.trailingData])
        #expect(pps.picInitQpMinus26 == clean.picInitQpMinus26)
        #expect(pps.transform8x8ModeFlag == clean.transform8x8ModeFlag)
        #expect(pps.secondChromaQpIndexOffset == clean.secondChromaQpIndexOffset)
    }

    @Test func x264HighFields() throws {
        let pps = try H264.PictureParameterSet(nalUnit: Self.x264High[...])
        #expect(pps.picParameterSetId == 0)
        #expect(pps.seqParameterSetId == 0)
        #expect(pps.entropyCodingModeFlag)
        #expect(!pps.bottomFieldPicOrderInFramePresentFlag)
        #expect(pps.numSliceGroupsMinus1 == 0)
        #expect(pps.numRefIdxL0DefaultActiveMinus1 == 0)
        #expect(pps.numRefIdxL1DefaultActiveMinus1 == 0)
        #expect(pps.weightedPredFlag)
        #expect(pps.weightedBipredIdc == 2)
        #expect(pps.picInitQpMinus26 == -3)
        #expect(pps.picInitQsMinus26 == 0)
        #expect(pps.chromaQpIndexOffset == 0)
        #expect(pps.deblockingFilterControlPresentFlag)
        #expect(!pps.constrainedIntraPredFlag)
        #expect(!pps.redundantPicCntPresentFlag)
        #expect(pps.transform8x8ModeFlag)
        #expect(!pps.picScalingMatrixPresentFlag)
        #expect(pps.secondChromaQpIndexOffset == 0)
    }

    @Test func x264MainHasNoExtension() throws {
        let pps = try H264.PictureParameterSet(nalUnit: Self.x264Main[...])
        #expect(!pps.transform8x8ModeFlag)
        #expect(pps.secondChromaQpIndexOffset == pps.chromaQpIndexOffset)
    }

    /// Every strict prefix fails. (A PPS ends in optional fields signalled only by more_rbsp_data(), so a prefix
    /// could in principle be another valid PPS; for these vectors it is not, and the test says so.)
    @Test(arguments: [x264High, x264Main])
    func dripFeed(_ bytes: [UInt8]) {
        for length in 0..<bytes.count {
            #expect(throws: BitstreamError.self, "prefix \(length)") {
                try H264.PictureParameterSet(nalUnit: bytes[..<length])
            }
        }
    }

    /// Writes a PPS field by field (§7.3.2.2).
    struct Builder {
        var numSliceGroupsMinus1 = 0
        var sliceGroupSyntax: ((inout BitWriter) -> Void)?
        var picInitQpMinus26 = 4
        var chromaQpIndexOffset = 3
        /// nil: stop before transform_8x8_mode_flag (more_rbsp_data() false).
        var transform8x8: Bool?
        var scalingLists: [[Int]?]?
        var secondChromaQpIndexOffset = -4

        var nalUnit: [UInt8] {
            var w = BitWriter()
            w.writeUE(7)  // pic_parameter_set_id
            w.writeUE(3)  // seq_parameter_set_id
            w.writeFlag(false)  // entropy_coding_mode_flag
            w.writeFlag(true)  // bottom_field_pic_order_in_frame_present_flag
            w.writeUE(numSliceGroupsMinus1)
            sliceGroupSyntax?(&w)
            w.writeUE(1)  // num_ref_idx_l0_default_active_minus1
            w.writeUE(0)  // num_ref_idx_l1_default_active_minus1
            w.writeFlag(false)  // weighted_pred_flag
            w.writeBits(1, count: 2)  // weighted_bipred_idc
            w.writeSE(picInitQpMinus26)
            w.writeSE(-1)  // pic_init_qs_minus26
            w.writeSE(chromaQpIndexOffset)
            w.writeFlag(true)  // deblocking_filter_control_present_flag
            w.writeFlag(true)  // constrained_intra_pred_flag
            w.writeFlag(false)  // redundant_pic_cnt_present_flag
            if let transform8x8 {
                w.writeFlag(transform8x8)
                w.writeFlag(scalingLists != nil)
                for list in scalingLists ?? [] {
                    w.writeFlag(list != nil)
                    for delta in list ?? [] { w.writeSE(delta) }
                }
                w.writeSE(secondChromaQpIndexOffset)
            }
            w.writeTrailingBits()
            return [0x68] + RBSP.addingEmulationPrevention(w.bytes)
        }
    }

    @Test func builtWithExtension() throws {
        var builder = Builder()
        builder.transform8x8 = false
        let pps = try H264.PictureParameterSet(nalUnit: builder.nalUnit[...])
        #expect(pps.picParameterSetId == 7)
        #expect(pps.seqParameterSetId == 3)
        #expect(pps.bottomFieldPicOrderInFramePresentFlag)
        #expect(pps.weightedBipredIdc == 1)
        #expect(pps.picInitQpMinus26 == 4)
        #expect(pps.picInitQsMinus26 == -1)
        #expect(pps.chromaQpIndexOffset == 3)
        #expect(pps.constrainedIntraPredFlag)
        #expect(!pps.transform8x8ModeFlag)
        #expect(pps.secondChromaQpIndexOffset == -4)
    }

    /// With transform_8x8_mode_flag the list count depends on the SPS's chroma_format_idc: 6 + 2 (or + 6 for 4:4:4).
    @Test func scalingMatrixNeedsTheSPS() throws {
        var builder = Builder()
        builder.transform8x8 = true
        builder.scalingLists = [[-8]] + Array(repeating: nil, count: 7)
        do {
            _ = try H264.PictureParameterSet(nalUnit: builder.nalUnit[...])
            Issue.record("parsed without its SPS")
        } catch {
            #expect(error.code == .missingParameterSet)
        }
        var sps420 = SPSBuilder()
        sps420.seqParameterSetId = 3
        let sets = [3: try H264.SequenceParameterSet(nalUnit: sps420.nalUnit[...])]
        let pps = try H264.PictureParameterSet(nalUnit: builder.nalUnit[...], sequenceParameterSets: sets)
        #expect(pps.picScalingLists?.count == 8)
        #expect(pps.picScalingLists?.first == .useDefault)
        #expect(pps.secondChromaQpIndexOffset == -4)

        var sps444 = sps420
        sps444.chromaFormatIdc = 3
        builder.scalingLists = Array(repeating: nil, count: 12)
        let sets444 = [3: try H264.SequenceParameterSet(nalUnit: sps444.nalUnit[...])]
        let pps444 = try H264.PictureParameterSet(nalUnit: builder.nalUnit[...], sequenceParameterSets: sets444)
        #expect(pps444.picScalingLists?.count == 12)
        // Without transform_8x8_mode_flag only six 4×4 lists, and no SPS is needed.
        builder.transform8x8 = false
        builder.scalingLists = Array(repeating: nil, count: 5) + [Array(repeating: 1, count: 16)]
        let pps4x4 = try H264.PictureParameterSet(nalUnit: builder.nalUnit[...])
        #expect(pps4x4.picScalingLists?.count == 6)
        #expect(pps4x4.picScalingLists?[5] == .explicit(Array(9...24).map(UInt8.init)))
    }

    /// Slice group map types 0…6 (§7.3.2.2), each with three groups.
    @Test(arguments: 0...6)
    func sliceGroups(type: Int) throws {
        var builder = Builder()
        builder.numSliceGroupsMinus1 = 2
        builder.sliceGroupSyntax = { w in
            w.writeUE(type)
            switch type {
            case 0: for run in [9, 19, 29] { w.writeUE(run) }
            case 2: for (tl, br) in [(0, 10), (20, 30)] { w.writeUE(tl); w.writeUE(br) }
            case 3, 4, 5: w.writeFlag(true); w.writeUE(4)
            case 6:
                w.writeUE(5)  // pic_size_in_map_units_minus1: six map units
                for id in [0, 1, 2, 2, 1, 0] { w.writeBits(id, count: 2) }  // Ceil(Log2(3)) = 2 bits
            default: break
            }
        }
        let pps = try H264.PictureParameterSet(nalUnit: builder.nalUnit[...])
        let map = try #require(pps.sliceGroupMap)
        #expect(map.sliceGroupMapType == type)
        switch map {
        case .interleaved(let runs): #expect(runs == [9, 19, 29])
        case .dispersed: #expect(type == 1)
        case .foreground(let tl, let br): #expect(tl == [0, 20] && br == [10, 30])
        case .changing(_, let direction, let rate): #expect(direction && rate == 4)
        case .explicit(let size, let ids): #expect(size == 5 && ids == [0, 1, 2, 2, 1, 0])
        }
        // The fields after the map still line up.
        #expect(pps.picInitQpMinus26 == 4)
        #expect(pps.chromaQpIndexOffset == 3)
    }

    @Test func boundsOnHostileValues() {
        var builder = Builder()
        builder.numSliceGroupsMinus1 = 8
        #expect(throws: BitstreamError.self) { try H264.PictureParameterSet(nalUnit: builder.nalUnit[...]) }
        // pic_init_qp_minus26 past +25 is kept with a warning, as FFmpeg keeps it (since issue 12; it was refused):
        // what matters is SliceQPY, which the slice header refuses out of range ("QP 59 out of range" in FFmpeg).
        builder = Builder()
        builder.picInitQpMinus26 = 26
        #expect(throws: Never.self) { try H264.PictureParameterSet(nalUnit: builder.nalUnit[...]) }
        let kept = try? H264.PictureParameterSet(nalUnit: builder.nalUnit[...])
        #expect(kept?.picInitQpMinus26 == 26)
        #expect(kept?.warnings.map(\.syntaxElement) == ["pic_init_qp_minus26"])
        builder = Builder()
        builder.chromaQpIndexOffset = 13
        #expect(throws: BitstreamError.self) { try H264.PictureParameterSet(nalUnit: builder.nalUnit[...]) }
        // Slice group type 6 with an id past the group count.
        builder = Builder()
        builder.numSliceGroupsMinus1 = 2
        builder.sliceGroupSyntax = { w in
            w.writeUE(6); w.writeUE(0); w.writeBits(3, count: 2)
        }
        #expect(throws: BitstreamError.self) { try H264.PictureParameterSet(nalUnit: builder.nalUnit[...]) }
    }

    @Test func jsonUsesSyntaxElementNames() throws {
        let pps = try H264.PictureParameterSet(nalUnit: Self.x264High[...])
        let data = try JSONEncoder().encode(pps)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["pic_parameter_set_id"] as? Int == 0)
        #expect(object["entropy_coding_mode_flag"] as? Bool == true)
        #expect(object["weighted_bipred_idc"] as? Int == 2)
        #expect(object["pic_init_qp_minus26"] as? Int == -3)
        #expect(object["transform_8x8_mode_flag"] as? Bool == true)
        #expect(object["slice_group_map_type"] == nil)
    }
}
