import Foundation
import Testing
import TestSupport

/// Overlays from the command line: `timeline check` lists them with their reader windows, `render` draws a
/// corner-pinned, masked overlay from a CSV track, and a bad track file is one line naming the file and its line.
@Suite(.serialized) struct TimelineOverlayCommandTests {
    static let timeline = """
        {
          "version": 1,
          "canvas": {"width": 320, "height": 180, "frame_rate": 30},
          "items": [{"type": "clip", "source": "a.mp4", "duration": 3}],
          "overlays": [
            {"source": "logo.png", "start": 0.5, "duration": 1.5, "x": 17, "y": 10, "opacity": 0.5},
            {"source": "poster.png", "corner_pin": "track.csv", "mask": {"source": "hand.mp4"}}
          ]
        }
        """

    static let track = """
        frame,tl_x,tl_y,tr_x,tr_y,br_x,br_y,bl_x,bl_y
        0,60,20,250,40,240,160,50,150
        89,80,30,280,20,260,170,70,140
        """

    static func makeMedia(in directory: URL, track: String = track) throws -> String {
        func ffmpeg(_ arguments: [String]) throws {
            _ = try Tool.output("ffmpeg", ["-nostdin", "-loglevel", "error", "-y"] + arguments, timeout: 60)
        }
        try LavfiMedia.testsrc2(directory.appendingPathComponent("a.mp4").path, size: "320x180", frames: 90)
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='4*X'",
                    "-frames:v", "1", directory.appendingPathComponent("logo.png").path])
        try ffmpeg(["-f", "lavfi", "-i", "smptebars=size=160x120", "-frames:v", "1",
                    directory.appendingPathComponent("poster.png").path])
        try ffmpeg(["-f", "lavfi", "-i", "nullsrc=size=320x180:rate=30,format=gray,geq=lum='255*gt(X\\,100+N)'",
                    "-frames:v", "90", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                    directory.appendingPathComponent("hand.mp4").path])
        try track.write(toFile: directory.appendingPathComponent("track.csv").path, atomically: true, encoding: .utf8)
        let path = directory.appendingPathComponent("timeline.json").path
        try timeline.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func checkListsTheOverlays() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("timeline.json").path
        try Self.timeline.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try CLIRunner.rtenc(["timeline", "check", path])
        try #require(result.status == 0, "\(result.stderrText)")
        let plan = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let overlays = try #require(plan["overlays"] as? [[String: Any]])
        #expect(overlays.map { $0["placement"] as? String } == ["rectangle", "corner_pin"])
        #expect(overlays.map { $0["start_s"] as? Double } == [0.5, 0])
        #expect(overlays.map { $0["end_s"] as? Double } == [2, 3])
        #expect(overlays.map { $0["first_frame"] as? Int } == [15, 0])
        #expect(overlays.map { $0["end_frame"] as? Int } == [60, 90])
        #expect(overlays[0]["x"] as? Int == 16) // rounded down to the chroma grid, as drawn
        #expect(overlays[1]["corner_track"] as? String == "track.csv")
        #expect(overlays[1]["mask"] as? String == "hand.mp4")
        #expect(overlays.map { $0["open_s"] as? Double } == [0, 0])
        #expect(overlays.map { $0["readers"] as? Int } == [1, 2])
        #expect(plan["maximum_overlay_readers"] as? Int == 3)
    }

    @Test func renderDrawsACornerPinnedMaskedOverlay() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let timeline = try Self.makeMedia(in: directory)
        let output = directory.appendingPathComponent("out.mp4").path
        let result = try CLIRunner.rtenc(["render", timeline, "-o", output], timeout: 120)
        try #require(result.status == 0, "\(result.stderrText)")
        let probe = try FFprobe.probe(output)
        #expect(probe.frames == 90)
        #expect(probe.width == 320 && probe.height == 180)
        // Without the overlays the render differs: the overlays were drawn.
        let plain = directory.appendingPathComponent("plain.json").path
        try #"{"version": 1, "canvas": {"width": 320, "height": 180, "frame_rate": 30}, "items": [{"type": "clip", "source": "a.mp4", "duration": 3}]}"#
            .write(toFile: plain, atomically: true, encoding: .utf8)
        let bare = directory.appendingPathComponent("plain.h264").path
        let withOverlays = directory.appendingPathComponent("overlays.h264").path
        try #require(try CLIRunner.rtenc(["render", plain, "-o", bare, "--quiet"], timeout: 120).status == 0)
        try #require(try CLIRunner.rtenc(["render", timeline, "-o", withOverlays, "--quiet"], timeout: 120).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: bare)) != Data(contentsOf: URL(fileURLWithPath: withOverlays)))
    }

    /// (track file, the one line rtenc must print)
    static let badTracks: [(String, String)] = [
        ("0,1,2,3\n", "rtenc: render: input TIMELINE: $.overlays[1].corner_pin: track.csv line 1: expected 9 "
            + "comma-separated values (frame, then x and y of the top-left, top-right, bottom-right and bottom-left "
            + "corners), got 4"),
        ("4,0,0,1,0,1,1,0,1\n2,0,0,1,0,1,1,0,1\n",
         "rtenc: render: input TIMELINE: $.overlays[1].corner_pin: track.csv line 2: frame 2 after frame 4: frames must ascend"),
    ]

    @Test(arguments: badTracks)
    func badTrackFilesAreOneLine(_ testCase: (String, String)) throws {
        let (track, message) = testCase
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let timeline = try Self.makeMedia(in: directory, track: track)
        let result = try CLIRunner.rtenc(["render", timeline, "-o", directory.appendingPathComponent("out.h264").path],
                                         timeout: 120)
        #expect(result.status == 1)
        let line = result.stderrText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line == message.replacingOccurrences(of: "TIMELINE", with: timeline), "\(line)")
    }
}
