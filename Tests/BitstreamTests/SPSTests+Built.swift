import Bitstream
import Testing

@Suite struct SPSBuiltTests {
    /// CropUnitX / CropUnitY (§7.4.2.1.1) for each chroma format and frame_mbs_only_flag.
    struct CropCase: Sendable, CustomTestStringConvertible {
        var chromaFormatIdc: Int
        var separateColourPlane = false
        var frameMbsOnly: Bool
        var crop: (left: Int, right: Int, top: Int, bottom: Int)
        var width: Int
        var height: Int
        var testDescription: String {
            "chroma_format_idc \(chromaFormatIdc)\(separateColourPlane ? " separate" : "") frame_mbs_only \(frameMbsOnly)"
        }
    }

    /// 120×68 MBs (1920×1088 coded); map units double when frame_mbs_only_flag is 0 (68 → 136 MB rows).
    static let cropCases: [CropCase] = [
        // 4:2:0: CropUnitX 2, CropUnitY 2 → the x264 1080p crop (bottom 4 → 8 rows).
        CropCase(chromaFormatIdc: 1, frameMbsOnly: true, crop: (0, 0, 0, 4), width: 1920, height: 1080),
        CropCase(chromaFormatIdc: 1, frameMbsOnly: true, crop: (1, 2, 3, 4), width: 1914, height: 1074),
        // 4:2:0 field-capable: CropUnitY 4.
        CropCase(chromaFormatIdc: 1, frameMbsOnly: false, crop: (0, 0, 0, 2), width: 1920, height: 2168),
        // 4:0:0: CropUnitX 1, CropUnitY 1 (2 when fields).
        CropCase(chromaFormatIdc: 0, frameMbsOnly: true, crop: (1, 2, 3, 4), width: 1917, height: 1081),
        CropCase(chromaFormatIdc: 0, frameMbsOnly: false, crop: (0, 0, 1, 1), width: 1920, height: 2172),
        // 4:2:2: CropUnitX 2, CropUnitY 1.
        CropCase(chromaFormatIdc: 2, frameMbsOnly: true, crop: (1, 2, 3, 4), width: 1914, height: 1081),
        CropCase(chromaFormatIdc: 2, frameMbsOnly: false, crop: (0, 0, 0, 8), width: 1920, height: 2160),
        // 4:4:4: CropUnitX 1, CropUnitY 1.
        CropCase(chromaFormatIdc: 3, frameMbsOnly: true, crop: (1, 2, 3, 4), width: 1917, height: 1081),
        // 4:4:4 as separate planes: ChromaArrayType 0, so the 4:0:0 units.
        CropCase(chromaFormatIdc: 3, separateColourPlane: true, frameMbsOnly: false, crop: (1, 0, 0, 1),
                 width: 1919, height: 2174),
    ]

    @Test(arguments: cropCases)
    func cropUnits(_ c: CropCase) throws {
        var builder = SPSBuilder()
        builder.profileIdc = 244
        builder.chromaFormatIdc = c.chromaFormatIdc
        builder.separateColourPlaneFlag = c.separateColourPlane
        builder.frameMbsOnlyFlag = c.frameMbsOnly
        builder.crop = c.crop
        let sps = try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...])
        #expect(sps.chromaFormatIdc == c.chromaFormatIdc)
        #expect(sps.separateColourPlaneFlag == c.separateColourPlane)
        #expect(sps.frameCropBottomOffset == c.crop.bottom)
        #expect(sps.width == c.width)
        #expect(sps.height == c.height)
    }

    @Test func croppingEverythingIsRejected() {
        var builder = SPSBuilder()
        builder.crop = (0, 0, 0, 544)  // 1088 rows / 2
        #expect(throws: BitstreamError.self) { try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...]) }
    }

    @Test func picOrderCntType1() throws {
        var builder = SPSBuilder()
        builder.picOrderCntType = 1
        builder.offsetForRefFrame = [1, -2, 3]
        let sps = try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...])
        #expect(sps.deltaPicOrderAlwaysZeroFlag == false)
        #expect(sps.offsetForNonRefPic == -5)
        #expect(sps.offsetForTopToBottomField == 7)
        #expect(sps.offsetForRefFrame == [1, -2, 3])
        #expect(sps.log2MaxPicOrderCntLsbMinus4 == nil)

        builder.offsetForRefFrame = Array(repeating: 1, count: 255)
        #expect(try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...]).offsetForRefFrame?.count == 255)
        builder.offsetForRefFrame = Array(repeating: 1, count: 256)
        do {
            _ = try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...])
            Issue.record("256 offsets accepted")
        } catch {
            #expect(error.code == .invalidValue)
        }
    }

    @Test func baselineSkipsChromaFields() throws {
        var builder = SPSBuilder()
        builder.profileIdc = 66
        builder.chromaFormatIdc = 3  // not written for profile 66
        let sps = try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...])
        #expect(sps.chromaFormatIdc == 1)
        #expect(sps.bitDepthLuma == 8)
    }

    @Test func highBitDepthAndMonochrome() throws {
        var builder = SPSBuilder()
        builder.profileIdc = 110
        builder.chromaFormatIdc = 0
        builder.bitDepthLumaMinus8 = 2
        builder.bitDepthChromaMinus8 = 2
        let sps = try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...])
        #expect(sps.chromaArrayType == 0)
        #expect(sps.bitDepthLuma == 10)
        builder.bitDepthLumaMinus8 = 7
        #expect(throws: BitstreamError.self) { try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...]) }
    }

    /// Scaling lists: delta_scale accumulates modulo 256; a first nextScale of 0 means "use the default".
    @Test func scalingLists() throws {
        var builder = SPSBuilder()
        var lists: [[Int]?] = Array(repeating: nil, count: 8)
        lists[0] = [-8]  // 8 − 8 = 0 at j = 0: useDefaultScalingMatrixFlag
        // 4×4 list: 16 ups by 1 from 8: 9 … 24.
        lists[1] = Array(repeating: 1, count: 16)
        // Ends early: 8+2 = 10, then delta −10 makes nextScale 0 → the rest repeat 10.
        lists[2] = [2, -10]
        // 8×8 list with wrap-around: 8 − 9 + 256 = 255, then 255 + 1 − 256 = 0 → repeat 255.
        lists[6] = [-9, 1]
        builder.scalingLists = lists
        let sps = try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...])
        let parsed = try #require(sps.seqScalingLists)
        #expect(parsed.count == 8)
        #expect(parsed[0] == .useDefault)
        #expect(parsed[1] == .explicit((9...24).map(UInt8.init)))
        #expect(parsed[2] == .explicit(Array(repeating: 10, count: 16)))
        #expect(parsed[3] == .notPresent)
        #expect(parsed[6] == .explicit(Array(repeating: 255, count: 64)))
        #expect(parsed[7] == .notPresent)

        // 4:4:4 reads 12 lists.
        builder.chromaFormatIdc = 3
        builder.scalingLists = Array(repeating: nil, count: 11) + [[0, -8]]
        let sps444 = try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...])
        #expect(sps444.seqScalingLists?.count == 12)
        #expect(sps444.seqScalingLists?[11] == .explicit(Array(repeating: 8, count: 64)))
    }

    /// VUI with Extended_SAR, colour description, chroma location, timing and both HRDs.
    @Test func fullVUI() throws {
        var builder = SPSBuilder()
        builder.vui = { w in
            w.writeFlag(true); w.writeBits(255, count: 8)  // aspect_ratio_idc Extended_SAR
            w.writeBits(64, count: 16); w.writeBits(45, count: 16)  // sar_width, sar_height
            w.writeFlag(true); w.writeFlag(true)  // overscan_info_present_flag, overscan_appropriate_flag
            w.writeFlag(true); w.writeBits(5, count: 3); w.writeFlag(true)  // video_format 5, full range
            w.writeFlag(true); w.writeBits(1, count: 8); w.writeBits(1, count: 8); w.writeBits(1, count: 8)
            w.writeFlag(true); w.writeUE(1); w.writeUE(2)  // chroma_loc_info
            w.writeFlag(true); w.writeBits(1001, count: 32); w.writeBits(60000, count: 32); w.writeFlag(true)
            for _ in 0..<2 {  // nal_hrd, then vcl_hrd
                w.writeFlag(true)
                w.writeUE(1)  // cpb_cnt_minus1
                w.writeBits(0, count: 4); w.writeBits(3, count: 4)  // bit_rate_scale 0, cpb_size_scale 3
                w.writeUE(15624); w.writeUE(31249); w.writeFlag(false)  // 1 Mb/s (15625 << 6), 4 Mbit (31250 << 7)
                w.writeUE(0); w.writeUE(0); w.writeFlag(true)
                w.writeBits(23, count: 5); w.writeBits(23, count: 5); w.writeBits(23, count: 5); w.writeBits(24, count: 5)
            }
            w.writeFlag(false)  // low_delay_hrd_flag
            w.writeFlag(true)  // pic_struct_present_flag
            w.writeFlag(false)  // bitstream_restriction_flag
        }
        let sps = try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...])
        let vui = try #require(sps.vuiParameters)
        #expect(vui.aspectRatioIdc == 255)
        #expect(vui.sarWidth == 64 && vui.sarHeight == 45)
        #expect(vui.overscanAppropriateFlag == true)
        #expect(vui.videoFormat == 5 && vui.videoFullRangeFlag == true)
        #expect(vui.colourPrimaries == 1 && vui.transferCharacteristics == 1 && vui.matrixCoefficients == 1)
        #expect(vui.chromaSampleLocTypeTopField == 1 && vui.chromaSampleLocTypeBottomField == 2)
        #expect(vui.fixedFrameRateFlag == true)
        let fps = try #require(sps.fps)
        #expect(abs(fps - 29.97) < 0.001)
        for hrd in [vui.nalHrdParameters, vui.vclHrdParameters] {
            let hrd = try #require(hrd)
            #expect(hrd.cpbCntMinus1 == 1)
            #expect(hrd.schedSel.count == 2)
            #expect(hrd.bitRate() == 1_000_000)
            #expect(hrd.cpbSize() == 4_000_000)
            #expect(hrd.schedSel[1].cbrFlag)
            #expect(hrd.timeOffsetLength == 24)
        }
        #expect(vui.lowDelayHrdFlag == false)
        #expect(vui.picStructPresentFlag)
        #expect(vui.maxNumReorderFrames == nil)
    }

    @Test func boundsOnHostileValues() {
        for mutate in [
            { (b: inout SPSBuilder) in b.seqParameterSetId = 32 },
            { (b: inout SPSBuilder) in b.chromaFormatIdc = 4 },
            { (b: inout SPSBuilder) in b.log2MaxFrameNumMinus4 = 13 },
            { (b: inout SPSBuilder) in b.picOrderCntType = 3 },
            { (b: inout SPSBuilder) in b.maxNumRefFrames = 17 },
            { (b: inout SPSBuilder) in b.picWidthInMbsMinus1 = 1 << 20 },
        ] {
            var builder = SPSBuilder()
            mutate(&builder)
            do {
                _ = try H264.SequenceParameterSet(nalUnit: builder.nalUnit[...])
                Issue.record("hostile value accepted")
            } catch {
                #expect(error.code == .invalidValue)
            }
        }
    }
}
