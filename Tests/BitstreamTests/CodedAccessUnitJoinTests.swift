import Bitstream
import Testing

/// `CodedAccessUnit(joiningAnnexB:…)`: NAL units in, one Annex-B access unit out with every NAL unit's range and
/// type laid down while joining.
struct CodedAccessUnitJoinTests {
    @Test(arguments: [
        ("H.264 SPS, PPS, IDR slice", VideoCodec.h264, [[0x67, 0x42], [0x68, 0xCE], [0x65, 0x88, 0x84]] as [[UInt8]],
         [0, 0, 0, 1, 0x67, 0x42, 0, 0, 0, 1, 0x68, 0xCE, 0, 0, 0, 1, 0x65, 0x88, 0x84] as [UInt8],
         [(7, 4 ..< 6), (8, 10 ..< 12), (5, 16 ..< 19)]),
        // HEVC: nal_unit_type in bits 1…6 of the first header byte (VPS 32, IDR_W_RADL 19).
        ("HEVC VPS, IDR", .hevc, [[0x40, 0x01, 0x0C], [0x26, 0x01, 0xAF]],
         [0, 0, 0, 1, 0x40, 0x01, 0x0C, 0, 0, 0, 1, 0x26, 0x01, 0xAF], [(32, 4 ..< 7), (19, 11 ..< 14)]),
        ("nothing", .h264, [], [], []),
    ] as [(String, VideoCodec, [[UInt8]], [UInt8], [(UInt8, Range<Int>)])])
    func joins(name: String, codec: VideoCodec, nalUnits: [[UInt8]], bytes: [UInt8], units: [(UInt8, Range<Int>)]) {
        let unit = CodedAccessUnit(joiningAnnexB: nalUnits, codec: codec, isKeyframe: true,
                                   presentationTime: MediaTime(value: 1, timescale: 30))
        #expect(unit.bytes == bytes, "\(name)")
        #expect(unit.framing == .annexB && unit.codec == codec && unit.isKeyframe, "\(name)")
        #expect(unit.nalUnits == units.map { CodedAccessUnit.NALUnit(type: $0.0, range: $0.1) }, "\(name)")
        #expect(unit.nalUnitBytes.map(Array.init) == nalUnits, "\(name): the ranges give the NAL units back")
        #expect(unit.decodeTime == unit.presentationTime, "\(name)")
    }
}
