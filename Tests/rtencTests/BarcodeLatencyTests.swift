import Foundation
import TestSupport
import Testing

/// `rtenc stream testsrc:barcode` → `rtenc receive --barcode-latency` on 127.0.0.1: the receiver reads the wall
/// clock the sender drew into every decoded picture, so the report gives glass-to-glass latency (issue 16's
/// measure, here over plain RTP).
@Suite(.serialized) struct BarcodeLatencyTests {
    @Test func receiverReadsTheSendersClockFromEveryPicture() throws {
        let port = TestPorts.next()
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--barcode-latency", "--timeout", "20", "--quiet",
        ], deadline: 30)
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let sent = try CLIRunner.rtenc([
            "stream", "testsrc:barcode", "--size", "640x360", "--duration", "3", "--to", "127.0.0.1:\(port)", "--quiet",
        ], timeout: 30)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let received = receiver.finish(within: 5)
        let report = try #require(try JSONSerialization.jsonObject(with: received.stdout) as? [String: Any],
                                  "\(received.stderrText)")
        let decoded = try #require(report["decoded_frames"] as? Int, "--barcode-latency decodes: \(report)")
        let latency = try #require(report["latency_ms"] as? [String: Any], "\(report)")
        let frames = try #require(latency["frames"] as? Int)
        print("BarcodeLatencyTests: \(latency)")
        #expect(decoded >= 80, "\(report)")
        #expect(frames == decoded, "every decoded picture carries a readable barcode: \(latency)")
        #expect(latency["unreadable"] as? Int == 0)
        let p50 = try #require(latency["p50"] as? Int), p90 = try #require(latency["p90"] as? Int)
        let maximum = try #require(latency["max"] as? Int)
        // Capture → decoded on loopback: an encode, a pace and a decode; never negative (one clock), and well under
        // a second even on a busy 2-core machine.
        #expect(p50 >= 0 && p50 <= p90 && p90 <= maximum, "\(latency)")
        #expect(p90 < 1000, "\(latency)")
    }

    @Test func plainPatternHasNoBarcodeToRead() throws {
        let port = TestPorts.next()
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--barcode-latency", "--timeout", "20", "--quiet",
        ], deadline: 30)
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let sent = try CLIRunner.rtenc([
            "stream", "--size", "640x360", "--duration", "1", "--to", "127.0.0.1:\(port)", "--quiet",
        ], timeout: 30)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let report = try #require(try JSONSerialization.jsonObject(with: receiver.finish(within: 5).stdout) as? [String: Any])
        let latency = try #require(report["latency_ms"] as? [String: Any], "\(report)")
        #expect(latency["frames"] as? Int == 0)
        #expect(latency["unreadable"] as? Int == report["decoded_frames"] as? Int)
        #expect(latency["p50"] == nil || latency["p50"] is NSNull)
    }

    @Test func unknownPatternOptionIsRefusedInOneLine() throws {
        let result = try CLIRunner.rtenc(["stream", "testsrc:barcod", "--duration", "1"], timeout: 30)
        #expect(result.status != 0 && result.status < 126)
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("testsrc:barcod") && lines[0].contains(":barcode"), "\(result.stderrText)")
    }
}
