import Foundation
import TestSupport
import Testing

/// The SFU path (issue 16): `rtenc stream` → Janus 1.1.2 streaming mountpoint → headless Chromium joining late
/// (scripts/janus-check.sh, inside a network namespace with a veth pair: Janus gathers no candidates on loopback).
/// rtenc streams with `--join-keyframes off`, so the first frame is the only IDR nobody asked for: the picture a late
/// viewer decodes comes from the keyframe request that travelled back through Janus's RTCP feedback port.
@Suite(.serialized) struct JanusStreamingTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/janus-check.sh").standardized.path

    static let problem: String? = {
        if let problem = ServeWHEPTests.namespaceProblem { return problem }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/janus") else { return "janus is not installed (scripts/deps.sh)" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") else { return "chromium-driver is not installed (scripts/deps.sh)" }
        return nil
    }()

    static let skipMessage: Comment = "skipped: needs unshare --net, janus, chromium, chromium-driver and python3-selenium (scripts/deps.sh); the reason found here: \(problem ?? "none")"

    @Test(.enabled(if: Self.problem == nil, Self.skipMessage), .timeLimit(.minutes(2))) func lateChromiumDecodesThroughJanus() throws {
        let directory = try makeTemporaryDirectory(prefix: "rtenc-janus")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Tool.run("/usr/bin/unshare", ServeWHEPTests.namespaceArguments + [Self.script, CLIRunner.rtencPath, directory.path, "4", "6"],
                                  timeout: 90)
        let read = { (name: String) in (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? "" }
        let log = "script: \(result.stderrText.suffix(800))\nviewer: \(read("viewer.json")) \(read("viewer.err").suffix(1500))\n"
            + "rtenc: \(read("rtenc.err").suffix(1500))\njanus: \(read("janus.log").suffix(2000))"
        #expect(!result.timedOut, "\(log)")
        #expect(result.status == 0, "\(log)")
        let viewer = try #require((try? JSONSerialization.jsonObject(with: Data(read("viewer.json").utf8))) as? [String: Any], "\(log)")
        let stats = try #require(viewer["stats"] as? [String: Any], "\(log)")
        #expect(stats["codec"] as? String == "video/H264", "\(log)")
        #expect((viewer["errors"] as? [Any])?.isEmpty == true, "\(log)")
        #expect(viewer["offer_has_candidate"] as? Bool == true, "Janus offered its veth address: \(log)")
        #expect((viewer["frames_read"] as? Int ?? 0) >= 30, "barcodes read off the decoded pictures: \(log)")
        let firstFrame = try #require(viewer["first_frame_after_join_ms"] as? Int, "\(log)")
        #expect(firstFrame < 2000, "decoded within 2 s of joining (watch request → first painted frame): \(log)")
        // rtenc's side: the keyframe request came back through Janus and brought the IDR the viewer started from.
        let lines = read("stats.jsonl").split(separator: "\n")
            .compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        let last = try #require(lines.last, "\(log)")
        #expect((last["plis"] as? Int ?? 0) >= 1, "a keyframe request reached rtenc through Janus: \(log)")
        #expect((last["keyframes"] as? Int ?? 0) >= 2, "the first frame's IDR and the one asked for: \(log)")
        #expect(last["join_keyframes"] as? Bool == false, "\(log)")
    }
}
