import Foundation
import RTPOut
import TestSupport
import Testing

/// `rtenc stream` over plain RTP asks the WebRTC transports' one per-frame decision (`FrameDecider`): the controller's
/// budget and the pacer queue's pushback, reported under `frames` in every `--stats-json` line in the shape `serve`
/// reports them. Here a noisy 640×360 picture at 2 Mb/s, then the peer's REMB of 100 kb/s: the pacer slows to it at
/// once. The session's own rate control follows the step within a frame on this input (measured: no frame had to be
/// skipped for the queue), so the check is that the decision reads the paced sender's queue (`queue_ms` a number in
/// every line) and that its counts add up; the pushback's rules themselves are `FrameDeciderTests`' table.
@Suite struct StreamPushbackTests {
    @Test(.timeLimit(.minutes(2))) func everyLineCarriesTheFrameDecisions() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let localPort = TestPorts.next()
        let ssrc: UInt32 = 0x1234_5670
        let stats = dir.appendingPathComponent("stats.jsonl").path
        let stream = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", "testsrc:noise", "--size", "640x360", "--bitrate", "2M", "--duration", "4", "--ssrc", "\(ssrc)",
            "--local-port", "\(localPort)", "--to", "127.0.0.1:\(TestPorts.next())",
            "--sdp", dir.appendingPathComponent("s.sdp").path, "--stats-json", stats, "--quiet",
        ], deadline: 40)
        try #require(waitUntilBound(udpPort: localPort + 1, timeout: 10))
        usleep(1_500_000)
        try sendUDP(RTCPCompound.marshal(StreamFeedbackTests.Feedback.remb.packets(mediaSSRC: ssrc, bitrate: 100_000)),
                    to: localPort + 1)
        let sent = stream.finish(within: 15)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let last = try #require(lines.last, "no --stats-json line")
        #expect(last["target_kbps"] as? Double == 100, "the REMB came through: \(last)")
        for line in lines {
            let frames = try #require(line["frames"] as? [String: Any], "\(line)")
            #expect(frames["queue_ms"] as? Double != nil, "the paced sender's queue was read: \(frames)")
            let skipped = (frames["skipped_controller"] as? Int ?? -1) + (frames["skipped_queue"] as? Int ?? -1)
            #expect(skipped >= 0, "both kinds of skip are counted: \(frames)")
            #expect(frames["skipped_controller"] as? Int == 0 && frames["budgeted"] as? Int == 0, "--cc remb gives no budget: \(frames)")
            #expect(frames["budget_overruns"] as? Int == 0, "no budget, no overrun: \(frames)")
            // One shape: the older top-level totals beside `frames` are gone.
            #expect(line["skipped"] == nil && line["budget_overruns"] == nil, "\(line)")
        }
    }
}
