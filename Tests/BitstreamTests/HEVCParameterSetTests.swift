import Foundation
import Testing
@testable import Bitstream

/// VPS, SPS and PPS of the committed x265 vectors, field by field where it matters, drip-fed, and bent into the
/// lenient cases FFmpeg accepts.
struct HEVCParameterSetTests {
    @Test(arguments: HEVCFixtures.vectors)
    func committedVectors(_ vector: HEVCFixtures.Vector) throws {
        let vps = try HEVC.VideoParameterSet(nalUnit: vector.vps[...])
        let sps = try HEVC.SequenceParameterSet(nalUnit: vector.sps[...])
        let pps = try HEVC.PictureParameterSet(nalUnit: vector.pps[...])
        #expect(vps.warnings.isEmpty, "\(vps.warnings)")
        // x265 3.5 writes one 0 bit too many before the stop bit when the VUI has no timing; FFmpeg's decoder
        // reads past it (its cbs trace_headers refuses the SPS), so the parse keeps it with a warning.
        let expectedWarnings: [BitstreamWarning.Code] = vector.name.hasSuffix("notiming") ? [.trailingData] : []
        #expect(sps.warnings.map(\.code) == expectedWarnings, "\(sps.warnings)")
        #expect(pps.warnings.isEmpty, "\(pps.warnings)")
        #expect(vps.vpsVideoParameterSetId == 0)
        #expect(vps.vpsMaxSubLayersMinus1 == 0)
        #expect(vps.profileTierLevel == sps.profileTierLevel)
        #expect(sps.width == vector.width)
        #expect(sps.height == vector.height)
        #expect(sps.profile == vector.profile)
        #expect(sps.bitDepthLuma == vector.bitDepth && sps.bitDepthChroma == vector.bitDepth)
        #expect(sps.fps == vector.fps)
        #expect(sps.level == .level2)  // general_level_idc 60, as ffprobe reports
        #expect(sps.tier == .main)
        #expect(sps.chromaFormatIdc == 1)
        #expect(sps.picWidthInLumaSamples == 320 && sps.picHeightInLumaSamples == 240)
        #expect(sps.ctbSizeY == (vector.name.contains("ultrafast") ? 32 : 64))
        #expect(pps.ppsSeqParameterSetId == sps.spsSeqParameterSetId)
        let general = try #require(sps.profileTierLevel.general)
        #expect(general.profileCompatibilityFlag(Int(vector.profile.rawValue)))
        #expect(general.progressiveSourceFlag && !general.interlacedSourceFlag)
        #expect(!general.nonPackedConstraintFlag && general.frameOnlyConstraintFlag)
    }

    @Test func x265MainFieldByField() throws {
        let vector = HEVCFixtures.x265Main320x240
        let sps = try HEVC.SequenceParameterSet(nalUnit: vector.sps[...])
        #expect(sps.conformanceWindowFlag == false)
        #expect(sps.log2MaxPicOrderCntLsb == 8)
        #expect(sps.subLayerOrderingInfo == [HEVC.SubLayerOrderingInfo(
            maxDecPicBufferingMinus1: 4, maxNumReorderPics: 2, maxLatencyIncreasePlus1: 5)])
        #expect(sps.minCbLog2SizeY == 3 && sps.ctbLog2SizeY == 6)
        #expect(sps.picSizeInCtbsY == 5 * 4)
        #expect(sps.scalingListEnabledFlag == false)
        #expect(sps.sampleAdaptiveOffsetEnabledFlag)
        #expect(sps.numShortTermRefPicSets == 0)
        #expect(sps.longTermRefPicsPresentFlag == false)
        #expect(sps.spsTemporalMvpEnabledFlag)
        let vui = try #require(sps.vuiParameters)
        #expect(vui.vuiNumUnitsInTick == 1 && vui.vuiTimeScale == 30)
        #expect(vui.vuiHrdParametersPresentFlag == false)
        let pps = try HEVC.PictureParameterSet(nalUnit: vector.pps[...])
        #expect(pps.initQpMinus26 == 0)
        #expect(pps.dependentSliceSegmentsEnabledFlag == false)
        #expect(pps.numExtraSliceHeaderBits == 0)
        #expect(pps.cuQpDeltaEnabledFlag)
        #expect(pps.weightedPredFlag && !pps.weightedBipredFlag)  // x265's default weightp
        #expect(pps.entropyCodingSyncEnabledFlag && !pps.tilesEnabledFlag)  // x265's default wpp
    }

    @Test func conformanceWindowCropsToOddSize() throws {
        let sps = try HEVC.SequenceParameterSet(nalUnit: HEVCFixtures.vectors[2].sps[...])
        #expect(sps.conformanceWindowFlag)
        let offsets: [Int] = [sps.confWinLeftOffset, sps.confWinRightOffset, sps.confWinTopOffset, sps.confWinBottomOffset]
        #expect(offsets == [0, 1, 0, 1])
        #expect(sps.width == 318 && sps.height == 238)
    }

    @Test func hrdParametersAreReadThrough() throws {
        let sps = try HEVC.SequenceParameterSet(nalUnit: HEVCFixtures.vectors[4].sps[...])
        let hrd = try #require(sps.vuiParameters?.hrdParameters)
        #expect(hrd.nalHrdParametersPresentFlag || hrd.vclHrdParametersPresentFlag)
        // vbv-maxrate 600 kbit/s, vbv-bufsize 600 kbit.
        #expect(hrd.bitRate == 600_000)
        #expect(hrd.cpbSize == 600_000)
        #expect(sps.vuiParameters?.bitstreamRestrictionFlag == false)
    }

    /// Every strict prefix of a valid parameter set fails with a typed error or, cut in the VUI or before the
    /// extension flag, keeps the whole's size with a truncation warning. Only the whole parses clean.
    @Test(arguments: HEVCFixtures.vectors)
    func dripFeed(_ vector: HEVCFixtures.Vector) throws {
        let whole = try HEVC.SequenceParameterSet(nalUnit: vector.sps[...])
        #expect(!whole.warnings.contains { $0.code == .truncated })
        for length in 0..<vector.sps.count {
            do {
                let sps = try HEVC.SequenceParameterSet(nalUnit: vector.sps[..<length])
                #expect(sps.warnings.contains { $0.code == .truncated }, "prefix of \(length) parsed clean")
                #expect(sps.width == whole.width && sps.height == whole.height)
            } catch {
                #expect([.truncated, .emptyNALUnit].contains(error.code), "\(error)")
            }
        }
        for length in 0..<vector.vps.count {
            #expect(throws: BitstreamError.self) { try HEVC.VideoParameterSet(nalUnit: vector.vps[..<length]) }
        }
        for length in 0..<vector.pps.count {
            do {
                let pps = try HEVC.PictureParameterSet(nalUnit: vector.pps[..<length])
                Issue.record("PPS prefix of \(length) bytes parsed: \(pps)")
            } catch {
                #expect([.truncated, .emptyNALUnit].contains(error.code), "\(error)")
            }
        }
    }

    @Test func rejectsOtherTypesAndWarnsOnTrailingGarbage() throws {
        var vector = HEVCFixtures.x265Main320x240.sps
        vector[0] = 0x44  // PPS
        #expect(throws: BitstreamError.self) { try HEVC.SequenceParameterSet(nalUnit: vector[...]) }
        let sps = try HEVC.SequenceParameterSet(nalUnit: (HEVCFixtures.x265Main320x240.sps + [0x55])[...])
        #expect(sps.warnings.map(\.code) == [.trailingData])
        var forbidden = HEVCFixtures.x265Main320x240.sps
        forbidden[0] |= 0x80
        #expect(throws: BitstreamError.self) { try HEVC.SequenceParameterSet(nalUnit: forbidden[...]) }
    }

    /// Lenient like FFmpeg: values that derive nothing are kept with a warning. Built by rewriting the x265
    /// SPS's RBSP with the bit writer so each case changes one syntax element.
    @Test func lenientValuesWarn() throws {
        // A conformance window that removes everything: FFmpeg shows the whole picture.
        let whole = try HEVCSPSBuilder(x265: HEVCFixtures.x265Main320x240.sps).with(confWin: (0, 200, 0, 0)).nalUnit()
        let sps = try HEVC.SequenceParameterSet(nalUnit: whole[...])
        #expect(sps.width == 320 && sps.height == 240)
        #expect(sps.warnings.map(\.syntaxElement) == ["conf_win_left_offset"])
        // vui_num_units_in_tick 0: no frame rate, a warning.
        let noTick = try HEVCSPSBuilder(x265: HEVCFixtures.x265Main320x240.sps).with(numUnitsInTick: 0).nalUnit()
        let tickless = try HEVC.SequenceParameterSet(nalUnit: noTick[...])
        #expect(tickless.fps == nil)
        #expect(tickless.warnings.map(\.syntaxElement) == ["vui_num_units_in_tick"])
    }

    /// What decoding needs is refused: a picture size that is not a multiple of MinCbSizeY, a bit depth past 16.
    @Test func refusesWhatCannotDecode() throws {
        let odd = try HEVCSPSBuilder(x265: HEVCFixtures.x265Main320x240.sps).with(width: 321).nalUnit()
        #expect(throws: BitstreamError.self) { try HEVC.SequenceParameterSet(nalUnit: odd[...]) }
        let zero = try HEVCSPSBuilder(x265: HEVCFixtures.x265Main320x240.sps).with(width: 0).nalUnit()
        #expect(throws: BitstreamError.self) { try HEVC.SequenceParameterSet(nalUnit: zero[...]) }
    }

    @Test func parameterSetStoreKeepsLatestById() throws {
        var sets = HEVC.ParameterSets()
        for vector in [HEVCFixtures.vectors[0], HEVCFixtures.vectors[2]] {
            #expect(try sets.update(nalUnit: vector.vps[...]))
            #expect(try sets.update(nalUnit: vector.sps[...]))
            #expect(try sets.update(nalUnit: vector.pps[...]))
        }
        #expect(try !sets.update(nalUnit: [0x26, 0x01, 0xAF][...]))
        #expect(sets.sequenceParameterSets.count == 1)
        #expect(sets.sequenceParameterSets[0]?.width == 318)
        let active = try sets.active(pictureParameterSetId: 0)
        #expect(active.sps.height == 238)
        #expect(throws: BitstreamError.self) { try sets.active(pictureParameterSetId: 5) }
    }
}
