import Testing
@testable import Bitstream

struct HEVCNALUnitHeaderTests {
    /// Header bytes as x265 writes them (VPS, SPS, PPS, IDR_W_RADL, TRAIL_R, prefix SEI) plus layer/TID edge cases.
    @Test(arguments: [
        ([0x40, 0x01] as [UInt8], HEVC.NALUnitType.vps, UInt8(0), UInt8(1), false),
        ([0x42, 0x01], .sps, 0, 1, false),
        ([0x44, 0x01], .pps, 0, 1, false),
        ([0x26, 0x01], .idrWRADL, 0, 1, false),
        ([0x02, 0x01], .trailR, 0, 1, false),
        ([0x4E, 0x01], .prefixSEI, 0, 1, false),
        ([0x62, 0x01], .fragmentationUnit, 0, 1, false),
        ([0x60, 0x01], .aggregationPacket, 0, 1, false),
        ([0x01, 0xFF], .trailN, 63, 7, false),       // nuh_layer_id straddles the two bytes
        ([0xFE, 0x00], HEVC.NALUnitType(rawValue: 63), 0, 0, true),
    ])
    func fields(bytes: [UInt8], type: HEVC.NALUnitType, layer: UInt8, tid: UInt8, forbidden: Bool) throws {
        let header = try #require(HEVC.NALUnitHeader(bytes))
        #expect(header.nalUnitType == type)
        #expect(header.nuhLayerId == layer)
        #expect(header.nuhTemporalIdPlus1 == tid)
        #expect(header.forbiddenZeroBit == forbidden)
        let rebuilt = HEVC.NALUnitHeader(forbiddenZeroBit: forbidden, nalUnitType: type, nuhLayerId: layer, nuhTemporalIdPlus1: tid)
        #expect([rebuilt.bytes.0, rebuilt.bytes.1] == bytes)
    }

    @Test func shortInputHasNoHeader() {
        #expect(HEVC.NALUnitHeader([0x40] as [UInt8]) == nil)
        #expect(HEVC.NALUnitHeader([] as [UInt8]) == nil)
    }

    @Test(arguments: [
        (HEVC.NALUnitType.blaWLP, true, false), (.idrWRADL, true, true), (.idrNLP, true, true), (.cra, true, false),
        (HEVC.NALUnitType(rawValue: 23), true, false), (.trailR, false, false), (.raslN, false, false), (.vps, false, false),
    ])
    func randomAccessClasses(type: HEVC.NALUnitType, irap: Bool, idr: Bool) {
        #expect(type.isIRAP == irap)
        #expect(type.isIDR == idr)
        #expect(type.isVCL == (type.rawValue < 32))
    }
}
