import MediaCore
import Testing

@Suite struct CodedAccessUnitTests {
    @Test(arguments: [
        // codec, first header byte, nal_unit_type
        (VideoCodec.h264, UInt8(0x67), UInt8(7)),   // SPS, nal_ref_idc 3
        (.h264, 0x65, 5),                           // IDR slice
        (.h264, 0x06, 6),                           // SEI, nal_ref_idc 0
        (.hevc, 0x40, 32),                          // VPS: 0|100000|0 …
        (.hevc, 0x26, 19),                          // IDR_W_RADL
        (.hevc, 0x02, 1),                           // TRAIL_R
    ])
    func nalUnitTypeFromTheHeaderByte(codec: VideoCodec, byte: UInt8, type: UInt8) {
        #expect(codec.nalUnitType(firstByte: byte) == type)
    }

    @Test func nalUnitsAreSlicesOfTheBytes() {
        let bytes: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0, 0, 1, 0x68, 0xCE, 0, 0, 1, 0x65, 0x88, 0x84]
        let unit = CodedAccessUnit(
            codec: .h264, bytes: bytes, framing: .annexB,
            nalUnits: [.init(type: 7, range: 4 ..< 6), .init(type: 8, range: 9 ..< 11), .init(type: 5, range: 14 ..< 17)],
            isKeyframe: true, presentationTime: MediaTime(value: 3000, timescale: 90_000))
        #expect(unit.nalUnitBytes.map(Array.init) == [[0x67, 0x42], [0x68, 0xCE], [0x65, 0x88, 0x84]])
        #expect(unit.decodeTime == unit.presentationTime)
    }
}
