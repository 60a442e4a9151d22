import Foundation
import RTPOut
import TestSupport
import Testing

/// `rtenc send --transport-cc` (or `--ccfb`) → `rtenc receive` on 127.0.0.1: the receiver answers with congestion-
/// control feedback, and on a clean loopback every packet sent is reported received.
@Suite(.serialized) struct TransportFeedbackCommandTests {
    /// "sent N access units in P packets (B bytes); feedback: R reports, X packets reported received, L lost"
    static func feedbackCounts(_ log: String) -> (packets: Int, reports: Int, received: Int, lost: Int)? {
        guard let match = log.firstMatch(of: /in (\d+) packets .*feedback: (\d+) reports, (\d+) packets reported received, (\d+) lost/) else {
            return nil
        }
        return (Int(match.1)!, Int(match.2)!, Int(match.3)!, Int(match.4)!)
    }

    /// `rtenc send` of a 2 s file with `options` to `rtenc receive --feedback transport-cc` on 127.0.0.1: the
    /// sender's result, the receiver's report and the SDP the sender wrote.
    static func sendToReceiver(_ options: [String]) throws -> (sent: ProcessResult, report: [String: Any], sdp: String) {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try SendAndPacketizeTests.makeFile("in.h264", in: dir, seconds: 2)
        let port = TestPorts.next()
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--feedback", "transport-cc", "--timeout", "20", "--quiet",
        ], deadline: 30)
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let sent = try CLIRunner.rtenc(["send", file] + options + [
            "--to", "127.0.0.1:\(port)", "--sdp", dir.appendingPathComponent("s.sdp").path,
        ], timeout: 30)
        let result = receiver.finish(within: 10)
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stderrText)")
        return (sent, report, try String(contentsOf: dir.appendingPathComponent("s.sdp"), encoding: .utf8))
    }

    @Test func transportCCEveryPacketReportedReceived() throws {
        let (sent, report, sdp) = try Self.sendToReceiver(["--transport-cc", "--abs-send-time"])
        #expect(sent.status == 0, "\(sent.stderrText)")
        let counts = try #require(Self.feedbackCounts(sent.stderrText), "\(sent.stderrText)")
        #expect(counts.reports >= 10, "about one every 100 ms for 2 s: \(sent.stderrText)")
        #expect(counts.received == counts.packets && counts.lost == 0, "\(sent.stderrText)")
        #expect(report["packets"] as? Int == counts.packets)
        #expect(report["feedback_sent"] as? Int ?? 0 >= counts.reports, "\(report)")
        #expect(sdp.contains("a=rtcp-fb:96 transport-cc"))
        #expect(sdp.contains("a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"))
        #expect(sdp.contains("a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"))
    }

    /// RFC 8888, turned on by the SDP alone (`a=rtcp-fb:* ack ccfb`): the receiver reads it and answers.
    @Test func ccfbFromTheSDP() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try SendAndPacketizeTests.makeFile("in.h264", in: dir, seconds: 2)
        let port = TestPorts.next()
        let sdp = dir.appendingPathComponent("s.sdp").path
        let send = try BackgroundProcess(CLIRunner.rtencPath, [
            "send", file, "--ccfb", "--to", "127.0.0.1:\(port)", "--sdp", sdp, "--start-delay", "3",
        ], deadline: 30)
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: sdp), Date() < deadline { usleep(20_000) }
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--sdp", sdp, "--bind", "127.0.0.1", "--timeout", "20", "--quiet",
        ], deadline: 30)
        let sent = send.finish(within: 20)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let counts = try #require(Self.feedbackCounts(sent.stderrText), "\(sent.stderrText)")
        #expect(counts.reports >= 10 && counts.received == counts.packets && counts.lost == 0, "\(sent.stderrText)")
        let result = receiver.finish(within: 10)
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stderrText)")
        #expect(report["feedback_sent"] as? Int ?? 0 >= counts.reports, "\(report)")
    }

    /// `send --cc gcc`: no encoder, so the controller steers the pacer alone; it probes (padding on RTX, which the SDP
    /// declares) and reads the receiver's transport-cc reports without being asked for --transport-cc.
    @Test func sendWithGCCProbesAndReadsFeedback() throws {
        let (sent, report, sdp) = try Self.sendToReceiver(["--cc", "gcc"])
        #expect(sent.status == 0, "\(sent.stderrText)")
        let counts = try #require(Self.feedbackCounts(sent.stderrText), "\(sent.stderrText)")
        #expect(counts.reports >= 10 && counts.lost == 0, "\(sent.stderrText)")
        let probes = try #require(sent.stderrText.firstMatch(of: /gcc: last target (\d+) b\/s, (\d+) probe clusters \((\d+) padding packets\)/),
                                  "\(sent.stderrText)")
        #expect(Int(probes.2)! >= 2 && Int(probes.3)! >= 10, "the start probes went out: \(sent.stderrText)")
        // Every packet, padding included, was reported received (the padding crossed the socket and was numbered),
        // but for the last few: the sender may close before the report that covers them comes back.
        #expect(counts.received <= counts.packets && counts.received >= counts.packets - 5, "\(sent.stderrText)")
        #expect(report["packets"] as? Int == counts.packets - Int(probes.3)!, "the receiver counts media only: \(report)")
        #expect(sdp.contains("a=rtcp-fb:96 transport-cc") && sdp.contains("a=rtpmap:97 rtx/90000") && sdp.contains("a=fmtp:97 apt=96"))
    }

    @Test func badControllerNameIsOneLine() throws {
        let result = try CLIRunner.rtenc(["stream", "--cc", "bbr", "--duration", "1"])
        #expect(result.status == 64, "\(result.stderrText)")
        #expect(result.stderrText.contains("--cc") && result.stderrText.contains("remb, gcc"), "\(result.stderrText)")
        #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
    }

    /// `send --cc rtenc` (live since the sender reports its sent packets; it was refused before, with the reason):
    /// no encoder, so there are no frame budgets to obey and the controller steers the pacer alone, reading the
    /// receiver's transport-cc reports; it sends no probes.
    @Test func sendWithRtencReadsFeedback() throws {
        let (sent, report, _) = try Self.sendToReceiver(["--cc", "rtenc"])
        #expect(sent.status == 0, "\(sent.stderrText)")
        let counts = try #require(Self.feedbackCounts(sent.stderrText), "\(sent.stderrText)")
        #expect(counts.reports >= 10 && counts.lost == 0, "\(sent.stderrText)")
        #expect(counts.received <= counts.packets && counts.received >= counts.packets - 5, "\(sent.stderrText)")
        let line = try #require(sent.stderrText.firstMatch(of: /rtenc: last target (\d+) b\/s, (\d+) probe clusters/), "\(sent.stderrText)")
        #expect(Int(line.1)! >= 10_000 && Int(line.2)! == 0, "\(sent.stderrText)")
        #expect(report["packets"] as? Int == counts.packets, "no padding: the receiver counts every packet: \(report)")
    }

    @Test(arguments: ["stream", "send"], ["gcc", "rtenc"])
    func estimatingControllerWithoutPacingIsRefused(command: String, controller: String) throws {
        let result = try CLIRunner.rtenc([command] + (command == "send" ? ["in.h264"] : []) + ["--cc", controller, "--no-pacing"])
        #expect(result.status == 64, "\(result.stderrText)")
        #expect(result.stderrText.contains("--no-pacing") && result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
    }

    @Test func badFeedbackNameIsOneLine() throws {
        let result = try CLIRunner.rtenc(["receive", "--port", "\(TestPorts.next())", "--feedback", "remb"])
        #expect(result.status != 0 && result.status < 126)
        #expect(result.stderrText.contains("--feedback"), "\(result.stderrText)")
    }
}
