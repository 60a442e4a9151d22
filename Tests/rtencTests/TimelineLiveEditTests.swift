import Foundation
import TestSupport
import Testing

/// `rtenc stream T.json` plays each version of the timeline file saved while it streams; a version that does not
/// plan or names a file that does not open is refused in one line, and the last good version plays on. Checked from
/// outside: what `rtenc receive` got, decoded by ffmpeg, and the stream's stderr.
@Suite struct TimelineLiveEditTests {
    static func document(_ items: String) -> String {
        ##"{"version": 1, "canvas": {"width": 160, "height": 96, "frame_rate": 30}, "loop": true, "items": [\##(items)]}"##
    }

    static let white = document(##"{"type": "color", "color": "#ffffff", "duration": 1}"##)
    /// A black clip: the edit needs a reader opened while the stream plays.
    static let black = document(##"{"type": "clip", "source": "black.mp4", "duration": 1}"##)
    static let tooLongTransition = document(##"{"type": "color", "color": "#ffffff", "duration": 1, "transition": {"type": "dissolve", "duration": 2}}, {"type": "color", "color": "#ffffff", "duration": 1}"##)
    static let missingClip = document(##"{"type": "clip", "source": "black.mp4", "duration": 1}, {"type": "clip", "source": "nothing.mp4", "duration": 1}"##)

    @Test func savedVersionsPlayAndInvalidOnesAreRefused() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try Tool.output("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                       "color=black:size=160x96:rate=30", "-frames:v", "30", "-c:v", "libx264",
                                       "-preset", "ultrafast", directory.appendingPathComponent("black.mp4").path])
        let timeline = directory.appendingPathComponent("t.json").path
        func save(_ document: String) throws { try document.write(toFile: timeline, atomically: true, encoding: .utf8) }
        try save(Self.white)

        let port = TestPorts.next()
        let received = directory.appendingPathComponent("received.h264").path
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "-o", received, "--timeout", "40", "--quiet",
        ], deadline: 60)
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let sdp = directory.appendingPathComponent("s.sdp").path
        let sender = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", timeline, "--duration", "7", "--to", "127.0.0.1:\(port)", "--preset", "ultrafast",
            "--sdp", sdp, "--quiet",
        ], deadline: 60)
        try #require(waitForFile(sdp, timeout: 20), "the stream did not start")
        Thread.sleep(forTimeInterval: 1.5)
        try save(Self.black)
        Thread.sleep(forTimeInterval: 1.5)
        try save(Self.tooLongTransition)
        Thread.sleep(forTimeInterval: 1.0)
        try save(Self.missingClip)
        let sent = sender.finish(within: 30)
        let got = receiver.finish(within: 15, signal: SIGINT)
        try #require(sent.status == 0, "\(sent.stderrText)")
        #expect(got.status == 0, "\(got.stderrText)")

        // Two refusals, one line each, naming the file, the JSON path and the reason; nothing else (--quiet).
        let lines = sent.stderrText.replacing(timeline, with: "TIMELINE").replacing(directory.path, with: "DIR")
            .split(separator: "\n")
        #expect(lines.count == 2, "\(sent.stderrText)")
        #expect(lines.first?.hasPrefix("rtenc: error: stream: timeline TIMELINE: $.items[0].transition.duration: a 2 s transition is longer than item 0") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("rtenc: error: stream: timeline TIMELINE: $.items[1].source: cannot open DIR/nothing.mp4") == true, "\(lines)")
        #expect(lines.allSatisfy { $0.hasSuffix("; still playing the previous version") }, "\(lines)")

        // White, then black from the first saved edit to the end: the refused versions changed nothing.
        let frames = try Tool.output("ffmpeg", ["-nostdin", "-loglevel", "error", "-i", received, "-f", "rawvideo",
                                                "-pix_fmt", "gray", "-"], timeout: 60)
        let size = 160 * 96
        let means = stride(from: 0, to: frames.count - size + 1, by: size).map { start in
            frames[start..<start + size].reduce(0) { $0 + Int($1) } / size
        }
        #expect(means.count >= 7 * 30 - 30, "\(means.count) frames decoded")
        let firstBlack = try #require(means.firstIndex { $0 < 40 }, "no black frame: \(means)")
        #expect(means[..<firstBlack].allSatisfy { $0 > 200 }, "\(means)")
        #expect(means[firstBlack...].allSatisfy { $0 < 40 }, "\(means)")
        #expect((30...120).contains(firstBlack), "the edit showed at frame \(firstBlack)")
    }
}
