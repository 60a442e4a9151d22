import Testing
@testable import Bitstream

struct HEVCLevelTests {
    @Test func namesAndIdcs() {
        #expect(HEVC.Level.allCases.map(\.name)
            == ["1", "2", "2.1", "3", "3.1", "4", "4.1", "5", "5.1", "5.2", "6", "6.1", "6.2"])
        #expect(HEVC.Level(name: "4.1")?.generalLevelIdc == 123)
        #expect(HEVC.Level(generalLevelIdc: 93) == .level3_1)
        #expect(HEVC.Level(generalLevelIdc: 91) == nil)
        #expect(HEVC.Level(name: "4.3") == nil)
        #expect(HEVC.Profile(name: "main10") == .main10 && HEVC.Profile(name: "Main_10") == .main10)
        #expect(HEVC.Profile(name: "main-still-picture") == .mainStillPicture)
        #expect(HEVC.Profile(name: "high") == nil)
    }

    struct Case: Sendable {
        var width: Int, height: Int, fps: Double, bitRate: Int?, tier: HEVC.Tier, lowest: HEVC.Level?
    }

    /// Lowest levels by Table A.8 (MaxLumaPs), A.9 (MaxLumaSr, MaxBR · 1000 for Main).
    @Test(arguments: [
        Case(width: 320, height: 240, fps: 30, bitRate: nil, tier: .main, lowest: .level2),  // 2.3 M samples/s > level 1
        Case(width: 176, height: 144, fps: 15, bitRate: 128_000, tier: .main, lowest: .level1),
        Case(width: 176, height: 144, fps: 15, bitRate: 128_001, tier: .main, lowest: .level2),
        Case(width: 1280, height: 720, fps: 30, bitRate: 4_000_000, tier: .main, lowest: .level3_1),
        Case(width: 1920, height: 1080, fps: 30, bitRate: nil, tier: .main, lowest: .level4),
        Case(width: 1920, height: 1080, fps: 60, bitRate: nil, tier: .main, lowest: .level4_1),
        Case(width: 1920, height: 1080, fps: 30, bitRate: 15_000_000, tier: .main, lowest: .level4_1),
        Case(width: 1920, height: 1080, fps: 30, bitRate: 15_000_000, tier: .high, lowest: .level4),
        Case(width: 3840, height: 2160, fps: 60, bitRate: nil, tier: .main, lowest: .level5_1),
        Case(width: 8192, height: 4320, fps: 120, bitRate: nil, tier: .main, lowest: .level6_2),
        Case(width: 8192, height: 4320, fps: 240, bitRate: nil, tier: .main, lowest: nil),
        Case(width: 16889, height: 64, fps: 1, bitRate: nil, tier: .main, lowest: nil),  // wider than Sqrt(8 · MaxLumaPs)
        Case(width: Int.max, height: Int.max, fps: 30, bitRate: nil, tier: .main, lowest: nil),
    ])
    func lowestLevel(_ test: Case) {
        let level = HEVC.Level.lowest(
            width: test.width, height: test.height, fps: test.fps, bitRate: test.bitRate, tier: test.tier)
        #expect(level == test.lowest)
        if let level, let below = HEVC.Level.allCases.sorted().last(where: { $0 < level }) {
            #expect(!below.violations(width: test.width, height: test.height, fps: test.fps, bitRate: test.bitRate,
                                      tier: test.tier).isEmpty)
        }
    }

    @Test func tiersAndDpb() {
        #expect(HEVC.Level.level3.maxBitRate(tier: .high) == nil)
        #expect(HEVC.Level.level3.violations(width: 64, height: 64, fps: 1, tier: .high).map(\.limit) == [.tier])
        #expect(HEVC.Level.level4_1.maxBitRate(tier: .high) == 50_000_000)
        #expect(HEVC.Level.level4_1.maxBitRate(hrd: .nal) == 22_000_000)
        #expect(HEVC.Level.level5.maxCPBSize() == 25_000_000)
        #expect(HEVC.Level.level4_1.maxDpbSize(width: 1920, height: 1080) == 6)
        #expect(HEVC.Level.level4.maxDpbSize(width: 1280, height: 720) == 12)
        #expect(HEVC.Level.level4.maxDpbSize(width: 640, height: 360) == 16)
        #expect(HEVC.Level.level4.maxDpbSize(width: 1600, height: 900) == 8)
    }

    /// x265 signals the lowest level its picture size and rate fit, the same pick as `lowest`.
    @Test(arguments: ["160x120", "640x360", "1280x720", "1920x1080"])
    func agreesWithX265(_ size: String) throws {
        let stream = try HEVCFixtures.x265(size: size, frames: 1, params: "", ["-preset", "ultrafast"])
        defer { stream.remove() }
        let sps = try HEVC.SequenceParameterSet(nalUnit: try HEVCFixtures.first(.sps, in: stream.bytes))
        #expect(sps.level == HEVC.Level.lowest(width: sps.width, height: sps.height, fps: 30))
    }
}
