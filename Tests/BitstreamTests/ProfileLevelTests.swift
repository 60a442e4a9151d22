import Bitstream
import Foundation
import Testing

@Suite struct ProfileLevelTests {
    /// profile-level-id strings (RFC 6184 §8.1) with what they name. Bytes: profile_idc, profile-iop, level_idc.
    static let ids: [(hex: String, profile: H264Profile, level: H264Level)] = [
        ("42e01f", .constrainedBaseline, .level3_1),  // 66, set0+set1+set2, 31 — the WebRTC default
        ("42c01f", .constrainedBaseline, .level3_1),  // 66, set0+set1
        ("42001e", .baseline, .level3),  // 66, no flags, 30
        ("4d001f", .main, .level3_1),  // 77
        ("4d8028", .constrainedBaseline, .level4),  // 77 with set0: Main that Baseline decoders take
        ("58000d", .extended, .level1_3),  // 88
        ("640028", .high, .level4),  // 100
        ("640c2a", .constrainedHigh, .level4_2),  // 100, set4+set5
        ("640834", .progressiveHigh, .level5_2),  // 100, set4
        ("6e0033", .high10, .level5_1),  // 110
        ("6e1033", .high10Intra, .level5_1),  // 110, set3
        ("7a0028", .high422, .level4),  // 122
        ("f40032", .high444Predictive, .level5),  // 244
        ("2c1028", .cavlc444Intra, .level4),  // 44
        // Level 1b: level_idc 11 with constraint_set3 in Baseline/Main/Extended, level_idc 9 elsewhere.
        ("42f00b", .constrainedBaseline, .level1b),
        ("4d100b", .main, .level1b),
        ("640009", .high, .level1b),
        ("64100b", .high, .level1_1),  // set3 does not mean 1b in High
    ]

    @Test(arguments: ids)
    func parse(hex: String, profile: H264Profile, level: H264Level) throws {
        let id = try #require(H264.ProfileLevelID(hex))
        #expect(id.profile == profile)
        #expect(id.level == level)
        #expect(id.hexString == hex.lowercased())
        #expect(H264.ProfileLevelID(hex.uppercased()) == id)
    }

    @Test(arguments: ["", "42e01", "42e01f0", "zz001f", "42e0 f", "４２e01f"])
    func rejectsMalformed(_ text: String) {
        #expect(H264.ProfileLevelID(text) == nil)
    }

    /// Formatting then parsing gives back the profile and level, for every pair.
    @Test func roundTripEveryProfileAndLevel() {
        for profile in H264Profile.allCases {
            for level in H264Level.allCases {
                let id = H264.ProfileLevelID(profile: profile, level: level)
                let parsed = H264.ProfileLevelID(id.hexString)
                #expect(parsed?.profile == profile, "\(profile) \(level) \(id)")
                #expect(parsed?.level == level, "\(profile) \(level) \(id)")
            }
        }
        #expect(H264.ProfileLevelID(profile: .constrainedBaseline, level: .level3_1).hexString == "42e01f")
        #expect(H264.ProfileLevelID(profile: .high, level: .level4).hexString == "640028")
        #expect(H264.ProfileLevelID(profile: .baseline, level: .level1b).hexString == "42100b")
        #expect(H264.ProfileLevelID(profile: .high, level: .level1b).hexString == "640009")
    }

    @Test func unknownProfilesAndLevels() {
        #expect(H264.ProfileLevelID("530028")?.profile == nil)  // 83: Scalable Baseline, not in RFC 6184
        #expect(H264.ProfileLevelID("640017")?.level == nil)  // level_idc 23
        #expect(H264.ProfileLevelID("640069")?.level == nil)  // 105 is not a level_idc
        #expect(H264Level(levelIdc: 62) == .level6_2)
    }

    @Test func levelOrderAndNames() {
        let sorted = H264Level.allCases.sorted()
        #expect(sorted.first == .level1)
        #expect(sorted[1] == .level1b)
        #expect(sorted[2] == .level1_1)
        #expect(sorted.last == .level6_2)
        #expect(sorted.map(\.name).prefix(4) == ["1", "1b", "1.1", "1.2"])
        #expect(H264Level.level5_1.name == "5.1")
        #expect(H264Level.level4.name == "4")
        for level in H264Level.allCases { #expect(H264Level(name: level.name) == level) }
        #expect(H264Level(name: "4.3") == nil)
    }

    /// The lowest level for common formats (Table A-1: MaxFS and MaxMBPS decide these).
    @Test(arguments: [
        (176, 144, 15.0, H264Level.level1),  // QCIF: 99 MBs, 1485 MB/s
        (352, 288, 30.0, .level1_3),  // CIF: 396 MBs, 11880 MB/s (1.3 has level 2's MaxMBPS, less MaxBR)
        (352, 288, 60.0, .level3),  // 23760 MB/s: past 2.1 (19800) and 2.2 (20250)
        (640, 480, 30.0, .level3),  // 1200 MBs, 36000 MB/s
        (1280, 720, 30.0, .level3_1),  // 3600 MBs, 108000 MB/s
        (1280, 720, 60.0, .level3_2),  // 216000 MB/s
        (1920, 1080, 30.0, .level4),  // 8160 MBs, 244800 MB/s
        (1920, 1080, 60.0, .level4_2),  // 489600 MB/s
        (2560, 1440, 30.0, .level5),  // 14400 MBs, 432000 MB/s
        (3840, 2160, 30.0, .level5_1),  // 32400 MBs, 972000 MB/s
        (3840, 2160, 60.0, .level5_2),  // 1944000 MB/s
        (7680, 4320, 30.0, .level6),  // 129600 MBs, 3888000 MB/s
    ])
    func lowestLevel(width: Int, height: Int, fps: Double, expected: H264Level) {
        #expect(H264Level.lowest(width: width, height: height, fps: fps) == expected)
    }

    @Test func violationsNameTheLimit() {
        let at31 = H264Level.level3_1.violations(width: 1920, height: 1080, fps: 30)
        #expect(Set(at31.map(\.limit)) == [.frameSize, .macroblockRate])
        #expect(at31.first { $0.limit == .frameSize }?.required == 8160)
        #expect(at31.first { $0.limit == .frameSize }?.allowed == 3600)
        // A very wide picture within MaxFS breaks the side limit Sqrt(8 · MaxFS) (§A.3.1).
        let wide = H264Level.level3_1.violations(width: 4096, height: 64, fps: 1)
        #expect(wide.map(\.limit) == [.frameWidth])
        #expect(H264Level.level3_1.violations(width: 1280, height: 720, fps: 30).isEmpty)
    }

    /// MaxBR is in units of cpbBrVclFactor bit/s: 1000 for Baseline, 1250 for High, 3000 for High 10 (Table A-2).
    @Test func bitRateLimits() {
        #expect(H264Level.level3_1.maxBitRate(for: .baseline) == 14_000_000)
        #expect(H264Level.level3_1.maxBitRate(for: .high) == 17_500_000)
        #expect(H264Level.level3_1.maxBitRate(for: .high10) == 42_000_000)
        #expect(H264Level.level3_1.maxBitRate(for: .high444Predictive) == 56_000_000)
        #expect(H264Level.level3_1.maxBitRate(for: .baseline, hrd: .nal) == 16_800_000)
        #expect(H264Level.level4.maxCPBSize(for: .high) == 31_250_000)

        // 8 Mb/s fits 3.1 in Baseline; 16 Mb/s does not, but does in High (17.5 Mb/s).
        #expect(H264Level.level3_1.allows(width: 1280, height: 720, fps: 30, bitRate: 8_000_000, profile: .baseline))
        let over = H264Level.level3_1.violations(
            width: 1280, height: 720, fps: 30, bitRate: 16_000_000, profile: .constrainedBaseline)
        #expect(over.map(\.limit) == [.bitRate])
        #expect(over.first?.allowed == 14_000_000)
        #expect(H264Level.level3_1.allows(width: 1280, height: 720, fps: 30, bitRate: 16_000_000, profile: .high))
        // The bit rate alone can raise the level: 720p30 at 16 Mb/s Baseline needs 3.2 (20 Mb/s).
        #expect(H264Level.lowest(width: 1280, height: 720, fps: 30, bitRate: 16_000_000, profile: .baseline)
            == .level3_2)
        #expect(H264Level.lowest(width: 15360, height: 8640, fps: 30) == nil)
        // Absurd sizes do not trap.
        #expect(H264Level.lowest(width: .max, height: .max, fps: .infinity, bitRate: .max) == nil)
        #expect(H264Level.level1.maxDpbFrames(width: .max, height: .max) == 0)
    }

    @Test func maxDpbFrames() {
        #expect(H264Level.level4.maxDpbFrames(width: 1920, height: 1080) == 4)  // 32768 / 8160
        #expect(H264Level.level3_1.maxDpbFrames(width: 1280, height: 720) == 5)  // 18000 / 3600
        #expect(H264Level.level5_1.maxDpbFrames(width: 320, height: 240) == 16)  // capped
    }

    /// x264 picks the lowest level for frame size and rate (with one reference frame and no VBV nothing else
    /// raises it), so its choice must equal ours.
    @Test(arguments: [
        ("1280x720", "30"), ("1920x1080", "30"), ("1920x1080", "60"), ("640x480", "30"), ("3840x2160", "30"),
    ])
    func agreesWithx264(size: String, rate: String) throws {
        let stream = try SyntaxFixtures.x264(
            size: size, rate: rate, frames: 1, ["-preset", "ultrafast"])
        defer { stream.remove() }
        let bytes = stream.bytes
        let sps = try SyntaxFixtures.sps(in: bytes)
        let fps = try #require(sps.fps)
        #expect(H264Level.lowest(width: sps.width, height: sps.height, fps: fps) == sps.level, "\(size)@\(rate)")
    }
}
