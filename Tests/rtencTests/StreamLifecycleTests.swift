import Foundation
import TestSupport
import Testing

/// How a stream ends: Ctrl-C is a clean stop (BYE, final statistics, status 0), and a looped file never ends by
/// itself, its timestamps running on across the seam.
@Suite(.serialized) struct StreamLifecycleTests {
    @Test func ctrlCStopsCleanlyWithBYE() throws {
        let port = TestPorts.next()
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--timeout", "20", "--quiet",
        ], deadline: 30)
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stream = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", "--size", "320x240", "--to", "127.0.0.1:\(port)", "--sdp", dir.appendingPathComponent("s.sdp").path,
        ], deadline: 30)
        usleep(2_000_000)
        #expect(stream.isRunning, "stream ended by itself")
        let stopped = stream.finish(within: 0, signal: SIGINT)
        #expect(stopped.status == 0, "\(stopped.stderrText)")
        #expect(!stopped.terminatedBySignal)
        #expect(stopped.stderrText.contains("BYE sent"), "\(stopped.stderrText)")
        let received = receiver.finish(within: 5)
        let report = try #require(try JSONSerialization.jsonObject(with: received.stdout) as? [String: Any])
        #expect(report["bye_received"] as? Bool == true)
        #expect((report["frames"] as? Int ?? 0) >= 30)
    }

    @Test func aLoopedFileKeepsStreamingPastItsEnd() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("clip.mp4").path
        try LavfiMedia.testsrc2(clip, size: "320x240", frames: 20, arguments: ["-c:v", "libx264", "-preset", "ultrafast"])
        let port = TestPorts.next()
        let output = dir.appendingPathComponent("got.h264").path
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--decode", "--timeout", "20", "-o", output, "--quiet",
        ], deadline: 30)
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let sent = try CLIRunner.rtenc([
            "stream", clip, "--loop", "--frames", "60", "--to", "127.0.0.1:\(port)",
            "--sdp", dir.appendingPathComponent("s.sdp").path, "--quiet",
            "--join-keyframes", "off",  // one IDR means no restart: no periodic ones before the receiver reports
        ], timeout: 30)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let received = receiver.finish(within: 5)
        let report = try #require(try JSONSerialization.jsonObject(with: received.stdout) as? [String: Any])
        // Three passes over a 20-frame clip, one stream: every frame arrives and decodes, one IDR (no restart).
        #expect(report["frames"] as? Int == 60)
        #expect(report["decoded_frames"] as? Int == 60)
        #expect(report["keyframes"] as? Int == 1)
    }
}
