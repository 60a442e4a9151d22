import Bitstream
import Foundation
import Testing

@Suite struct AccessUnitTests {
    typealias PPSSwitches = SliceHeaderTests.PPSSwitches

    /// Slice header fields that §7.4.1.2.4 compares.
    struct Slice {
        var nalRefIdc: UInt8 = 2
        var idr = false
        var firstMb = 0
        var sliceType = 5  // P, all slices
        var ppsId = 1
        var frameNum = 1
        var idrPicId = 0
        var pocLsb = 2
        var redundantPicCnt: Int?

        var nalUnit: [UInt8] {
            let header = nalRefIdc << 5 | (idr ? 5 : 1)
            return SliceHeaderTests.nal(header) { w in
                w.writeUE(firstMb)
                w.writeUE(idr ? 7 : sliceType)
                w.writeUE(ppsId)
                w.writeBits(frameNum, count: 4)
                if idr { w.writeUE(idrPicId) }
                w.writeBits(pocLsb, count: 6)
                if let redundantPicCnt { w.writeUE(redundantPicCnt) }
                if !idr, sliceType % 5 != 2 {
                    w.writeFlag(false)  // num_ref_idx_active_override_flag
                    w.writeFlag(false)  // ref_pic_list_modification_flag_l0
                }
                if nalRefIdc != 0 {
                    if idr { w.writeFlag(false); w.writeFlag(false) } else { w.writeFlag(false) }
                }
                if !idr, sliceType % 5 != 2 { w.writeUE(0) }  // cabac_init_idc
                w.writeSE(0)  // slice_qp_delta
                w.writeUE(1)  // disable_deblocking_filter_idc
            }
        }
    }

    static let sps = SPSBuilder().nalUnit
    static let pps = PPSSwitches().nalUnit
    static let aud: [UInt8] = [0x09, 0x10]  // primary_pic_type 0, trailing bits
    static let sei: [UInt8] = [0x06, 0x05, 0x01, 0x00, 0x80]
    static let endOfSequence: [UInt8] = [0x0A]

    static func group(_ nals: [[UInt8]]) -> [[Int]] {
        // Report the grouping as indices into `nals`, which is easy to compare.
        let slices = nals.map { $0[...] }
        let units = H264.accessUnits(of: slices)
        var result: [[Int]] = []
        var next = 0
        for unit in units {
            result.append(Array(next..<(next + unit.nalUnits.count)))
            next += unit.nalUnits.count
        }
        return result
    }

    @Test func parameterSetsAndDelimitersStartAccessUnits() throws {
        let idr = Slice(nalRefIdc: 3, idr: true, frameNum: 0, pocLsb: 0).nalUnit
        let idrSecondSlice = Slice(nalRefIdc: 3, idr: true, firstMb: 60, frameNum: 0, pocLsb: 0).nalUnit
        let p = Slice(frameNum: 1, pocLsb: 2).nalUnit
        let p2 = Slice(frameNum: 2, pocLsb: 4).nalUnit
        let nals = [
            Self.aud, Self.sps, Self.pps, Self.sei, idr, idrSecondSlice,  // AU 0: 0…5
            Self.aud, p,  // AU 1: 6…7
            Self.sei, p2, Self.endOfSequence,  // AU 2: 8…10 (end of sequence trails its AU)
            Self.sps, Self.pps, idr,  // AU 3: 11…13
        ]
        #expect(Self.group(nals) == [Array(0...5), [6, 7], [8, 9, 10], [11, 12, 13]])

        let units = H264.accessUnits(of: nals.map { $0[...] })
        #expect(units.map(\.isIDR) == [true, false, false, true])
        #expect(units.map(\.primarySliceType) == [.i, .p, .p, .i])
        #expect(units.map(\.qp) == [23, 23, 23, 23])
        #expect(units.allSatisfy { $0.sliceHeaderError == nil })

        let summary = try JSONSerialization.jsonObject(with: JSONEncoder().encode(units[0])) as? [String: Any]
        #expect(summary?["nal_unit_types"] as? [Int] == [9, 7, 8, 6, 5, 5])
        #expect(summary?["idr"] as? Bool == true)
        #expect(summary?["primary_slice_type"] as? String == "I")
        #expect(summary?["qp"] as? Int == 23)
        #expect((summary?["first_slice_header"] as? [String: Any])?["idr_pic_id"] as? Int == 0)
    }

    /// §7.4.1.2.4: a slice with first_mb_in_slice ≠ 0 still starts a new picture when one of the compared
    /// fields differs from the previous slice (arbitrary slice order), and joins it when none does.
    @Test(arguments: [
        ("same picture", Slice(firstMb: 30), false),
        ("frame_num", Slice(firstMb: 30, frameNum: 2), true),
        ("pic_parameter_set_id", Slice(firstMb: 30, ppsId: 2), true),
        ("nal_ref_idc zero", Slice(nalRefIdc: 0, firstMb: 30), true),
        ("nal_ref_idc both non-zero", Slice(nalRefIdc: 3, firstMb: 30), false),
        ("pic_order_cnt_lsb", Slice(firstMb: 30, pocLsb: 3), true),
        ("IdrPicFlag", Slice(nalRefIdc: 2, idr: true, firstMb: 30, frameNum: 1, pocLsb: 2), true),
        ("first_mb_in_slice 0", Slice(firstMb: 0), true),
    ] as [(String, Slice, Bool)])
    func firstSliceOfNewPicture(name: String, second: Slice, startsNew: Bool) {
        var pps2 = PPSSwitches()
        pps2.ppsId = 2
        let first = Slice(firstMb: 0)
        let nals = [Self.sps, Self.pps, pps2.nalUnit, first.nalUnit, second.nalUnit]
        #expect(Self.group(nals) == (startsNew ? [[0, 1, 2, 3], [4]] : [[0, 1, 2, 3, 4]]), "\(name)")
    }

    @Test func idrPicIdDifferenceSplitsConsecutiveIDRs() {
        let a = Slice(nalRefIdc: 3, idr: true, firstMb: 0, frameNum: 0, idrPicId: 0, pocLsb: 0)
        let b = Slice(nalRefIdc: 3, idr: true, firstMb: 10, frameNum: 0, idrPicId: 1, pocLsb: 0)
        #expect(Self.group([Self.sps, Self.pps, a.nalUnit, b.nalUnit]) == [[0, 1, 2], [3]])
    }

    @Test func redundantSlicesJoinThePrimaryPicture() {
        var pps = PPSSwitches()
        pps.redundantPicCntPresentFlag = true
        let primary = Slice(firstMb: 0, redundantPicCnt: 0)
        let redundant = Slice(firstMb: 0, redundantPicCnt: 1)
        let next = Slice(firstMb: 0, frameNum: 2, pocLsb: 4, redundantPicCnt: 0)
        let nals = [Self.sps, pps.nalUnit, primary.nalUnit, redundant.nalUnit, next.nalUnit]
        #expect(Self.group(nals) == [[0, 1, 2, 3], [4]])
    }

    /// Joined mid-stream: no parameter sets, so only first_mb_in_slice separates pictures, and each access unit
    /// says why it has no header.
    @Test func withoutParameterSets() {
        let nals = [Slice(firstMb: 0).nalUnit, Slice(firstMb: 40).nalUnit, Slice(firstMb: 0, frameNum: 2).nalUnit]
        let units = H264.accessUnits(of: nals.map { $0[...] })
        #expect(units.map(\.nalUnits.count) == [2, 1])
        #expect(units.allSatisfy { $0.firstSliceHeader == nil && $0.sliceHeaderError?.code == .missingParameterSet })
        #expect(units.allSatisfy { $0.qp == nil })
    }

    /// The streaming splitter hands out each access unit as soon as the next one starts, and the one-shot
    /// function agrees with it.
    @Test func streamingMatchesOneShot() {
        let idr = Slice(nalRefIdc: 3, idr: true, frameNum: 0, pocLsb: 0).nalUnit
        var nals: [[UInt8]] = [Self.sps, Self.pps, idr]
        for frame in 1..<10 {
            nals.append(Slice(frameNum: frame, pocLsb: 2 * frame).nalUnit)
        }
        var splitter = H264.AccessUnitSplitter()
        var completedAt: [Int] = []
        for (index, nal) in nals.enumerated() {
            if splitter.append(nal[...]) != nil { completedAt.append(index) }
        }
        #expect(completedAt == Array(3..<12))
        #expect(splitter.flush()?.nalUnits.count == 1)
        #expect(splitter.flush() == nil)
        #expect(H264.accessUnits(of: nals.map { $0[...] }).count == 10)
        #expect(splitter.parameterSets.pictureParameterSets[1] != nil)
    }

    /// A stream that never starts a new picture cannot make the splitter hold NAL units without bound.
    @Test func boundedAccessUnits() {
        var splitter = H264.AccessUnitSplitter()
        var completed = 0
        let filler: [UInt8] = [0x0C, 0xFF, 0x80]
        for _ in 0..<(H264.AccessUnitSplitter.maxNALUnitsPerAccessUnit * 2 + 5) {
            if let unit = splitter.append(filler[...]) {
                completed += 1
                #expect(unit.nalUnits.count == H264.AccessUnitSplitter.maxNALUnitsPerAccessUnit)
            }
        }
        #expect(completed == 2)
    }

    @Test func emptyAndMalformedNALUnitsDoNotTrap() {
        var splitter = H264.AccessUnitSplitter()
        #expect(splitter.append([][...]) == nil)
        _ = splitter.append([0x67, 0xFF][...])  // truncated SPS
        #expect(splitter.lastParameterSetError?.code == .truncated)
        #expect(splitter.append([0x65][...]) == nil)  // slice with no header bits joins the SPS
        // An unreadable first_mb_in_slice counts as 0: a new picture.
        let first = splitter.append([0x41, 0x00, 0x00, 0x00][...])
        #expect(first?.nalUnits.count == 2)
        #expect(first?.sliceHeaderError?.code == .truncated)
        #expect(splitter.flush()?.nalUnits.count == 1)
    }
}

/// A committed x264 stream, so grouping is tested without ffmpeg too. Made with
/// `ffmpeg -f lavfi -i testsrc2=size=64x64:rate=25 -frames:v 8 -c:v libx264 -preset veryfast -bf 1 -g 4
///  -x264-params slices=2:scenecut=0 -f h264 x264-high-64x64-2slices-bf1-g4.h264`;
/// ffprobe reports 8 frames, key frames at 0 and 4, High, level 10, 64x64, 25/1.
@Suite struct AccessUnitFixtureTests {
    @Test func x264TwoSlicesWithBFrames() throws {
        let bytes = try SyntaxFixtures.fixture("x264-high-64x64-2slices-bf1-g4.h264")
        let units = H264.accessUnits(of: SyntaxFixtures.nalUnits(annexB: bytes))
        #expect(units.count == 8)
        #expect(units.map(\.isIDR) == [true, false, false, false, true, false, false, false])
        #expect(units.allSatisfy { $0.nalUnitTypes.filter { [1, 5].contains($0.rawValue) }.count == 2 })
        #expect(units.compactMap(\.primarySliceType).filter { $0 == .b }.count == 2)
        let sps = try SyntaxFixtures.sps(in: bytes)
        #expect(sps.profile == .high)
        #expect(sps.level == .level1)
        #expect(sps.width == 64 && sps.height == 64)
        #expect(sps.fps == 25)
    }
}
