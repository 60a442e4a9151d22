import Foundation
import Testing
import TestSupport
import WebRTC

/// rtenc's WHEP answers handed to the real browser: headless Chromium (scripts/webrtc-sdp-capture.py chromium-accepts)
/// makes its H.264-only recvonly offer again — the payload types of the recorded fixture — and sets each answer as
/// its remote description, in a network namespace of its own with only `lo` (Chromium then checks 127.0.0.1:8189 and
/// ::1, where nothing listens). An answer with a 31-byte SHA-256 fingerprint must be refused, so the harness can fail.
@Suite(.serialized) struct ChromiumAnswerTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/webrtc-sdp-capture.py").standardized.path

    struct Case: Sendable {
        var name: String
        var encoding: WebRTCSDP.VideoEncoding
        var transportCC = false
        var preferredRole: WebRTCSDP.DTLSRole = .client
        var extensions: Set<String>
    }

    static let cases: [Case] = [
        .init(name: "cb", encoding: .h264(profile: .constrainedBaseline, level: .level3_1),
              extensions: [WebRTCSDP.Extmap.absSendTimeURI, WebRTCSDP.Extmap.sdesMidURI]),
        .init(name: "main", encoding: .h264(profile: .main, level: .level3_1),
              extensions: [WebRTCSDP.Extmap.absSendTimeURI, WebRTCSDP.Extmap.sdesMidURI]),
        .init(name: "passive", encoding: .h264(profile: .constrainedBaseline, level: .level3_1), preferredRole: .server,
              extensions: [WebRTCSDP.Extmap.absSendTimeURI, WebRTCSDP.Extmap.sdesMidURI]),
        .init(name: "transport-cc", encoding: .h264(profile: .constrainedBaseline, level: .level3_1), transportCC: true,
              extensions: [WebRTCSDP.Extmap.transportWideCCURI, WebRTCSDP.Extmap.sdesMidURI]),
    ]

    @Test(.timeLimit(.minutes(3))) func chromiumTakesRtencsAnswers() throws {
        let offer = try SDPFixtures.text(SDPFixtures.whepOffer)
        let directory = try makeTemporaryDirectory(prefix: "rtenc-chromium-answers")
        defer { try? FileManager.default.removeItem(at: directory) }
        var files: [String] = []
        for c in Self.cases {
            var local = SDPFixtures.local
            local.transportCC = c.transportCC
            let answer = try WHEPAnswer(offerText: offer, encoding: c.encoding, local: local, preferredRole: c.preferredRole)
            let file = directory.appendingPathComponent("\(c.name).sdp")
            try Data(answer.text.utf8).write(to: file)
            files.append(file.path)
        }
        let broken = try String(contentsOfFile: files[0], encoding: .utf8)
            .replacingOccurrences(of: "a=fingerprint:sha-256 00:07:", with: "a=fingerprint:sha-256 07:")  // 31 bytes
        let brokenFile = directory.appendingPathComponent("broken-fingerprint.sdp")
        try Data(broken.utf8).write(to: brokenFile)
        files.append(brokenFile.path)

        let inner = "ip link set lo up && timeout 40 /usr/bin/python3 \(Self.script) chromium-accepts \(files.joined(separator: " "))"
        // root (CI, this machine) makes the namespace directly; anyone else through a user namespace. A PID namespace
        // too: when its first process ends, the kernel ends every other one in it, so a chromedriver or Chromium left
        // behind by a stopped script cannot hold the output pipes open (a fresh-clone CI waited 207 s on one).
        let namespace = (getuid() == 0 ? [] : ["--user", "--map-root-user"]) + ["--net", "--pid", "--fork", "--kill-child"]
        func run() throws -> ProcessResult { try Tool.run("/usr/bin/unshare", namespace + ["bash", "-c", inner], timeout: 50) }
        var result = try run()
        if result.timedOut || (result.status == 124 && result.stdoutText.isEmpty) {
            // Chromium that never came up (headless start-up hanging on a busy host) says nothing about the answers:
            // once more, and that run is judged.
            result = try run()
        }
        #expect(!result.timedOut)
        let lines = result.stdoutText.split(separator: "\n")
        try #require(lines.count == files.count, "stdout: \(result.stdoutText)\nstderr: \(result.stderrText.suffix(1500))")
        for (c, line) in zip(Self.cases, lines) {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(c.name)")
            #expect(json["error"] == nil, "\(c.name): \(json["error"] ?? "")")
            #expect(json["signalingState"] as? String == "stable", "\(c.name)")
            #expect(json["currentDirection"] as? String == "recvonly", "\(c.name)")
            #expect(json["mid"] as? String == "0", "\(c.name)")
            #expect(Set(json["headerExtensions"] as? [String] ?? []) == c.extensions, "\(c.name): the negotiated extensions")
        }
        let refused = try #require(try JSONSerialization.jsonObject(with: Data(lines[files.count - 1].utf8)) as? [String: Any])
        #expect((refused["error"] as? String)?.contains("fingerprint") == true, "the broken answer: \(refused)")
        #expect(result.status == 1, "the script reports the refused answer")
    }
}
