import Testing
@testable import Bitstream

/// §7.4.2.4.4 on hand-made NAL unit sequences (two header bytes and one payload byte, whose top bit is
/// first_slice_segment_in_pic_flag for slices), and on x265 streams at test time.
struct HEVCAccessUnitTests {
    static func nal(_ type: UInt8, first: Bool = true, layer: UInt8 = 0) -> ArraySlice<UInt8> {
        let header = HEVC.NALUnitHeader(nalUnitType: .init(rawValue: type), nuhLayerId: layer)
        return [header.bytes.0, header.bytes.1, first ? 0x80 : 0x40][...]
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// (nal_unit_type, first_slice_segment_in_pic_flag, nuh_layer_id)
        var nalUnits: [(UInt8, Bool, UInt8)]
        /// NAL unit count per access unit.
        var expected: [Int]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "x265 IDR then two trailing pictures",
             nalUnits: [(32, true, 0), (33, true, 0), (34, true, 0), (39, true, 0), (20, true, 0), (1, true, 0),
                        (0, true, 0)],
             expected: [5, 1, 1]),
        Case(name: "slices of one picture stay together",
             nalUnits: [(19, true, 0), (19, false, 0), (19, false, 0), (1, true, 0), (1, false, 0)],
             expected: [3, 2]),
        Case(name: "suffix SEI, EOS, filler stay with the picture; AUD starts the next",
             nalUnits: [(35, true, 0), (21, true, 0), (40, true, 0), (38, true, 0), (36, true, 0), (35, true, 0),
                        (19, true, 0)],
             expected: [5, 2]),
        Case(name: "prefix SEI and PPS between pictures start the next",
             nalUnits: [(1, true, 0), (39, true, 0), (1, true, 0), (34, true, 0), (1, true, 0)],
             expected: [1, 2, 2]),
        Case(name: "reserved 41 and unspecified 48 start one, reserved 45 does not",
             nalUnits: [(1, true, 0), (45, true, 0), (41, true, 0), (1, true, 0), (48, true, 0), (1, true, 0)],
             expected: [2, 2, 2]),
        Case(name: "a layer-1 picture follows the base layer's",
             nalUnits: [(1, true, 0), (1, true, 1), (34, true, 1), (1, true, 0)],
             expected: [3, 1]),
        Case(name: "a stream that starts mid-picture",
             nalUnits: [(1, false, 0), (1, false, 0), (1, true, 0)],
             expected: [2, 1]),
    ]

    @Test(arguments: cases)
    func grouping(_ test: Case) {
        let units = HEVC.accessUnits(of: test.nalUnits.map { Self.nal($0.0, first: $0.1, layer: $0.2) })
        #expect(units.map(\.nalUnits.count) == test.expected)
        #expect(units.flatMap(\.nalUnits).count == test.nalUnits.count)
    }

    /// A NAL unit too short for a header stays with its access unit (found by FuzzHEVC: it used to be dropped).
    @Test func shortNALUnitsStayAndTheBoundIsKept() {
        var splitter = HEVC.AccessUnitSplitter()
        #expect(splitter.append([0x02][...])?.nalUnits == nil)
        #expect(splitter.flush()?.nalUnits == [[0x02][...]])
        let units = HEVC.accessUnits(of: [Self.nal(1), [0x26][...], Self.nal(1)])
        #expect(units.map(\.nalUnits.count) == [2, 1])
        var cuts = 0
        for _ in 0..<(HEVC.AccessUnitSplitter.maxNALUnitsPerAccessUnit + 10) {
            if splitter.append(Self.nal(1, first: false)) != nil { cuts += 1 }
        }
        #expect(cuts == 1)
    }

    /// Each picture is one access unit, its IRAP flag and type agree with ffprobe's key_frame and pict_type, and
    /// its QP is the first slice's SliceQpY.
    @Test(arguments: ["keyint=4", "keyint=5:slices=2", "keyint=3:open-gop=0"])
    func x265Pictures(_ params: String) throws {
        let stream = try HEVCFixtures.x265(
            size: "320x240", frames: 9, params: params, ["-preset", "ultrafast", "-tune", "zerolatency"])
        defer { stream.remove() }
        let units = HEVC.accessUnits(of: SyntaxFixtures.nalUnits(annexB: stream.bytes))
        let frames = try SyntaxFixtures.probeFrames(stream.path)
        try #require(units.count == 9)
        try #require(frames.count == 9)
        for (unit, frame) in zip(units, frames) {
            #expect(unit.isIRAP == frame.keyFrame)
            #expect(unit.pictureSliceType?.name == frame.pictType)
            #expect(unit.sliceHeaderError == nil)
            #expect(unit.qp != nil)
        }
        #expect(units[0].nalUnitTypes.prefix(3).map(\.rawValue) == [32, 33, 34])
    }
}
