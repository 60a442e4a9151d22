import Foundation
import TestSupport
import Testing

/// Resource bounds of timelines, measured on the `rtenc` process from outside: the peak RSS of reversing a long
/// clip with long GOPs offline, and a live loop of four clips (60 s here; `make soak` runs the 10-minute version:
/// bench/scripts/soak.py --mode timeline) with no late frame and flat RSS.
@Suite(.serialized) struct TimelineResourceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Samples a running process's memory every 0.1 s until it ends.
    static func sample(_ process: BackgroundProcess, every interval: TimeInterval = 0.1,
                       _ record: (TimeInterval, Int32) -> Void) {
        let start = Date()
        while process.isRunning {
            record(Date().timeIntervalSince(start), process.processIdentifier)
            Thread.sleep(forTimeInterval: interval)
        }
    }

    /// The peak RSS `rtenc render` reaches reversing 60 s of 1280x720 in 10 s GOPs: the reader holds one 1 s chunk
    /// (10 frames here), never the clip. ffmpeg's `reverse` holds the whole clip (471 MB for 10 s of 720p30; this
    /// clip decoded is 600 × 1.38 MB = 830 MB). Measured here: 108 MiB, the x264 encoder included.
    static let reversePeakBoundMiB = 160

    @Test func reversingASixtySecondLongGOPClipStaysUnderItsPeakRSS() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try Tool.output("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                       "testsrc2=size=1280x720:rate=10", "-frames:v", "600", "-c:v", "libx264",
                                       "-preset", "ultrafast", "-g", "100", "-sc_threshold", "0",
                                       directory.appendingPathComponent("long.mp4").path], timeout: 120)
        let timeline = directory.appendingPathComponent("reverse.json").path
        try """
            {"version": 1, "canvas": {"width": 1280, "height": 720, "frame_rate": 10},
             "items": [{"type": "clip", "source": "long.mp4", "duration": 60, "reverse": true}]}
            """.write(toFile: timeline, atomically: true, encoding: .utf8)
        let output = directory.appendingPathComponent("out.h264").path
        let render = try BackgroundProcess(CLIRunner.rtencPath, ["render", timeline, "-o", output, "--preset", "ultrafast",
                                                                 "--quiet"], deadline: 600)
        var peakKiB = 0
        Self.sample(render) { _, pid in peakKiB = max(peakKiB, ProcessMemory.peakResidentKiB(pid) ?? 0) }
        let result = render.finish(within: 1)
        try #require(result.status == 0, "\(result.stderrText)")
        #expect(try FFprobe.probe(output).frames == 600)
        #expect(peakKiB > 0)
        #expect(peakKiB < Self.reversePeakBoundMiB * 1024, "peak RSS \(peakKiB / 1024) MiB")
        print("TimelineResourceTests: reverse of 60 s 720p (10 s GOPs) offline: peak RSS \(peakKiB / 1024) MiB")
    }

    /// Four clips with transitions, looping (a pass of 5.5 s, so 10 loop points in 60 s), streamed live to
    /// `rtenc receive --decode` for `seconds`: no frame skipped late, and the RSS at the end within 5 % (+ 2 MiB) of
    /// what it was after the first quarter.
    static func liveLoop(seconds: Int) throws -> (late: Int, frames: Int, early: Int, end: Int, decoded: Int) {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (index, source) in ["testsrc2", "smptehdbars", "mandelbrot", "rgbtestsrc"].enumerated() {
            _ = try Tool.output("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                           "\(source)=size=640x360:rate=30", "-frames:v", "60", "-c:v", "libx264",
                                           "-preset", "ultrafast", "-g", "15",
                                           directory.appendingPathComponent("clip\(index).mp4").path], timeout: 60)
        }
        // The timeline `make soak` streams for 10 minutes (bench/scripts/soak.py --mode timeline), at 640x360.
        let timeline = directory.appendingPathComponent("loop.json").path
        try FileManager.default.copyItem(atPath: Self.root.appendingPathComponent("bench/scripts/soak-timeline.json").path,
                                         toPath: timeline)
        let port = TestPorts.next()
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--decode", "--timeout", "\(seconds + 60)", "--quiet",
        ], deadline: TimeInterval(seconds + 90))
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let stats = directory.appendingPathComponent("stats.jsonl").path
        let sender = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", timeline, "--duration", "\(seconds)", "--to", "127.0.0.1:\(port)", "--preset", "ultrafast",
            "--sdp", directory.appendingPathComponent("loop.sdp").path, "--stats-json", stats, "--quiet",
        ], deadline: TimeInterval(seconds + 60))
        var samples: [(TimeInterval, Int)] = []
        Self.sample(sender, every: 0.5) { at, pid in
            if let rss = ProcessMemory.residentKiB(pid) { samples.append((at, rss)) }
        }
        let sent = sender.finish(within: 1)
        try #require(sent.status == 0, "\(sent.stderrText)")
        let received = receiver.finish(within: 10)
        let report = try #require(try JSONSerialization.jsonObject(with: received.stdout) as? [String: Any])
        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
        let last = try #require(try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any])
        let quarter = Double(seconds) / 4
        let early = try #require(samples.first { $0.0 >= quarter }?.1)
        return (last["late"] as? Int ?? -1, lines.count, early, samples.last!.1, report["decoded_frames"] as? Int ?? 0)
    }

    @Test func liveLoopOfFourClipsHasNoLateFrameAndFlatRSS() throws {
        let seconds = 60
        let run = try Self.liveLoop(seconds: seconds)
        print("TimelineResourceTests: \(seconds) s live loop: late \(run.late), RSS \(run.early / 1024) MiB after "
              + "\(seconds / 4) s, \(run.end / 1024) MiB at the end; \(run.decoded) frames decoded by the receiver")
        #expect(run.late == 0)
        #expect(Double(run.end) <= Double(run.early) * 1.05 + 2048, "RSS \(run.early) KiB → \(run.end) KiB")
        #expect(run.decoded >= seconds * 30 - 30)
    }
}
