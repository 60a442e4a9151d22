import Foundation
import TestSupport
import Testing

/// `rtenc render`, `rtenc timeline check` and a timeline as the input of `stream`, checked from outside with
/// ffprobe and GStreamer. Media is made with lavfi in each test.
@Suite(.serialized) struct TimelineCommandTests {
    /// Two clips (one at 2×, one flipped at 25 fps), a still and a colour, with a dissolve and a fade through black:
    /// 1 + 1.5 + 2 + 0.5 − 0.5 − 0.5 = 4 s, 120 frames at 30 fps.
    static let timeline = """
        {
          "version": 1,
          "canvas": {"width": 320, "height": 180, "frame_rate": 30},
          "items": [
            {"type": "clip", "source": "a.mp4", "in": 0.5, "duration": 2, "speed": 2,
             "transition": {"type": "dissolve", "duration": 0.5}},
            {"type": "still", "source": "logo.png", "duration": 1.5, "rotate": 90, "letterbox": "#203040",
             "transition": {"type": "fadeblack", "duration": 0.5, "easing": "ease-in-out"}},
            {"type": "clip", "source": "media/b.mp4", "duration": 2, "flip": "horizontal", "fit": "cover"},
            {"type": "color", "color": "#ff8000", "duration": 0.5}
          ]
        }
        """

    static func makeMedia(in directory: URL, timeline: String = timeline) throws -> String {
        let a = directory.appendingPathComponent("a.mp4").path
        try LavfiMedia.testsrc2(a, size: "320x240", frames: 90)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("media"), withIntermediateDirectories: true)
        _ = try Tool.output("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                       "smptehdbars=size=640x360:rate=25", "-frames:v", "75", "-c:v", "libx264",
                                       directory.appendingPathComponent("media/b.mp4").path])
        _ = try Tool.output("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                       "testsrc=size=200x300", "-frames:v", "1",
                                       directory.appendingPathComponent("logo.png").path])
        let path = directory.appendingPathComponent("timeline.json").path
        try timeline.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: ["out.mp4", "out.h264"])
    func renderWritesEveryFrame(_ name: String) throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let timeline = try Self.makeMedia(in: directory)
        let output = directory.appendingPathComponent(name).path
        let result = try CLIRunner.rtenc(["render", timeline, "-o", output, "--keyint", "30"], timeout: 120)
        try #require(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("encoded 120 frames"), "\(result.stderrText)")
        let probe = try FFprobe.probe(output)
        #expect(probe.frames == 120)
        #expect(probe.width == 320 && probe.height == 180)
        #expect(probe.keyframes == [0, 30, 60, 90])
        if name.hasSuffix(".mp4") {
            let duration = try CLIRunner.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of",
                                                         "default=noprint_wrappers=1:nokey=1", output])
            #expect(abs((Double(duration.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 4) < 0.001,
                    "\(duration.stdoutText)")
        }
    }

    @Test func renderIsDeterministicAndPassesRepeat() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let timeline = try Self.makeMedia(in: directory)
        var outputs: [Data] = []
        for index in 0..<2 {
            let output = directory.appendingPathComponent("run\(index).h264").path
            let result = try CLIRunner.rtenc(["render", timeline, "-o", output, "--quiet", "--threads", "1"], timeout: 120)
            try #require(result.status == 0, "\(result.stderrText)")
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        #expect(outputs[0] == outputs[1])
        let twice = directory.appendingPathComponent("twice.mp4").path
        let result = try CLIRunner.rtenc(["render", timeline, "-o", twice, "--quiet", "--passes", "2"], timeout: 120)
        try #require(result.status == 0, "\(result.stderrText)")
        #expect(try FFprobe.probe(twice).frames == 240)
    }

    @Test func checkPrintsThePlan() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("timeline.json").path
        try Self.timeline.write(toFile: path, atomically: true, encoding: .utf8)
        // No media: check plans without opening sources.
        let result = try CLIRunner.rtenc(["timeline", "check", path])
        try #require(result.status == 0, "\(result.stderrText)")
        let plan = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(plan["duration_s"] as? Double == 4)
        #expect(plan["frames"] as? Int == 120)
        #expect(plan["matrix"] as? String == "bt601")
        let items = try #require(plan["items"] as? [[String: Any]])
        #expect(items.map { $0["start_s"] as? Double } == [0, 0.5, 1.5, 3.5])
        #expect(items.map { $0["end_s"] as? Double } == [1, 2, 3.5, 4])
        #expect(items.map { $0["first_frame"] as? Int } == [0, 15, 45, 105])
        let transitions = try #require(plan["transitions"] as? [[String: Any]])
        #expect(transitions.map { $0["type"] as? String } == ["dissolve", "fadeblack"])
        #expect(transitions.map { $0["start_s"] as? Double } == [0.5, 1.5])
        let readers = try #require(plan["readers"] as? [[String: Any]])
        #expect(readers.map { $0["item"] as? Int } == [0, 1, 2])
        #expect(readers.map { $0["open_s"] as? Double } == [0, 0, 0.5])
        #expect(readers.map { $0["close_s"] as? Double } == [1, 2, 3.5])
    }

    /// (what is wrong, the one line rtenc must print)
    static let refusals: [(String, String, String)] = [
        ("render", ##"{"version": 1, "canvas": {"width": 64, "height": 64, "frame_rate": 30}, "items": [{"type": "color", "color": "#000000", "duration": 1, "transition": {"type": "dissolve", "duration": 2}}, {"type": "color", "color": "#ffffff", "duration": 1}]}"##,
         "rtenc: render: timeline TIMELINE: $.items[0].transition.duration: a 2 s transition is longer than item 0 (1 s on the output)"),
        ("timeline", ##"{"version": 1, "canvas": {"width": 64, "height": 64, "frame_rate": 30}, "items": [{"type": "clip", "duration": 1}]}"##,
         "rtenc: timeline check: timeline TIMELINE: $.items[0].source: missing: expected a string"),
        ("render", ##"{"version": 1, "canvas": {"width": 64, "height": 64, "frame_rate": 30}, "items": [{"type": "clip", "source": "nothing.mp4", "duration": 1}]}"##,
         "rtenc: render: input TIMELINE: $.items[0].source: cannot open DIR/nothing.mp4: No such file or directory"),
        ("render", ##"{"version": 1, "canvas": {"width": 64, "height": 64, "frame_rate": 30}, "items": [{"type": "still", "source": "a.png", "duration": 1, "speed": 2}]}"##,
         "rtenc: render: timeline TIMELINE: $.items[0].speed: unknown key \"speed\""),
        ("render", ##"{"version": 1, "canvas": {"width": 64, "##, "rtenc: render: timeline TIMELINE: $.canvas: at byte"),
        ("render", ##"{"version": 1, "canvas": {"width": 64, "height": 64, "frame_rate": 30}, "items": [{"type": "color", "color": "#000000", "duration": 1, "transition": {"type": "wipe", "map": "none.png", "duration": 1}}, {"type": "color", "color": "#ffffff", "duration": 1}]}"##,
         "rtenc: render: input TIMELINE: $.items[0].transition.map: wipe map: cannot open DIR/none.png: No such file or directory"),
        ("timeline", ##"{"version": 1, "canvas": {"width": 64, "height": 64, "frame_rate": 30}, "items": [{"type": "color", "color": "#000000", "duration": 1, "transition": {"type": "push", "direction": "open", "duration": 1}}, {"type": "color", "color": "#ffffff", "duration": 1}]}"##,
         "rtenc: timeline check: timeline TIMELINE: $.items[0].transition.direction: unknown direction \"open\" here (expected left, right, up or down)"),
    ]

    @Test func checkPrintsTransitionParameters() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/transitions.json").path
        let result = try CLIRunner.rtenc(["timeline", "check", example])
        try #require(result.status == 0, "\(result.stderrText)")
        let plan = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let transitions = try #require(plan["transitions"] as? [[String: Any]])
        #expect(transitions.map { $0["type"] as? String } == ["wipe", "wipe", "wipe", "wipe", "wipe", "push", "slide"])
        #expect(transitions.map { $0["shape"] as? String } == ["linear", "iris", "clock", "star", nil, nil, nil])
        #expect(transitions.map { $0["direction"] as? String } == ["left", "open", "clockwise", "open", nil, "up", "right"])
        #expect(transitions[4]["map"] as? String == "luma/heart.png")
        #expect(transitions[4]["invert"] as? Bool == true)
        #expect(transitions.map { $0["softness"] as? Double } == [0, 0.1, 0, 0.05, 0.2, nil, nil])
    }

    @Test(arguments: refusals)
    func badTimelinesAreOneLineErrors(_ refusal: (String, String, String)) throws {
        let (command, document, expected) = refusal
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("t.json").path
        try document.write(toFile: path, atomically: true, encoding: .utf8)
        let arguments = command == "render" ? ["render", path, "-o", directory.appendingPathComponent("o.mp4").path]
            : ["timeline", "check", path]
        let result = try CLIRunner.rtenc(arguments)
        #expect(result.status == 1)
        let line = result.stderrText.replacing(path, with: "TIMELINE").replacing(directory.path, with: "DIR")
        #expect(line.hasPrefix(expected), "\(line)")
        #expect(line.split(separator: "\n").count == 1, "\(line)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("o.mp4").path))
    }

    @Test func streamSendsATimelineGStreamerDecodes() throws {
        let port = TestPorts.next()
        let gst = try GStreamerH264Receiver(port: port)
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let timeline = try Self.makeMedia(in: directory)
        let sent = try CLIRunner.rtenc([
            "stream", timeline, "--to", "127.0.0.1:\(port)", "--sdp", directory.appendingPathComponent("s.sdp").path,
            "--quiet",
        ], timeout: 30)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let received = gst.finish()
        #expect(received.decoded == 120, "\(received.log.suffix(1000))")
        #expect(received.log.contains("width=(int)320, height=(int)180"))
    }

    /// A reverse clip in one 8 s GOP: `stream` refuses it before sending anything, with the fix in one line; `render`
    /// renders it.
    @Test func streamRefusesALongGOPReverseClipThatRenderRenders() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try Tool.output("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                       "testsrc=size=320x180:rate=30", "-frames:v", "240", "-c:v", "libx264",
                                       "-preset", "ultrafast", "-g", "600", "-sc_threshold", "0",
                                       directory.appendingPathComponent("long.mp4").path])
        let path = directory.appendingPathComponent("t.json").path
        try """
            {"version": 1, "canvas": {"width": 320, "height": 180, "frame_rate": 30},
             "items": [{"type": "clip", "source": "long.mp4", "in": 2, "duration": 4, "reverse": true}]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let port = TestPorts.next()
        let streamed = try CLIRunner.rtenc(["stream", path, "--to", "127.0.0.1:\(port)", "--quiet",
                                            "--sdp", directory.appendingPathComponent("s.sdp").path], timeout: 30)
        #expect(streamed.status == 1)
        let line = streamed.stderrText.replacing(path, with: "TIMELINE")
        #expect(line.hasPrefix("rtenc: stream: timeline TIMELINE: $.items[0]: long.mp4 plays in reverse, but its keyframes are up to 8 s apart (GOP 240 frames)"), "\(line)")
        #expect(line.contains("-g 15") && line.contains("rtenc render"), "\(line)")
        #expect(line.split(separator: "\n").count == 1, "\(line)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("s.sdp").path))
        let output = directory.appendingPathComponent("o.mp4").path
        let rendered = try CLIRunner.rtenc(["render", path, "-o", output, "--preset", "ultrafast", "--quiet"], timeout: 120)
        #expect(rendered.status == 0, "\(rendered.stderrText)")
        #expect(try FFprobe.probe(output).frames == 120)
    }
}
