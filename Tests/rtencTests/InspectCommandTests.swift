import Foundation
import TestSupport
import Testing

/// `rtenc inspect` on streams made by ffmpeg/x264 must agree with ffprobe on the same file.
@Suite struct InspectCommandTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var size: String
        var frames: Int
        var ffmpegArguments: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "baseline 320x240, keyint 10", size: "320x240", frames: 25,
             ffmpegArguments: ["-profile:v", "baseline", "-g", "10", "-x264-params", "scenecut=0"]),
        Case(name: "main 640x360 level 3.0", size: "640x360", frames: 12,
             ffmpegArguments: ["-profile:v", "main", "-level", "3.0", "-bf", "2", "-g", "5"]),
        Case(name: "high 1920x1080 (cropped from 1088), 2 slices", size: "1920x1080", frames: 4,
             ffmpegArguments: ["-profile:v", "high", "-x264-params", "slices=2"]),
        Case(name: "high422 at 25 fps", size: "352x288", frames: 6,
             ffmpegArguments: ["-pix_fmt", "yuv422p", "-profile:v", "high422", "-r", "25"]),
        Case(name: "forced keyframes at 0, 7 and 13", size: "160x120", frames: 20,
             ffmpegArguments: ["-force_key_frames", "expr:eq(n,7)+eq(n,13)", "-g", "300", "-x264-params", "scenecut=0"]),
    ]

    @Test(arguments: cases)
    func agreesWithFFprobe(_ testCase: Case) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in.h264").path
        try LavfiMedia.testsrc2(file, size: testCase.size, frames: testCase.frames,
                               arguments: ["-c:v", "libx264", "-preset", "ultrafast"] + testCase.ffmpegArguments + ["-f", "h264"])

        let inspected = try CLIRunner.rtenc(["inspect", file], timeout: 60)
        try #require(inspected.status == 0, "rtenc inspect failed: \(inspected.stderrText)")
        let ours = try #require(try JSONSerialization.jsonObject(with: inspected.stdout) as? [String: Any])

        let probed = try CLIRunner.run("ffprobe", [
            "-loglevel", "error", "-show_streams", "-show_packets", "-of", "json", file,
        ], timeout: 60)
        try #require(probed.status == 0, "ffprobe failed: \(probed.stderrText)")
        let theirs = try #require(try JSONSerialization.jsonObject(with: probed.stdout) as? [String: Any])
        let stream = try #require((theirs["streams"] as? [[String: Any]])?.first)
        let packets = try #require(theirs["packets"] as? [[String: Any]])

        let spsList = try #require(ours["sps"] as? [[String: Any]])
        let sps = try #require(spsList.first)
        #expect(sps["width"] as? Int == stream["width"] as? Int)
        #expect(sps["height"] as? Int == stream["height"] as? Int)
        #expect(sps["level_idc"] as? Int == stream["level"] as? Int)
        #expect(Self.profileName(sps) == stream["profile"] as? String)

        let accessUnits = try #require(ours["access_units"] as? [[String: Any]])
        #expect(accessUnits.count == testCase.frames)
        #expect(accessUnits.count == packets.count)
        let ourKeyframes = accessUnits.enumerated().filter { $0.element["idr"] as? Bool == true }.map(\.offset)
        let theirKeyframes = packets.enumerated()
            .filter { ($0.element["flags"] as? String)?.hasPrefix("K") == true }.map(\.offset)
        #expect(ourKeyframes == theirKeyframes)
        #expect(!ourKeyframes.isEmpty && ourKeyframes.first == 0)
    }

    /// ffprobe's profile names (libavcodec's), from profile_idc and the constraint flags.
    static func profileName(_ sps: [String: Any]) -> String? {
        let set1 = sps["constraint_set1_flag"] as? Bool == true || sps["constraint_set1_flag"] as? Int == 1
        switch sps["profile_idc"] as? Int {
        case 66: return set1 ? "Constrained Baseline" : "Baseline"
        case 77: return "Main"
        case 100: return "High"
        case 110: return "High 10"
        case 122: return "High 4:2:2"
        case 244: return "High 4:4:4 Predictive"
        default: return nil
        }
    }

    @Test func summaryIsAShortTable() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in.h264").path
        try LavfiMedia.testsrc2(file, size: "160x120", frames: 3, arguments: ["-c:v", "libx264", "-preset", "ultrafast", "-f", "h264"])
        let result = try CLIRunner.rtenc(["inspect", "--summary", file])
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("160x120"))
        #expect(result.stdoutText.contains("3 access units"))
    }

    struct BadInput: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]?
        var testDescription: String { name }
    }

    static let badInputs: [BadInput] = [
        BadInput(name: "missing file", bytes: nil),
        BadInput(name: "empty file", bytes: []),
        BadInput(name: "garbage before any start code", bytes: Array("hello, not h264".utf8)),
        BadInput(name: "start code with nothing after it", bytes: [0, 0, 0, 1]),
        BadInput(name: "truncated SPS", bytes: [0, 0, 0, 1, 0x67, 0x64]),
    ]

    @Test(arguments: badInputs)
    func badInputIsOneLineAndStatus1(_ input: BadInput) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bad.h264")
        if let bytes = input.bytes { try Data(bytes).write(to: file) }
        let result = try CLIRunner.rtenc(["inspect", file.path])
        #expect(result.status == 1)
        #expect(!result.terminatedBySignal)
        #expect(result.stdout.isEmpty)
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1, "expected one line, got: \(result.stderrText)")
    }
}
