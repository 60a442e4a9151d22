import Testing
@testable import Bitstream

/// SPSs of producers other than x265, from the test vectors of peers' H.265 parsers (only the bytes are copied):
/// bluenviron/mediacommon `pkg/codecs/h265/sps_test.go` (its names: an NVIDIA NVENC stream, an Avigilon camera with
/// PCM and 16-bit POC LSBs, a 4:4:4 12-bit format-range-extensions stream, a 10-bit High-tier stream, one with
/// long-term pictures, a 1920x800 23.976 fps one) and AlexxIT/go2rtc `pkg/h265/h265_test.go` (two cameras). The
/// expected values are the ones those tests state. No other H.265 encoder installs here: Debian bookworm has no
/// kvazaar or SVT-HEVC package, GStreamer's x265enc is x265 again, and hevc_vaapi/hevc_nvenc need hardware.
struct HEVCForeignSPSTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var hex: String
        var width: Int
        var height: Int
        var fps: Double?
        var profileIdc: UInt8
        var tier: HEVC.Tier = .main
        var levelIdc: UInt8
        var chromaFormatIdc = 1
        var bitDepth = 8
        var testDescription: String { name }
    }

    static let vectors: [Vector] = [
        Vector(name: "mediacommon nvenc 1920x1088 cropped", hex: "4201010140000003000003000003000003007ba003c0801107cb96b4a42592e3016a02020208000003000800000301e3002ef2880007270c0000989682",
               width: 1920, height: 1080, fps: 60, profileIdc: 1, levelIdc: 123),
        Vector(name: "mediacommon avigilon 3072x1728 PCM", hex: "420101016000000300800000030000030096a001802006c1fe36bbb5377725d602dc0404041000003e800004268721dee510016e200066ff000b71000337f880",
               width: 3072, height: 1728, fps: 17, profileIdc: 1, levelIdc: 150),
        Vector(name: "mediacommon 4:4:4 12-bit rext", hex: "420101040800000300980800000300005d9000501005a2294b7494985ffe00020002d404040410000003001000000301e080",
               width: 1280, height: 720, fps: 30, profileIdc: 4, levelIdc: 93, chromaFormatIdc: 3, bitDepth: 12),
        Vector(name: "mediacommon 10-bit high tier", hex: "420101222000000300900000030000030078a003c08010e4d96666924caf0101000003006400000bb508",
               width: 1920, height: 1080, fps: 29.97, profileIdc: 2, tier: .high, levelIdc: 120, bitDepth: 10),
        Vector(name: "mediacommon long-term pictures", hex: "420101016000000300b0000003000003005da00280802d1636b924cbf0080000030008000003019508",
               width: 1280, height: 720, fps: 50, profileIdc: 1, levelIdc: 93),
        Vector(name: "mediacommon 1920x800 23.976", hex: "420101016000000300900000030000030078a003c08032165959a4932bc05a80808082000007d20000bb8010",
               width: 1920, height: 800, fps: 24000.0 / 1001, profileIdc: 1, levelIdc: 120),
        Vector(name: "go2rtc camera 5120x1440", hex: "42010101600000030000030000030000030099a000a00801687f8aad3ba24bbffc00040005b02002932e00337f9801",
               width: 5120, height: 1440, fps: nil, profileIdc: 1, levelIdc: 153),
        Vector(name: "go2rtc camera 640x360", hex: "420101214000000300900000030000030096a00502016967a5b91285cd404080b84000000300400000051449ff78400ea60015f95f080410",
               width: 640, height: 360, fps: nil, profileIdc: 1, tier: .high, levelIdc: 150),
    ]

    @Test(arguments: vectors)
    func parses(_ vector: Vector) throws {
        let bytes = HEVCFixtures.bytes(vector.hex)
        let sps = try HEVC.SequenceParameterSet(nalUnit: bytes[...])
        #expect(sps.width == vector.width && sps.height == vector.height)
        if let fps = vector.fps {
            #expect(abs((sps.fps ?? 0) - fps) < 1e-9)
        }
        #expect(sps.profileTierLevel.generalProfileIdc == vector.profileIdc)
        #expect(sps.tier == vector.tier)
        #expect(sps.profileTierLevel.generalLevelIdc == vector.levelIdc)
        #expect(sps.chromaFormatIdc == vector.chromaFormatIdc)
        #expect(sps.bitDepthLuma == vector.bitDepth)
        // Drip feed: each strict prefix fails with a typed error or keeps the size with a truncation warning.
        for length in 0..<bytes.count {
            do {
                let prefix = try HEVC.SequenceParameterSet(nalUnit: bytes[..<length])
                #expect(prefix.warnings.contains { $0.code == .truncated }, "prefix \(length) parsed clean")
                #expect(prefix.width == sps.width && prefix.height == sps.height)
            } catch {
                #expect([.truncated, .emptyNALUnit].contains(error.code), "prefix \(length): \(error)")
            }
        }
    }

    @Test func avigilonAndNvencDetails() throws {
        let avigilon = try HEVC.SequenceParameterSet(nalUnit: HEVCFixtures.bytes(Self.vectors[1].hex)[...])
        #expect(avigilon.pcmEnabledFlag && avigilon.pcmSampleBitDepthLumaMinus1 == 7)
        #expect(avigilon.log2MaxPicOrderCntLsb == 16)
        #expect(avigilon.vuiParameters?.videoFullRangeFlag == true)
        let nvenc = try HEVC.SequenceParameterSet(nalUnit: HEVCFixtures.bytes(Self.vectors[0].hex)[...])
        #expect(nvenc.confWinBottomOffset == 4 && nvenc.picHeightInLumaSamples == 1088)
        #expect(nvenc.shortTermRefPicSets == [HEVC.ShortTermRefPicSet(deltaPocS0: [-1], usedByCurrPicS0: [true])])
        let longTerm = try HEVC.SequenceParameterSet(nalUnit: HEVCFixtures.bytes(Self.vectors[4].hex)[...])
        #expect(longTerm.longTermRefPicsPresentFlag)
        #expect(longTerm.vuiParameters?.vuiNumTicksPocDiffOneMinus1 == 1)
    }
}
