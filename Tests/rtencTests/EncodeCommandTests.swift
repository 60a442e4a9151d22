import Foundation
import TestSupport
import Testing

/// `rtenc encode` checked from outside: ffprobe must agree on what we wrote.
@Suite struct EncodeCommandTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var output: String
        var width: Int
        var height: Int
        var frames: Int
        var profile: String
        var level: Int
        var keyframes: [Int]
        /// ffprobe's codec_name.
        var codec = "h264"
        /// ffprobe's codec_tag_string, checked for .mp4 outputs (the sample entry).
        var tag = "avc1"
        var testDescription: String { name }
    }

    // Without --level the lowest level that carries size, rate and the capped bit rate: 320x240 at 2 Mb/s × 1.5
    // needs 2.1 (MaxBR 4000 kb/s; 1.2 allows only 384 kb/s).
    static let cases: [Case] = [
        Case(name: "keyint 15", arguments: ["--size", "320x240", "--frames", "45", "--keyint", "15"],
             output: "out.h264", width: 320, height: 240, frames: 45, profile: "Constrained Baseline", level: 21,
             keyframes: [0, 15, 30]),
        Case(name: "forced IDRs on 7 and 20", arguments: ["--size", "320x240", "--frames", "30", "--force-idr", "7,20"],
             output: "out.h264", width: 320, height: 240, frames: 30, profile: "Constrained Baseline", level: 21,
             keyframes: [0, 7, 20]),
        Case(name: "high 4.0 to mp4", arguments: ["--size", "640x360", "--frames", "20", "--profile", "high",
                                                   "--level", "4", "--keyint", "10"],
             output: "out.mp4", width: 640, height: 360, frames: 20, profile: "High", level: 40, keyframes: [0, 10]),
        Case(name: "main, default level for 720p30 is 3.1", arguments: ["--frames", "6", "--profile", "main"],
             output: "out.h264", width: 1280, height: 720, frames: 6, profile: "Main", level: 31, keyframes: [0]),
        // HEVC: 320x240 at 3 Mb/s peak needs level 2.1 (MaxBR 3000 kb/s); general_level_idc is 30 × the level.
        Case(name: "hevc keyint 15", arguments: ["--codec", "hevc", "--size", "320x240", "--frames", "45", "--keyint", "15"],
             output: "out.h265", width: 320, height: 240, frames: 45, profile: "Main", level: 63,
             keyframes: [0, 15, 30], codec: "hevc"),
        Case(name: "hevc main10 level 3.1, forced IDR on 7", arguments: [
            "--codec", "hevc", "--profile", "main10", "--level", "3.1", "--size", "640x360", "--frames", "20",
            "--force-idr", "7",
        ], output: "out.hevc", width: 640, height: 360, frames: 20, profile: "Main 10", level: 93, keyframes: [0, 7],
             codec: "hevc"),
        // HEVC into MP4: an hvc1 sample entry with the hvcC built from the stream's VPS/SPS/PPS.
        Case(name: "hevc to mp4 (hvc1), keyint 10", arguments: [
            "--codec", "hevc", "--size", "320x240", "--frames", "30", "--keyint", "10",
        ], output: "out.mp4", width: 320, height: 240, frames: 30, profile: "Main", level: 63, keyframes: [0, 10, 20],
             codec: "hevc", tag: "hvc1"),
        Case(name: "h265 main10 to mp4, forced IDR on 5", arguments: [
            "--codec", "h265", "--profile", "main10", "--size", "352x288", "--frames", "12", "--force-idr", "5",
        ], output: "out.mp4", width: 352, height: 288, frames: 12, profile: "Main 10", level: 63, keyframes: [0, 5],
             codec: "hevc", tag: "hvc1"),
    ]

    @Test(arguments: cases)
    func ffprobeAgrees(_ testCase: Case) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent(testCase.output).path
        let statsPath = dir.appendingPathComponent("stats.jsonl").path
        let result = try CLIRunner.rtenc(
            ["encode", "--quiet", "-o", output, "--stats-json", statsPath] + testCase.arguments, timeout: 120)
        try #require(result.status == 0, "\(result.stderrText)")

        let probe = try FFprobe.probe(output)
        #expect(probe.codec == testCase.codec)
        #expect(probe.width == testCase.width)
        #expect(probe.height == testCase.height)
        #expect(probe.profile == testCase.profile)
        #expect(probe.level == testCase.level)
        #expect(probe.frames == testCase.frames)
        #expect(probe.keyframes == testCase.keyframes)

        // One stats line per input frame, whose types put IDRs where ffprobe found keyframes.
        let lines = try String(contentsOfFile: statsPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == testCase.frames)
        let stats = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        for key in ["index", "pts", "bytes", "type", "qp", "encode_us", "overhead_us", "dropped"] {
            #expect(stats.allSatisfy { $0[key] != nil }, "missing \(key)")
        }
        #expect(stats.map { $0["index"] as? Int } == (0..<testCase.frames).map { $0 })
        let idrs = stats.enumerated().filter { $0.element["type"] as? String == "IDR" }.map(\.offset)
        #expect(idrs == testCase.keyframes)
        // Real time: no B-frames, and no intra picture but the IDRs.
        #expect(stats.allSatisfy { ["IDR", "P"].contains($0["type"] as? String) })
        if !testCase.output.hasSuffix(".mp4") {
            let total = stats.reduce(0) { $0 + ($1["bytes"] as? Int ?? 0) }
            let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int
            #expect(total == size)
        } else {
            #expect(probe.tag == testCase.tag)
            // The test pattern runs at 30 fps: the track lasts frames / 30 s.
            #expect(probe.duration.map { abs($0 - Double(testCase.frames) / 30) < 0.001 } == true, "\(probe.duration ?? -1)")
            // Every frame decodes, without a word from the decoder.
            let decoded = try CLIRunner.run("ffmpeg", ["-nostdin", "-loglevel", "error", "-xerror", "-i", output,
                                                       "-f", "framemd5", "-"], timeout: 60)
            #expect(decoded.status == 0 && decoded.stderrText.isEmpty, "\(decoded.stderrText)")
            #expect(decoded.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == testCase.frames)
        }
    }

    @Test func y4mOnStandardInput() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let y4m = dir.appendingPathComponent("in.y4m").path
        try LavfiMedia.testsrc2(y4m, size: "176x144", frames: 12, rate: 25,
                               arguments: ["-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe"])
        let output = dir.appendingPathComponent("out.h264").path
        let result = try CLIRunner.rtenc(["encode", "-", "-o", output, "--quiet"],
                                         stdin: try Data(contentsOf: URL(fileURLWithPath: y4m)))
        try #require(result.status == 0, "\(result.stderrText)")
        let probe = try FFprobe.probe(output)
        #expect(probe.width == 176 && probe.height == 144)
        #expect(probe.frames == 12)
    }

    struct BadCase: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var status: Int32
        var testDescription: String { name }
    }

    static let badCases: [BadCase] = [
        BadCase(name: "missing input file", arguments: ["missing.mp4", "-o", "OUT.h264"], status: 1),
        BadCase(name: "endless test pattern", arguments: ["-o", "OUT.h264"], status: 64),
        BadCase(name: "unknown output type", arguments: ["--frames", "2", "-o", "OUT.xyz"], status: 1),
        BadCase(name: "level too low for the size", arguments: ["--frames", "2", "--size", "1920x1080", "--level", "3",
                                                            "-o", "OUT.h264"], status: 1),
        BadCase(name: "zero bitrate", arguments: ["--frames", "2", "--bitrate", "0", "-o", "OUT.h264"], status: 64),
        BadCase(name: "negative bitrate", arguments: ["--frames", "2", "--bitrate=-1M", "-o", "OUT.h264"], status: 64),
        BadCase(name: "odd size", arguments: ["--frames", "2", "--size", "321x240", "-o", "OUT.h264"], status: 64),
        BadCase(name: "cap ratio that overflows", arguments: ["--frames", "2", "--max-rate-ratio", "1e300", "-o", "OUT.h264"],
                status: 64),
        BadCase(name: "bit rate too small for any frame", arguments: ["--frames", "2", "--bitrate", "5", "-o", "OUT.h264"],
                status: 64),
        BadCase(name: "absurd size", arguments: ["--frames", "2", "--size", "100000x100000", "-o", "OUT.h264"],
                status: 64),
        BadCase(name: "unknown profile", arguments: ["--frames", "2", "--profile", "ultra", "-o", "OUT.h264"],
                status: 64),
        BadCase(name: "unusable VA device", arguments: ["--frames", "2", "--encoder", "vaapi", "--device", "/dev/null",
                                                        "-o", "OUT.h264"], status: 1),
        BadCase(name: "garbage file", arguments: ["FIXTURES/garbage.mp4", "-o", "OUT.h264"], status: 1),
        BadCase(name: "truncated MP4", arguments: ["FIXTURES/truncated.mp4", "-o", "OUT.mp4"], status: 1),
        BadCase(name: "zero-byte Y4M", arguments: ["FIXTURES/empty.y4m", "-o", "OUT.h264"], status: 1),
        BadCase(name: "Y4M with a wrong header", arguments: ["FIXTURES/wrong-header.y4m", "-o", "OUT.h264"], status: 1),
        BadCase(name: "Y4M with a short frame", arguments: ["FIXTURES/short-frame.y4m", "-o", "OUT.h264"], status: 1),
        BadCase(name: "Y4M with an absurd size", arguments: ["FIXTURES/absurd.y4m", "-o", "OUT.h264"], status: 1),
        BadCase(name: "huge bitrate", arguments: ["--frames", "2", "--bitrate", "9G", "-o", "OUT.h264"], status: 64),
        BadCase(name: "hevc into a .h264 name", arguments: ["--frames", "2", "--codec", "hevc", "-o", "OUT.h264"], status: 1),
        BadCase(name: "h264 into a .h265 name", arguments: ["--frames", "2", "-o", "OUT.h265"], status: 1),
        BadCase(name: "hevc with an H.264 profile", arguments: ["--frames", "2", "--codec", "hevc", "--profile", "high",
                                                                "-o", "OUT.h265"], status: 64),
        BadCase(name: "hevc with an H.264-only level", arguments: ["--frames", "2", "--codec", "hevc", "--level", "3.2",
                                                                   "-o", "OUT.h265"], status: 64),
        BadCase(name: "h264 with main10", arguments: ["--frames", "2", "--profile", "main10", "-o", "OUT.h264"], status: 64),
        BadCase(name: "hevc level too low for the size", arguments: ["--frames", "2", "--codec", "hevc", "--size",
                                                                     "1920x1080", "--level", "3", "-o", "OUT.h265"],
                status: 1),
        BadCase(name: "unknown codec", arguments: ["--frames", "2", "--codec", "vp8", "-o", "OUT.h264"], status: 64),
    ]

    /// Broken inputs for the table above, made once per test run (the cases only read them).
    static let badFixtures = Result<URL, any Error> { try makeBadFixtures() }

    static func makeBadFixtures() throws -> URL {
        let fixtures = try CLIRunner.temporaryDirectory()
        func write(_ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: fixtures.appendingPathComponent(name))
        }
        try write("garbage.mp4", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
        try write("empty.y4m", [])
        try write("wrong-header.y4m", Array("YUV4MPEG3 W64 H48 F30:1\nFRAME\n".utf8) + [UInt8](repeating: 16, count: 4608))
        try write("short-frame.y4m", Array("YUV4MPEG2 W64 H48 F30:1 Ip C420jpeg\nFRAME\n".utf8) + [1, 2, 3])
        try write("absurd.y4m", Array("YUV4MPEG2 W100000 H100000 F30:1\nFRAME\n".utf8))
        // An MP4 cut before its index (moov) is written: libavformat cannot open it.
        let whole = fixtures.appendingPathComponent("whole.mp4").path
        try LavfiMedia.testsrc2(whole, size: "160x120", frames: 30, arguments: ["-c:v", "libx264", "-preset", "ultrafast"])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: whole)))
        try write("truncated.mp4", Array(bytes.prefix(bytes.count / 2)))
        try FileManager.default.removeItem(atPath: whole)
        return fixtures
    }

    @Test(arguments: badCases)
    func badInputIsOneLine(_ testCase: BadCase) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixtures = try Self.badFixtures.get()
        let output = dir.appendingPathComponent("out").path
        let arguments = testCase.arguments.map {
            $0.replacingOccurrences(of: "OUT", with: output).replacingOccurrences(of: "FIXTURES", with: fixtures.path)
        }
        let result = try CLIRunner.rtenc(["encode"] + arguments, currentDirectory: dir)
        #expect(result.status == testCase.status, "\(result.stderrText)")
        #expect(!result.terminatedBySignal)
        #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
        #expect(result.stderrText.hasPrefix("rtenc: "))
        // No output file, finished or partial.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(leftovers.isEmpty, "left behind: \(leftovers)")
    }
}

/// What ffprobe says about a video file: geometry, profile/level, frame count and keyframe positions.
struct FFprobe {
    var codec: String?
    var width: Int?
    var height: Int?
    var profile: String?
    var level: Int?
    var frames: Int
    var keyframes: [Int]
    /// codec_tag_string: the MP4 sample entry ("avc1", "hvc1", "hev1"), "[0][0][0][0]" for raw streams.
    var tag: String?
    /// The stream's duration in seconds, where the container says.
    var duration: Double?

    static func probe(_ path: String) throws -> FFprobe {
        let result = try CLIRunner.run("ffprobe", [
            "-loglevel", "error", "-show_streams", "-show_packets", "-of", "json", path,
        ], timeout: 60)
        guard result.status == 0,
              let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
              let stream = (json["streams"] as? [[String: Any]])?.first,
              let packets = json["packets"] as? [[String: Any]] else {
            throw ToolError("ffprobe failed on \(path): \(result.stderrText)")
        }
        // Packets come in decode order; rtenc's real-time streams have no reordering, so that is display order too.
        return FFprobe(
            codec: stream["codec_name"] as? String, width: stream["width"] as? Int, height: stream["height"] as? Int,
            profile: stream["profile"] as? String, level: stream["level"] as? Int, frames: packets.count,
            keyframes: packets.enumerated().filter { ($0.element["flags"] as? String)?.hasPrefix("K") == true }
                .map(\.offset),
            tag: stream["codec_tag_string"] as? String, duration: (stream["duration"] as? String).flatMap(Double.init))
    }
}
