import Bitstream
import Testing

/// Slice-header values FFmpeg's h264_slice.c reads without refusing: kept with a warning. Values that change how
/// the slice decodes (SliceQPY, reference counts, deblocking offsets) stay refused.
@Suite struct SliceHeaderLenientTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var idrPicId = 3
        var deblockingIdc = 0
        /// (syntax element) of each warning; nil: refused.
        var warnings: [String]?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "clean", warnings: []),
        Case(name: "idr_pic_id 70000", idrPicId: 70_000, warnings: ["idr_pic_id"]),
        // 3…6 are Annex G (SVC) values; FFmpeg takes up to 6 in any stream.
        Case(name: "disable_deblocking_filter_idc 5", deblockingIdc: 5, warnings: ["disable_deblocking_filter_idc"]),
        Case(name: "disable_deblocking_filter_idc 7", deblockingIdc: 7, warnings: nil),
    ]

    @Test(arguments: cases)
    func keepOrRefuse(_ testCase: Case) throws {
        let sets = try SliceHeaderTests.parameterSets()
        let bytes = SliceHeaderTests.nal(0x65) { w in
            w.writeUE(0)  // first_mb_in_slice
            w.writeUE(7)  // slice_type I
            w.writeUE(1)  // pic_parameter_set_id
            w.writeBits(0, count: 4)  // frame_num
            w.writeUE(testCase.idrPicId)
            w.writeBits(0, count: 6)  // pic_order_cnt_lsb
            w.writeFlag(false); w.writeFlag(false)  // dec_ref_pic_marking()
            w.writeSE(0)  // slice_qp_delta
            w.writeUE(testCase.deblockingIdc)
            if testCase.deblockingIdc != 1 { w.writeSE(1); w.writeSE(-1) }
        }
        guard let expected = testCase.warnings else {
            #expect(throws: BitstreamError.self) { try H264.SliceHeader(nalUnit: bytes[...], parameterSets: sets) }
            return
        }
        let header = try H264.SliceHeader(nalUnit: bytes[...], parameterSets: sets)
        #expect(header.warnings.map(\.syntaxElement) == expected)
        #expect(header.idrPicId == testCase.idrPicId)
        #expect(header.disableDeblockingFilterIdc == testCase.deblockingIdc)
        #expect(header.sliceAlphaC0OffsetDiv2 == 1 && header.sliceBetaOffsetDiv2 == -1)
    }

    /// A slice that starts past the picture cannot be decoded: refused, as FFmpeg refuses it. SPSBuilder's
    /// picture is 120×68 macroblocks = 8160.
    @Test(arguments: [(8159, true), (8160, false), (100_000, false)])
    func firstMbInSliceWithinThePicture(_ firstMb: Int, _ accepted: Bool) throws {
        let sets = try SliceHeaderTests.parameterSets()
        let bytes = SliceHeaderTests.nal(0x65) { w in
            w.writeUE(firstMb); w.writeUE(7); w.writeUE(1); w.writeBits(0, count: 4); w.writeUE(0)
            w.writeBits(0, count: 6); w.writeFlag(false); w.writeFlag(false); w.writeSE(0); w.writeUE(1)
        }
        if accepted {
            #expect(try H264.SliceHeader(nalUnit: bytes[...], parameterSets: sets).firstMbInSlice == firstMb)
        } else {
            #expect(throws: BitstreamError.self) { try H264.SliceHeader(nalUnit: bytes[...], parameterSets: sets) }
        }
    }
}
