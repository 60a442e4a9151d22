import Foundation
import TestSupport
import Testing

/// `rtenc stream --whip` end to end against aiortc as the WHIP server (Debian python3-aiortc, an independent WebRTC
/// stack on the same OpenSSL and libsrtp2): rtenc offers, POSTs, runs full ICE as the controlling agent, is the DTLS
/// server (aiortc answers setup:active), publishes SRTP; aiortc decodes and reads the clock barcode; the DELETE
/// reaches it at the stop. All of it inside a network namespace the test makes (scripts/whip-publish-check.sh).
@Suite(.serialized) struct StreamWHIPTests {
    struct Run {
        var server: [String: Any]
        var stats: [[String: Any]]
        var rtencOut: String
        var log: String
    }

    static func publish(seconds: Double, serverOptions: [String] = [], options: [String]) throws -> Run {
        if let problem = ServeWHEPTests.namespaceProblem { throw ToolError("cannot run: \(problem)") }
        let directory = try makeTemporaryDirectory(prefix: "rtenc-whip")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = ServeWHEPTests.scripts.appendingPathComponent("whip-publish-check.sh").path
        let result = try Tool.run(
            "/usr/bin/unshare",
            ServeWHEPTests.namespaceArguments + [script, CLIRunner.rtencPath, directory.path, "\(seconds)"] + serverOptions + ["--"] + options,
            timeout: seconds + 50)
        let read = { (name: String) in (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? "" }
        let log = "script: \(result.stderrText.suffix(800))\nrtenc: \(read("rtenc.out"))\(read("rtenc.err").suffix(3000))"
            + "\nserver: \(read("server.json"))\(read("server.err").suffix(2000))"
        #expect(!result.timedOut, "\(log)")
        let parse = { (line: Substring) in (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] }
        let server = parse(read("server.json")[...]) ?? [:]
        let stats = read("stats.jsonl").split(separator: "\n").compactMap(parse)
        return Run(server: server, stats: stats, rtencOut: read("rtenc.out") + read("rtenc.err"), log: log)
    }

    /// testsrc:barcode published for 10 s with a bearer token: aiortc decodes ≥ 60 pictures whose barcodes count up,
    /// and the DELETE of the (relative) Location arrives when rtenc stops.
    @Test(.enabled(if: ServeWHEPTests.namespaceProblem == nil, ServeWHEPTests.skipMessage), .timeLimit(.minutes(2)))
    func aiortcDecodesThePublishedStream() throws {
        let run = try Self.publish(seconds: 10, serverOptions: ["--token", "t0ken-42"], options: ["--size", "640x360", "testsrc:barcode"])
        #expect(run.server["status"] as? Int == 201, "\(run.log)")
        #expect(run.server["authorization_ok"] as? Bool == true, "the bearer token went with the POST: \(run.log)")
        #expect(run.server["offer_has_candidates"] as? Bool == true, "\(run.log)")
        #expect((run.server["frames"] as? Int ?? 0) >= 60, "\(run.log)")
        #expect((run.server["codes_read"] as? Int ?? 0) >= 60, "barcodes read off the decoded pictures: \(run.log)")
        #expect(run.server["monotonic"] as? Bool == true, "\(run.log)")
        #expect(run.server["size"] as? [Int] == [640, 360], "\(run.log)")
        #expect(run.server["delete_received"] as? Bool == true, "DELETE at the stop: \(run.log)")
        #expect(run.rtencOut.contains("publishing testsrc:barcode 640x360"), "the start line says where: \(run.log)")
        #expect(run.rtencOut.contains("over WHIP to http://127.0.0.1:8090/whip"), "\(run.log)")
        #expect(run.rtencOut.contains("rtenc exit 0"), "\(run.log)")
        let peers = run.stats.flatMap { $0["viewers"] as? [[String: Any]] ?? [] }
        #expect(peers.contains { $0["state"] as? String == "connected" && ($0["keyframes"] as? Int ?? 0) >= 1 }, "\(run.log)")
    }

    /// A forced REMB of 300 kb/s against a 1.5 Mb/s noise stream: the encoder's target (`--stats-json` target_kbps)
    /// is under it within 2 s of the first REMB (the phase-1 policy: congestion → 0.85 × REMB at once, then the cap
    /// min(--bitrate, REMB)), and never above it afterwards.
    @Test(.enabled(if: ServeWHEPTests.namespaceProblem == nil, ServeWHEPTests.skipMessage), .timeLimit(.minutes(2)))
    func aForcedLowREMBBringsTheTargetUnderIt() throws {
        let run = try Self.publish(seconds: 6, serverOptions: ["--remb", "300000"],
                                   options: ["--size", "640x360", "--bitrate", "1500k", "testsrc:noise:barcode"])
        #expect((run.server["remb_sent"] as? Int ?? 0) > 0, "\(run.log)")
        let lines = run.stats.compactMap { line -> (time: Double, target: Double, remb: Double?)? in
            guard let time = line["time"] as? Double, let target = line["target_kbps"] as? Double else { return nil }
            let remb = (line["viewers"] as? [[String: Any]])?.first?["remb_kbps"] as? Double
            return (time, target, remb)
        }
        let firstREMB = try #require(lines.first { $0.remb != nil }, "rtenc saw the REMB: \(lines) \(run.log)")
        #expect(firstREMB.remb == 300, "\(lines)")
        // The line that first shows the REMB was written at most 1 s after it arrived; 1 s more makes 2. Lines are a
        // second apart, so what they show is the target at that moment: the policy's cap, min(--bitrate, REMB).
        let capped = lines.first { $0.target <= 300 }
        #expect(capped != nil && capped!.time <= firstREMB.time + 1.001, "target at most 300 kb/s within 2 s of the REMB: \(lines)")
        #expect(lines.drop { $0.target > 300 }.allSatisfy { $0.target <= 300 }, "and never above it again: \(lines)")
        // On the way, the multiplicative decrease: the REMB is under 0.85 × what rtenc sent, so the target went to
        // 0.85 × 300 kb/s at once (it rises back to the REMB once the send rate is under it: a cap, not a target).
        #expect(run.rtencOut.contains("encoder target 1500 → 255 kb/s (REMB)"), "\(run.log)")
    }
}
