import Foundation
import TestSupport
import Testing

/// `rtenc relay` option checking: each bad value is one line on stderr, status 64 (usage) or 1 (a file that cannot
/// be used), and nothing on stdout.
struct RelayCommandTests {
    @Test(arguments: [
        (["--to", "127.0.0.1:5004"], "--listen"),
        (["--listen", "6000"], "--to"),
        (["--listen", "0", "--to", "127.0.0.1:5004"], "--listen"),
        (["--listen", "6000", "--to", "nohost"], "--to"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--loss", "101"], "--loss"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--return-loss", "-1"], "--return-loss"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--loss", "-1"], "--loss"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--burst-loss", "3"], "--burst-loss"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--loss", "5", "--burst-loss", "0.5"], "--burst-loss"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--delay", "-5"], "--delay"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--jitter", "20000"], "--jitter"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--reorder", "200"], "--reorder"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--rate", "0"], "--rate"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--rate", "100", "--rate-trace", "t.csv"], "--rate-trace"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--queue-bytes", "0"], "--queue-bytes"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--queue-ms", "0"], "--queue-ms"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--queue-ms", "20000"], "--queue-ms"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--drop-frames", "1,x"], "--drop-frames"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--drop-packets", "5-2"], "--drop-packets"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--drop-packets", "-1"], "--drop-packets"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--drop-retransmissions"], "--drop-retransmissions"),
        (["--listen", "6000", "--to", "127.0.0.1:5004", "--duration", "0"], "--duration"),
    ])
    func usageErrorsAreOneLine(arguments: [String], mentions: String) throws {
        let result = try CLIRunner.rtenc(["relay"] + arguments, timeout: 10)
        #expect(result.status == 64, "\(arguments): \(result.stderrText)")
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("rtenc: ") == true, "\(result.stderrText)")
        #expect(result.stderrText.contains(mentions), "\(result.stderrText)")
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: [
        ("missing.csv", nil as String?, "cannot read"),
        ("bad.csv", "time_s,kbps\n0,100\n1,lots\n", "line 3"),
        ("backwards.csv", "0,100\n2,200\n1,300\n", "line 3"),
    ])
    func unusableRateTracesAreRuntimeErrors(name: String, contents: String?, mentions: String) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(name).path
        if let contents { try contents.write(toFile: path, atomically: true, encoding: .utf8) }
        let result = try CLIRunner.rtenc(["relay", "--listen", "\(TestPorts.next())", "--to", "127.0.0.1:5004",
                                          "--rate-trace", path, "--duration", "1"], timeout: 10)
        #expect(result.status == 1, "\(result.stderrText)")
        #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
        #expect(result.stderrText.contains(mentions), "\(result.stderrText)")
    }

    /// A 1 Mb/s stream through a 500 kb/s bottleneck with a 100 ms queue: the packet log has a line per packet
    /// (forward RTP and RTCP, and the receiver's RTCP back), queuing delays never above the limit, and the queue drops
    /// the report counts.
    @Test func packetLogRecordsEveryPacketsFate() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("packets.csv").path
        let receivePort = TestPorts.next(), relayPort = TestPorts.next()
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(receivePort)", "--bind", "127.0.0.1", "--timeout", "15", "--quiet",
        ], deadline: 25)
        let relay = try BackgroundProcess(CLIRunner.rtencPath, [
            "relay", "--listen", "\(relayPort)", "--bind", "127.0.0.1", "--to", "127.0.0.1:\(receivePort)",
            "--rate", "500", "--queue-ms", "100", "--packet-log", log, "--duration", "4", "--quiet",
        ], deadline: 25)
        try #require(waitUntilBound(udpPort: receivePort, timeout: 10) && waitUntilBound(udpPort: relayPort, timeout: 10))
        let sent = try CLIRunner.rtenc([
            "stream", "testsrc:noise", "--size", "320x240", "--bitrate", "1M", "--duration", "2",
            "--to", "127.0.0.1:\(relayPort)", "--quiet",
        ], timeout: 30)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let relayed = relay.finish(within: 10)
        _ = receiver.finish(within: 15, signal: SIGINT)
        #expect(relayed.status == 0, "\(relayed.stderrText)")
        let report = try #require(try JSONSerialization.jsonObject(with: relayed.stdout) as? [String: Any])
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "arrival_ms,direction,bytes,rtp_seq,fate,queue_delay_ms,delivery_ms,kind")
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.allSatisfy { $0.count == 8 })
        // Media and the sender's RTCP forward, the receiver's RTCP back; no padding without a controller that probes.
        #expect(rows.allSatisfy { $0[7] == ($0[1] == "back" || $0[3].isEmpty ? "rtcp" : "media") })
        let forward = rows.filter { $0[1] == "forward" }
        #expect(forward.count == report["packets_in"] as? Int, "one line per packet offered: \(report)")
        #expect(rows.filter { $0[1] == "back" }.count == report["rtcp_back_in"] as? Int)
        #expect(forward.filter { $0[4] == "queue" }.count == report["dropped_queue"] as? Int)
        #expect((report["dropped_queue"] as? Int ?? 0) > 0, "1 Mb/s of noise into 500 kb/s must overflow: \(report)")
        let delays = forward.compactMap { Double($0[5]) }
        // Waiting at most 100 ms, then its own transmission (at most a 1500-byte packet at 500 kb/s: 24 ms).
        #expect(!delays.isEmpty && delays.allSatisfy { $0 >= 0 && $0 <= 124.001 }, "\(delays.max() ?? -1)")
        #expect((delays.max() ?? 0) > 50, "the queue fills up towards its limit: \(delays.max() ?? -1)")
    }

    /// A clean run with nothing to relay ends at --duration with an all-zero report naming its seed.
    @Test func reportsAsOneJSONLine() throws {
        let result = try CLIRunner.rtenc(["relay", "--listen", "\(TestPorts.next())", "--bind", "127.0.0.1",
                                          "--to", "127.0.0.1:5004", "--seed", "99", "--duration", "0.3", "--quiet"],
                                         timeout: 10)
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(report["seed"] as? Int == 99)
        for key in ["packets_in", "packets_out", "dropped", "dropped_loss", "dropped_queue", "dropped_frames", "dropped_packets", "reordered",
                    "rtcp_back_in", "rtcp_back_out", "send_failures"] {
            #expect(report[key] as? Int == 0, "\(key)")
        }
    }
}
