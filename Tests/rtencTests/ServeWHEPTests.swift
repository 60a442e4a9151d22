import Foundation
import TestSupport
import Testing

/// `rtenc serve --whep` end to end against aiortc (Debian python3-aiortc, an independent WebRTC stack on the same
/// OpenSSL and libsrtp2): each player POSTs its offer, gets ICE-lite + DTLS + SRTP from rtenc, decodes H.264 and reads
/// the clock barcode from every picture. All of it inside a network namespace the test makes (scripts/whep-serve-check.sh).
@Suite(.serialized) struct ServeWHEPTests {
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts").standardized

    /// unshare --net works here (root, or user namespaces allowed) and the peers are installed.
    static let namespaceProblem: String? = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return "no /usr/bin/unshare" }
        guard let probe = try? Tool.run("/usr/bin/unshare", namespaceArguments + ["true"], timeout: 10), probe.status == 0 else {
            return "unshare --net is not permitted here"
        }
        guard let aiortc = try? Tool.run("/usr/bin/python3", ["-c", "import aiortc"], timeout: 20), aiortc.status == 0 else {
            return "python3-aiortc is not installed (scripts/deps.sh)"
        }
        return nil
    }()

    /// Shown for every skipped test (never a silent skip): what is missing and how to get it.
    static let skipMessage: Comment = "skipped: needs unshare --net (root or unprivileged user namespaces) and python3-aiortc, chromium, chromium-driver, python3-selenium (scripts/deps.sh); the reason found here: \(namespaceProblem ?? "none")"

    static var namespaceArguments: [String] { getuid() == 0 ? ["--net", "--fork"] : ["--user", "--map-root-user", "--net", "--fork"] }

    struct Run {
        var viewers: [[String: Any]]
        var stats: [[String: Any]]
        var log: String
    }

    /// `viewers`: how many aiortc players, or "chromium" for one headless Chromium on the player page.
    /// `environment`: for the script (UDP_RATE shapes UDP on lo, SETTLE splits the players' latency; see the script).
    static func serve(viewers: String, seconds: Double, options: [String] = [], environment: [String: String] = [:]) throws -> Run {
        if let problem = namespaceProblem { throw ToolError("cannot run: \(problem)") }
        let directory = try makeTemporaryDirectory(prefix: "rtenc-serve")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = scripts.appendingPathComponent("whep-serve-check.sh").path
        let result = try Tool.run(
            "/usr/bin/unshare",
            namespaceArguments + ["/usr/bin/env"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                + [script, CLIRunner.rtencPath, directory.path, viewers, "\(seconds)"] + options,
            timeout: seconds + 45)
        let read = { (name: String) in (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? "" }
        let players = Int(viewers) ?? 1
        let log = "script: \(result.stderrText.suffix(800))\nrtenc: \(read("rtenc.out"))\(read("rtenc.err").suffix(3000))\(read("tc.txt"))"
            + "\nschedule: \(read("schedule.txt"))"
            + (1 ... players).map { "\nviewer \($0): \(read("viewer-\($0).json"))\(read("viewer-\($0).err").suffix(1500))" }.joined()
        #expect(!result.timedOut, "\(log)")
        let parse = { (line: Substring) in (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] }
        let results = (1 ... players).compactMap { read("viewer-\($0).json").split(separator: "\n").last.flatMap(parse) }
        let stats = read("stats.jsonl").split(separator: "\n").compactMap(parse)
        return Run(viewers: results, stats: stats, log: log)
    }

    /// The `--stats-json` lines with a viewer: time, encoder target (kb/s) and the first viewer's numbers.
    static func timeline(_ run: Run) -> [(time: Double, target: Double, viewer: [String: Any])] {
        run.stats.compactMap { line in
            guard let time = line["time"] as? Double, let target = line["target_kbps"] as? Double,
                  let viewer = (line["viewers"] as? [[String: Any]])?.first else { return nil }
            return (time, target, viewer)
        }
    }

    @Test(.enabled(if: Self.namespaceProblem == nil, Self.skipMessage), .timeLimit(.minutes(2))) func aiortcDecodesTheStream() throws {
        let run = try Self.serve(viewers: "1", seconds: 10, options: ["--size", "640x360", "testsrc:barcode"])
        let player = try #require(run.viewers.first, "\(run.log)")
        #expect(player["status"] as? Int == 201, "\(run.log)")
        #expect((player["frames"] as? Int ?? 0) >= 60, "\(run.log)")
        #expect((player["codes_read"] as? Int ?? 0) >= 60, "the barcode read from the decoded pictures: \(run.log)")
        #expect(player["monotonic"] as? Bool == true, "\(run.log)")
        #expect(player["size"] as? [Int] == [640, 360], "\(run.log)")
        #expect(player["delete_status"] as? Int == 200, "DELETE ends the viewer: \(run.log)")
        let latency = try #require(player["latency_ms"] as? [String: Int], "\(run.log)")
        #expect(latency["median"] ?? .max < 500, "\(run.log)")
        // The server's view: one viewer, connected, sent its own IDR.
        let viewers = run.stats.flatMap { $0["viewers"] as? [[String: Any]] ?? [] }
        #expect(viewers.contains { $0["state"] as? String == "connected" && ($0["keyframes"] as? Int ?? 0) >= 1 }, "\(run.log)")
    }

    /// The browser: rtenc's own player page in headless Chromium 156 (design/webrtc.md §7.3's pass criteria).
    @Test(.enabled(if: Self.namespaceProblem == nil, Self.skipMessage), .timeLimit(.minutes(2))) func chromiumPlaysThePage() throws {
        let run = try Self.serve(viewers: "chromium", seconds: 10, options: ["--size", "640x360", "testsrc:barcode"])
        let page = try #require(run.viewers.first, "\(run.log)")
        let stats = try #require(page["stats"] as? [String: Any], "\(run.log)")
        #expect((stats["framesDecoded"] as? Int ?? 0) >= 60, "\(run.log)")
        #expect(stats["codec"] as? String == "video/H264", "\(run.log)")
        #expect(stats["frameWidth"] as? Int == 640 && stats["frameHeight"] as? Int == 360, "\(run.log)")
        #expect(stats["tlsVersion"] as? String == "FEFD", "DTLS 1.2: \(run.log)")
        #expect(stats["srtpCipher"] as? String == "SRTP_AES128_CM_HMAC_SHA1_80", "\(run.log)")
        #expect((page["errors"] as? [Any])?.isEmpty == true, "no page errors: \(run.log)")
        #expect((page["frames_read"] as? Int ?? 0) >= 60, "barcodes read off the decoded frames: \(run.log)")
        let latency = try #require(page["latency_ms"] as? [String: Int], "\(run.log)")
        #expect(latency["median"] ?? .max < 150, "glass-to-glass median: \(run.log)")
        // Where the time went: rtenc's steps in --stats-json and Chromium's side from the page, for the same frames.
        let last = try #require(run.stats.last, "\(run.log)")
        let stages = last["stages_ms"] as? [String: [String: Any]] ?? [:]
        for name in ["source", "encode", "hand_over"] {
            #expect((stages[name]?["frames"] as? Int ?? 0) > 0 && stages[name]?["p50"] is Double, "stages_ms.\(name): \(run.log)")
        }
        let send = ((last["viewers"] as? [[String: Any]])?.first?["send_ms"] as? [String: [String: Any]]) ?? [:]
        #expect((send["first_packet"]?["frames"] as? Int ?? 0) > 0 && (send["last_packet"]?["frames"] as? Int ?? 0) > 0,
                "send_ms: \(run.log)")
        let breakdown = page["breakdown_ms"] as? [String: Any] ?? [:]
        for name in ["to_receive", "receive_to_present", "chromium_decode"] {
            #expect(breakdown[name] is Double || breakdown[name] is Int, "breakdown_ms.\(name): \(run.log)")
        }
    }

    /// RTX with the browser (RFC 4588): the player page keeps rtx in its codec preferences, so Chromium's offer has it
    /// and rtenc's answer takes it (`a=ssrc-group:FID`). 3 % of the datagrams from rtenc's media port are dropped on
    /// arrival (nftables in the namespace); Chromium NACKs them and gets them back on the RTX stream: its getStats
    /// counts `retransmittedPacketsReceived`, rtenc's `--stats-json` the re-sent packets and the RTX SSRC. The viewer's
    /// GCC (transport-cc, `serve --cc gcc`) sent its start-up probe as RTX padding, and the picture kept coming.
    @Test(.enabled(if: Self.namespaceProblem == nil, Self.skipMessage),
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft"), "skipped: needs nft (Debian nftables, scripts/deps.sh)"),
          .timeLimit(.minutes(2))) func chromiumRepairsLossOnRTX() throws {
        let run = try Self.serve(viewers: "chromium", seconds: 10,
                                 options: ["--size", "640x360", "--webrtc-udp", "127.0.0.1:8090", "testsrc:barcode"],
                                 environment: ["UDP_DROP": "8090:3"])
        let page = try #require(run.viewers.first, "\(run.log)")
        let stats = try #require(page["stats"] as? [String: Any], "\(run.log)")
        #expect((stats["framesDecoded"] as? Int ?? 0) >= 60, "\(run.log)")
        #expect((stats["nackCount"] as? Int ?? 0) > 0, "Chromium asked for the lost packets: \(run.log)")
        #expect((stats["retransmittedPacketsReceived"] as? Int ?? 0) > 0, "and got them on RTX: \(run.log)")
        let viewer = try #require(Self.timeline(run).last?.viewer, "\(run.log)")
        #expect(viewer["rtx_ssrc"] as? Int != nil, "RTX negotiated: \(run.log)")
        #expect((viewer["retransmitted"] as? Int ?? 0) > 0, "\(run.log)")
        #expect(viewer["cc"] as? String == "gcc", "\(run.log)")
        #expect((viewer["probe_clusters"] as? Int ?? 0) >= 1, "GCC's start-up probe went out as RTX padding: \(run.log)")
    }

    /// Three aiortc players at once on one encoder: each decodes, each on its own SSRC and SRTP keys, and each started
    /// at an IDR forced when its SRTP became ready (the first keyframe queued for it within a second of its POST).
    @Test(.enabled(if: Self.namespaceProblem == nil, Self.skipMessage), .timeLimit(.minutes(2))) func severalViewersEachGetTheirOwnIDR() throws {
        let run = try Self.serve(viewers: "3", seconds: 8, options: ["--size", "480x272", "testsrc:barcode"])
        #expect(run.viewers.count == 3, "\(run.log)")
        for player in run.viewers {
            #expect((player["frames"] as? Int ?? 0) >= 60, "\(run.log)")
            #expect(player["monotonic"] as? Bool == true, "\(run.log)")
            #expect((player["codes_read"] as? Int ?? 0) >= 60, "\(run.log)")
        }
        var firstKeyframe: [String: Double] = [:]
        for line in run.stats {
            for viewer in line["viewers"] as? [[String: Any]] ?? [] {
                if let id = viewer["id"] as? String, let ms = viewer["first_keyframe_ms"] as? Double { firstKeyframe[id] = ms }
            }
        }
        #expect(firstKeyframe.count == 3, "three sessions, each with its first IDR: \(run.log)")
        #expect(firstKeyframe.values.allSatisfy { $0 < 1000 }, "\(firstKeyframe)")
        let encoderKeyframes = run.stats.last?["keyframes"] as? Int ?? 0
        #expect(encoderKeyframes >= 2, "the first frame's IDR and at least one forced for a joining viewer: \(run.log)")
    }

    /// A constrained link (issue 16; design/webrtc.md §7.4): UDP shaped to 800 kb/s with tc htb and a 30-packet queue
    /// (no netem in this kernel), a noisy picture that wants far more than `--bitrate 2000k` at 640×360. The viewer's
    /// REMB falls below the link and the encoder's target follows it within 5 s of the viewer connecting; past the
    /// first 10 s the clock barcode's latency p90 stays under 400 ms (aiortc's own sender reached 0.7–1.3 s on this
    /// link: its queue stayed full).
    ///
    /// It was opt-in while the bar held in 4 of 6 runs. The misses were the witness, not the latency: at the rates
    /// this link allows, noise keeps x264 near QP 51, and the player read one code for up to 89 decoded pictures in
    /// a row (3 s) while frames kept arriving at 30 fps, no loss was reported and rtenc's queue stayed under 30 ms,
    /// sending at most 85 % of the link — each repeat counted as ever later (P frames at QP 51 leaving the barcode's
    /// blocks unrefreshed is the likely cause; not proven). The player now counts only pictures with a new code
    /// (`stale_settled` the others); 5 of 5 runs at load 17–19 passed (p90 69–106 ms), and the 4 earlier traces
    /// re-read that way gave 56–188 ms (BENCHMARKS.md, "Constrained link: why it missed").
    @Test(.enabled(if: Self.namespaceProblem == nil, Self.skipMessage),
          .timeLimit(.minutes(2))) func constrainedLinkFollowsREMB() throws {
        let run = try Self.serve(viewers: "1", seconds: 20, options: ["--size", "640x360", "--bitrate", "2000k", "testsrc:noise:barcode"],
                                 environment: ["UDP_RATE": "800kbit", "SETTLE": "10"])
        let player = try #require(run.viewers.first, "\(run.log)")
        #expect(player["status"] as? Int == 201, "\(run.log)")
        // No `monotonic` check here: while the first burst overflows the queue, aiortc shows pictures decoded from
        // damaged references, and a damaged barcode can read as an earlier code. The settled window is what counts.
        let settled = try #require(player["latency_settled_ms"] as? [String: Int], "frames after 10 s: \(run.log)")
        // Pictures decoded after 10 s with a readable barcode: those with a new code and the stale ones between them.
        let readAfterSettling = (settled["count"] ?? 0) + (player["stale_settled"] as? Int ?? 0)
        #expect(readAfterSettling >= 100, "the picture kept coming after the first 10 s: \(run.log)")
        #expect(settled["p90"] ?? .max < 400, "latency p90 after 10 s (\(player["stale_settled"] ?? "?") stale pictures apart): \(run.log)")
        let link = 800.0
        let seen = Self.timeline(run)
        let connected = try #require(seen.first { $0.viewer["state"] as? String == "connected" }, "\(run.log)")
        let followed = try #require(seen.first { ($0.viewer["remb_kbps"] as? Double ?? .infinity) < link && $0.target < link },
                                    "REMB below the link and the target under it: \(run.log)")
        #expect(followed.time - connected.time <= 5, "target under the link \(followed.time - connected.time) s after connecting: \(run.log)")
        // And it stays there while the viewer is connected: no line after that with the target above the link (once
        // it has left, the target goes back to --bitrate for whoever comes next).
        #expect(seen.filter { $0.time > followed.time && $0.viewer["state"] as? String == "connected" }.allSatisfy { $0.target < link },
                "\(run.log)")
    }

    /// Chromium with transport-cc through a link that narrows and widens again (issue 17's last row): UDP shaped to
    /// 2 Mb/s, 800 kb/s from 15 s to 30 s, then 2 Mb/s; `testsrc:noise:barcode` at 1500k, which fills any of them. The
    /// viewer runs rtenc's own controller over its transport-cc reports (`serve --cc rtenc`: frame budgets and skips
    /// reach the encoder): the barcode latency p90 over the run stays under 300 ms, the target falls under the narrow
    /// link, and after the link widens the target is back to 90 % of where it was before the drop within 5 s. Four
    /// runs on a quiet host (2026-11-25 11:08–11:11 UTC, load 0.6–1.0) gave p90 54, 50, 45 and 48 ms and recovered in
    /// 3.0 s each (BENCHMARKS.md). goog_cc (`--cc gcc`, the default) does not: its p90 was 374 ms in the same hour and
    /// after the link widens it asks for no probe (it probes at start, on a probe's result and in ALR; the encoder
    /// fills its target, so no ALR), so its target climbs by AIMD's 8 %/s from the ~280 kb/s it fell to — as
    /// libwebrtc's would.
    @Test(.enabled(if: Self.namespaceProblem == nil, Self.skipMessage), .timeLimit(.minutes(3)))
    func chromiumTransportCCFollowsAShapedLink() throws {
        let run = try Self.serve(viewers: "chromium", seconds: 36,
                                 options: ["--size", "640x360", "--bitrate", "1500k", "--cc", "rtenc", "testsrc:noise:barcode"],
                                 environment: ["UDP_RATE": "2mbit", "UDP_SCHEDULE": "800kbit@15 2mbit@30"])
        let page = try #require(run.viewers.first, "\(run.log)")
        let latency = try #require(page["latency_ms"] as? [String: Int], "\(run.log)")
        let seen = Self.timeline(run)
        #expect(seen.contains { $0.viewer["cc"] as? String == "rtenc" }, "the viewer negotiated transport-cc and runs rtenc's controller: \(run.log)")
        #expect(latency["p90"] ?? .max < 300, "barcode latency p90: \(run.log)")
        let before = seen.filter { $0.time >= 10 && $0.time < 15 }.map(\.target).max() ?? 0
        #expect(seen.filter { $0.time >= 20 && $0.time < 30 }.contains { $0.target < 800 }, "under the narrow link: \(run.log)")
        let recovered = seen.first { $0.time >= 30 && $0.target >= 0.9 * before }
        #expect(recovered.map { $0.time - 30 <= 5 } == true,
                "back to 90 % of \(before) kb/s \(recovered.map { "\($0.time - 30) s" } ?? "never") after the link widened: \(run.log)")
    }

    /// Chromium 156's recorded offer against a stream it cannot take: 406 with the SDP layer's reason (what is
    /// missing and what would work), and rtenc keeps serving (a refused offer is the player's problem, not the
    /// server's). `--profile high`: it offers no High profile; `--codec hevc`: it has no HEVC decoder and offers no
    /// H.265.
    @Test(.enabled(if: Self.namespaceProblem == nil, Self.skipMessage), .timeLimit(.minutes(1)),
          arguments: [(["--profile", "high"], ["High", "--profile main"]),
                      (["--codec", "hevc"], ["the player offered no H.265", "--codec h264"])])
    func anOfferChromiumCannotTakeIs406(_ c: (options: [String], says: [String])) throws {
        let (lines, text) = try Self.postChromiumOffer(serving: c.options)
        #expect(lines.first == "406", "\(text)")
        for fragment in c.says { #expect(text.contains(fragment), "the reason: \(text)") }
        #expect(lines.contains("still-serving"))
    }

    /// Serves with `options` in a namespace of its own, POSTs Chromium 156's recorded WHEP offer, and returns the
    /// status and body lines (then "still-serving" if rtenc outlived the refusal) and all of stdout and stderr.
    static func postChromiumOffer(serving options: [String]) throws -> (lines: [Substring], text: String) {
        let offer = Self.scripts.appendingPathComponent("../Tests/WebRTCTests/Fixtures/chromium-156-whep-recvonly-h264.sdp").standardized.path
        let inner = """
            ip link set lo up
            timeout 20 \(CLIRunner.rtencPath) serve --whep 127.0.0.1:8089 \(options.joined(separator: " ")) --duration 8 --quiet >/dev/null 2>&1 & server=$!
            for i in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/8089) 2>/dev/null && break; sleep 0.1; done
            /usr/bin/python3 -c '
            import sys, urllib.request, urllib.error
            r = urllib.request.Request("http://127.0.0.1:8089/whep", data=open(sys.argv[1], "rb").read(), method="POST",
                                       headers={"Content-Type": "application/sdp"})
            try:
                urllib.request.urlopen(r, timeout=5); print(201)
            except urllib.error.HTTPError as e:
                print(e.code); print(e.read().decode())
            ' \(offer)
            kill -0 $server && echo still-serving
            kill -INT "$(pgrep -P $server)"; wait $server
            """
        let result = try Tool.run("/usr/bin/unshare", Self.namespaceArguments + ["bash", "-c", inner], timeout: 40)
        return (result.stdoutText.split(separator: "\n"), result.stdoutText + " " + result.stderrText)
    }
}
