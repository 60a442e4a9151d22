import Bitstream
import Testing

@testable import EncoderSession

/// The SPS the session emits says exactly what was asked for; levels that cannot carry the stream are refused.
@Suite struct ProfileLevelTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var profile: H264Profile
        var level: H264Level?
        var width: Int, height: Int
        var bitRate: Int
        /// Expected SPS bytes 1...3: profile_idc, constraint flags, level_idc (nil: encoder's choice, checked ≥ 10).
        var profileIDC: UInt8, constraintFlags: UInt8, levelIDC: UInt8?
        var testDescription: String { "\(profile.rawValue) \(level?.name ?? "auto") \(width)×\(height)" }
    }

    static let cases: [Case] = [
        // profile_idc 66, no constraint flags: plain Baseline (x264 itself writes set0 + set1).
        Case(
            profile: .baseline, level: .level3, width: 320, height: 240, bitRate: 500_000, profileIDC: 66,
            constraintFlags: 0x00, levelIDC: 30),
        // 66 + set0 + set1 + set2: Constrained Baseline as WebRTC offers it, profile-level-id 42e01f.
        Case(
            profile: .constrainedBaseline, level: .level3_1, width: 640, height: 360, bitRate: 800_000, profileIDC: 66,
            constraintFlags: 0xE0, levelIDC: 31),
        Case(
            profile: .main, level: .level4, width: 320, height: 240, bitRate: 500_000, profileIDC: 77,
            constraintFlags: 0x00, levelIDC: 40),
        Case(
            profile: .high, level: .level4_1, width: 320, height: 240, bitRate: 500_000, profileIDC: 100,
            constraintFlags: 0x00, levelIDC: 41),
        // High + set4 (frame_mbs_only): Progressive High.
        Case(
            profile: .progressiveHigh, level: .level3_2, width: 320, height: 240, bitRate: 500_000, profileIDC: 100,
            constraintFlags: 0x08, levelIDC: 32),
        // High + set4 + set5 (A.2.4.2): Constrained High.
        Case(
            profile: .constrainedHigh, level: .level5_2, width: 320, height: 240, bitRate: 500_000, profileIDC: 100,
            constraintFlags: 0x0C, levelIDC: 52),
        // No level: the lowest that carries 320×240 at 30 fps and 500 kb/s in High (Table A-1), 1.3 — not x264's guess.
        Case(
            profile: .high, level: nil, width: 320, height: 240, bitRate: 500_000, profileIDC: 100,
            constraintFlags: 0x00, levelIDC: 13),
    ]

    @Test(arguments: cases, [OutputFormat.annexB, .avcc])
    func spsCarriesTheRequestedProfileAndLevel(_ testCase: Case, format: OutputFormat) throws {
        var configuration = Configuration(
            width: testCase.width, height: testCase.height, encoder: .software, outputFormat: format,
            profileLevel: ProfileLevel(profile: testCase.profile, level: testCase.level), realTime: true,
            allowFrameReordering: false, expectedFrameRate: 30, preset: .ultrafast,
            live: LiveProperties(averageBitRate: testCase.bitRate))
        configuration.threadCount = 1
        let outputs = try runSession(configuration, count: 3)
        #expect(outputs.count == 3)
        let first = try #require(outputs.first?.frame)
        let sets = try #require(first.parameterSets)
        let sps = try #require(sets.sequenceParameterSets.first)
        #expect(sps[1] == testCase.profileIDC)
        #expect(sps[2] == testCase.constraintFlags)
        if let level = testCase.levelIDC { #expect(sps[3] == level) } else { #expect(sps[3] >= 10) }
        switch format {
        case .annexB:
            // The SPS inside the access unit is the patched one too.
            let inBand = try #require(first.nalUnits.first { $0.type == 7 })
            #expect(Array(first.bytes[inBand.range]) == sps)
            #expect(sets.avcC == nil)
        case .avcc:
            let record = try #require(sets.avcC)
            #expect(record.avcProfileIndication == testCase.profileIDC)
            #expect(record.profileCompatibility == testCase.constraintFlags)
            #expect(record.sequenceParameterSets == [sps])
            // The avcC bytes parse back to the same record.
            #expect(try AVCDecoderConfigurationRecord(parsing: record.serialized()[...]) == record)
            // AVCC samples: 4-byte lengths that tile the bytes exactly, no in-band parameter sets.
            var offset = 0
            for unit in first.nalUnits {
                let b = first.bytes
                let length =
                    Int(b[offset]) << 24 | Int(b[offset + 1]) << 16 | Int(b[offset + 2]) << 8 | Int(b[offset + 3])
                #expect(unit.range == (offset + 4)..<(offset + 4 + length))
                offset += 4 + length
            }
            #expect(offset == first.bytes.count)
            #expect(!first.nalUnits.contains { $0.type == 7 || $0.type == 8 })
        }
    }

    struct Refusal: Sendable {
        var level: H264Level, width: Int, height: Int, fps: Double, bitRate: Int, lowest: String
    }

    /// Table A-1: 1080p30 is 8160 MBs (3.1's MaxFS is 3600) → 4.0; 720p60 is 216 000 MB/s (3.1: 108 000) → 3.2;
    /// 12 Mb/s Main exceeds 3.0's MaxBR (10 000 × 1000 b/s) and fits 3.1's 14 Mb/s.
    @Test(arguments: [
        Refusal(level: .level3_1, width: 1920, height: 1080, fps: 30, bitRate: 4_000_000, lowest: "4"),
        Refusal(level: .level3_1, width: 1280, height: 720, fps: 60, bitRate: 2_000_000, lowest: "3.2"),
        Refusal(level: .level3, width: 640, height: 480, fps: 30, bitRate: 12_000_000, lowest: "3.1"),
    ])
    func levelThatCannotCarryTheStreamIsRefusedNamingTheLowestThatCan(_ refusal: Refusal) {
        let configuration = Configuration(
            width: refusal.width, height: refusal.height, encoder: .software,
            profileLevel: ProfileLevel(profile: .main, level: refusal.level), expectedFrameRate: refusal.fps,
            live: LiveProperties(averageBitRate: refusal.bitRate))
        #expect {
            _ = try CompressionSession(configuration: configuration)
        } throws: { error in
            guard let error = error as? EncoderSessionError else { return false }
            return error.code == .levelTooLow
                && error.reason.hasSuffix("the lowest level that can is \(refusal.lowest)")
        }
    }

    /// `.realTimeCommunication` picks the lowest level that carries the stream, as the CLI does, so 1080p opens
    /// (it used to be pinned to 3.1 and refused at init); the SPS carries that level (ffprobe reads it).
    @Test(arguments: [
        (640, 360, 800_000, 30), (1280, 720, 2_000_000, 31), (1920, 1080, 4_000_000, 40), (1920, 1080, 16_000_000, 41),
    ])
    func realTimeCommunicationUsesTheLowestLevelThatCarriesTheStream(width: Int, height: Int, bitRate: Int, level: Int) throws {
        var configuration = Configuration.realTimeCommunication(
            width: width, height: height, averageBitRate: bitRate, encoder: .software)
        configuration.preset = .ultrafast
        #expect(configuration.profileLevel.level == nil)
        #expect(configuration.resolvedLevel?.rawValue == level)
        let outputs = try runSession(configuration, count: 2)
        #expect(try ffprobeStreamField(annexBStream(outputs.compactMap(\.frame)), "level") == "\(level)")
    }

    @Test func profilesTheEncodersCannotMakeAreRefused() {
        var configuration = smallRealTime()
        configuration.profileLevel = ProfileLevel(profile: .high422, level: nil)
        #expect(throws: EncoderSessionError.self) { _ = try CompressionSession(configuration: configuration) }
    }

    /// ffprobe names the profile the SPS signals — an independent reading of profile_idc and constraint_set1
    /// (FFmpeg names no constrained High variant: it calls Constrained High plain "High").
    @Test(arguments: [
        (H264Profile.constrainedBaseline, "Constrained Baseline"), (.baseline, "Baseline"), (.main, "Main"),
        (.high, "High"), (.constrainedHigh, "High"),
    ])
    func ffprobeNamesTheProfile(profile: H264Profile, name: String) throws {
        var configuration = smallRealTime()
        configuration.profileLevel = ProfileLevel(profile: profile, level: .level3_1)
        let outputs = try runSession(configuration, count: 2)
        let stream = annexBStream(outputs.compactMap(\.frame))
        #expect(try ffprobeStreamField(stream, "profile") == name)
        #expect(try ffprobeStreamField(stream, "level") == "31")
    }
}
