import Foundation
import TestSupport
import Testing

/// `rtenc inspect` on H.265 streams from x265 (raw Annex-B and MP4) must agree with ffprobe on the same file.
@Suite struct InspectHEVCCommandTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var size: String
        var frames: Int
        var file: String
        var arguments: [String]
        var testDescription: String { name }
    }

    static let x265 = ["-c:v", "libx265", "-preset", "ultrafast"]

    static let cases: [Case] = [
        Case(name: "main 320x240, keyint 5, raw .h265", size: "320x240", frames: 12, file: "in.h265",
             arguments: x265 + ["-x265-params", "log-level=error:keyint=5:open-gop=0", "-f", "hevc"]),
        Case(name: "318x238 (conformance window), .hevc", size: "318x238", frames: 4, file: "in.hevc",
             arguments: x265 + ["-x265-params", "log-level=error", "-f", "hevc"]),
        Case(name: "main10 640x360, no extension", size: "640x360", frames: 3, file: "in.bin",
             arguments: x265 + ["-pix_fmt", "yuv420p10le", "-x265-params", "log-level=error", "-f", "hevc"]),
        Case(name: "1280x720 in MP4 (hvc1), open GOP", size: "1280x720", frames: 9, file: "in.mp4",
             arguments: x265 + ["-tag:v", "hvc1", "-x265-params", "log-level=error:keyint=4"]),
        Case(name: "352x288 in Matroska", size: "352x288", frames: 5, file: "in.mkv",
             arguments: x265 + ["-x265-params", "log-level=error:keyint=2"]),
    ]

    @Test(arguments: cases)
    func agreesWithFFprobe(_ testCase: Case) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent(testCase.file).path
        try LavfiMedia.testsrc2(file, size: testCase.size, frames: testCase.frames, arguments: testCase.arguments)

        let inspected = try CLIRunner.rtenc(["inspect", file], timeout: 60)
        try #require(inspected.status == 0, "rtenc inspect failed: \(inspected.stderrText)")
        let ours = try #require(try JSONSerialization.jsonObject(with: inspected.stdout) as? [String: Any])
        #expect(ours["codec"] as? String == "hevc")

        let probed = try CLIRunner.run("ffprobe", [
            "-loglevel", "error", "-show_streams", "-show_packets", "-of", "json", file,
        ], timeout: 60)
        try #require(probed.status == 0, "ffprobe failed: \(probed.stderrText)")
        let theirs = try #require(try JSONSerialization.jsonObject(with: probed.stdout) as? [String: Any])
        let stream = try #require((theirs["streams"] as? [[String: Any]])?.first)
        let packets = try #require(theirs["packets"] as? [[String: Any]])

        let sps = try #require((ours["sps"] as? [[String: Any]])?.first)
        #expect(sps["width"] as? Int == stream["width"] as? Int)
        #expect(sps["height"] as? Int == stream["height"] as? Int)
        #expect(sps["general_level_idc"] as? Int == stream["level"] as? Int)
        let profiles = [1: "Main", 2: "Main 10"]
        #expect(profiles[sps["general_profile_idc"] as? Int ?? 0] == stream["profile"] as? String)
        #expect(sps["general_tier_flag"] as? Bool == false)
        #expect(sps["pic_width_in_luma_samples"] as? Int != nil)
        #expect(sps["conf_win_right_offset"] != nil || sps["conformance_window_flag"] as? Bool == false)
        #expect(sps["fps"] as? Double == 30)

        let accessUnits = try #require(ours["access_units"] as? [[String: Any]])
        #expect(accessUnits.count == testCase.frames)
        #expect(accessUnits.count == packets.count)
        let ourKeyframes = accessUnits.enumerated().filter { $0.element["irap"] as? Bool == true }.map(\.offset)
        let theirKeyframes = packets.enumerated()
            .filter { ($0.element["flags"] as? String)?.hasPrefix("K") == true }.map(\.offset)
        #expect(ourKeyframes == theirKeyframes)
        #expect(ourKeyframes.first == 0)
        #expect(accessUnits.allSatisfy { $0["qp"] as? Int != nil })
    }

    /// x265 3.5 without VUI timing writes one bit too many before the SPS's stop bit: kept, flagged.
    @Test func warningsAreFlagged() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("notiming.h265").path
        try LavfiMedia.testsrc2(file, size: "160x120", frames: 2, arguments: Self.x265 + [
            "-x265-params", "log-level=error:vui-timing-info=0", "-f", "hevc"])
        let json = try CLIRunner.rtenc(["inspect", file])
        try #require(json.status == 0, "\(json.stderrText)")
        let ours = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let warnings = try #require(ours["warnings"] as? [[String: Any]])
        #expect(warnings.first?["structure"] as? String == "sps")
        #expect(warnings.first?["syntax_element"] as? String == "rbsp_trailing_bits")
        let summary = try CLIRunner.rtenc(["inspect", "--summary", file])
        #expect(summary.stdoutText.contains("H.265 main @ 2 main tier, 160x120"))  // 576 000 samples/s is past level 1
        #expect(summary.stdoutText.contains("fps not signalled"))
        #expect(summary.stdoutText.contains("warning: NAL unit 1 sps: rbsp_trailing_bits"))
    }

    /// --codec overrides the sniffed codec; a wrong one is one line and status 1, never a crash.
    @Test func codecOptionOverridesAndMismatchesFailCleanly() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let hevc = dir.appendingPathComponent("clip.h264").path  // an H.265 stream with a misleading extension
        try LavfiMedia.testsrc2(hevc, size: "160x120", frames: 2, arguments: Self.x265 + [
            "-x265-params", "log-level=error", "-f", "hevc"])
        let sniffed = try CLIRunner.rtenc(["inspect", "--summary", hevc])
        #expect(sniffed.status == 0 && sniffed.stdoutText.contains("H.265"), "\(sniffed.stderrText)")
        let forced = try CLIRunner.rtenc(["inspect", "--codec", "h264", hevc])
        #expect(forced.status == 1)
        #expect(forced.stderrText.split(separator: "\n").count == 1)
        #expect(forced.stderrText.hasPrefix("rtenc: inspect:"))
        let mp4 = dir.appendingPathComponent("clip.mp4").path
        try LavfiMedia.testsrc2(mp4, size: "160x120", frames: 2, arguments: Self.x265 + ["-x265-params", "log-level=error"])
        let mismatch = try CLIRunner.rtenc(["inspect", "--codec", "h264", mp4])
        #expect(mismatch.status == 1)
        #expect(mismatch.stderrText.contains("is H.265, not H.264"))
        let truncated = dir.appendingPathComponent("cut.h265")
        try Data([0, 0, 0, 1, 0x42, 0x01, 0x01, 0x01]).write(to: truncated)
        let cut = try CLIRunner.rtenc(["inspect", truncated.path])
        #expect(cut.status == 1 && cut.stderrText.split(separator: "\n").count == 1)
    }
}
