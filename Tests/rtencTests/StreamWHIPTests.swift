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
    /// RTX is negotiated (aiortc keeps the offered rtx), and the DELETE of the (relative) Location arrives when rtenc
    /// stops.
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
        // aiortc answers our rtx payload type (apt=96): the publisher's session has its RTX stream.
        #expect(peers.contains { $0["rtx_ssrc"] as? Int != nil }, "RTX negotiated with aiortc: \(run.log)")
    }

    /// `--codec hevc` to GStreamer's webrtcbin as the WHIP server (scripts/whip-gstreamer-server.py: the one WebRTC
    /// peer here that decodes H.265; rtph265depay ! h265parse ! avdec_h265): 10 s of testsrc:barcode, the offer's
    /// H265/90000 with profile-id, tier-flag and level-id answered, and ≥ 95 % of the pictures due between the first
    /// and the last barcode read decoded, in order, with no GStreamer error; the DELETE at the stop.
    @Test(.enabled(if: ServeWHEPTests.gstreamerProblem == nil, ServeWHEPTests.gstreamerSkip), .timeLimit(.minutes(2)))
    func gstreamerDecodesThePublishedHEVC() throws {
        let run = try Self.publish(seconds: 10, serverOptions: ["--server", "gstreamer", "--codec", "h265"],
                                   options: ["--codec", "hevc", "--size", "640x360", "testsrc:barcode"])
        #expect(run.server["status"] as? Int == 201, "\(run.log)")
        #expect(run.server["decoder"] as? String == "avdec_h265", "\(run.log)")
        let offered = run.server["offered_fmtp"] as? String ?? ""
        #expect(offered.hasPrefix("profile-id=1;tier-flag=0;level-id="), "the offer's H265 fmtp: \(run.log)")
        let answered = run.server["answered_fmtp"] as? String ?? ""
        #expect(answered.contains("profile-id=1") && answered.contains("tier-flag=0") && answered.contains("level-id="), "\(run.log)")
        #expect(run.server["offer_has_candidates"] as? Bool == true, "\(run.log)")
        let published = run.rtencOut.split(separator: "\n").lazy.compactMap { line -> Int? in
            guard let range = line.range(of: "published ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }.first ?? 0
        let frames = run.server["frames"] as? Int ?? 0
        let codes = run.server["codes_read"] as? Int ?? 0
        // The barcode is the wall clock in ms at 30 fps: the span of the codes read says how many pictures were due.
        let span = ((run.server["last_code"] as? Int ?? 0) - (run.server["first_code"] as? Int ?? 0)) & 0xFF_FFFF
        let due = Int((Double(span) * 30 / 1000).rounded()) + 1
        #expect(published >= 280, "10 s at 30 fps: \(run.log)")
        #expect(frames >= published * 9 / 10, "all but the frames before DTLS was up (and the first IRAP): \(frames) of \(published); \(run.log)")
        #expect(Double(codes) >= 0.95 * Double(due) && due >= 250, "\(codes) decoded of \(due) due: \(run.log)")
        #expect(run.server["monotonic"] as? Bool == true, "in order: \(run.log)")
        #expect(run.server["size"] as? [Int] == [640, 360], "\(run.log)")
        #expect((run.server["errors"] as? [Any])?.isEmpty == true, "no GStreamer errors: \(run.log)")
        #expect(run.server["delete_received"] as? Bool == true, "\(run.log)")
        #expect(run.rtencOut.contains("rtenc exit 0"), "\(run.log)")
        let peers = run.stats.flatMap { $0["viewers"] as? [[String: Any]] ?? [] }
        #expect(peers.contains { $0["state"] as? String == "connected" && ($0["keyframes"] as? Int ?? 0) >= 1 }, "\(run.log)")
    }

    /// aiortc takes no H.265: its 400 for our H.265-only offer is one line that names --codec h264 (status 1).
    @Test(.enabled(if: ServeWHEPTests.namespaceProblem == nil, ServeWHEPTests.skipMessage), .timeLimit(.minutes(1)))
    func aServerWithoutH265NamesTheOtherCodec() throws {
        let run = try Self.publish(seconds: 2, options: ["--codec", "hevc", "--size", "320x240", "--quiet"])
        #expect(run.server["status"] as? Int == 400, "\(run.log)")
        let errors = run.rtencOut.split(separator: "\n").filter { $0.hasPrefix("rtenc:") }
        #expect(errors.count == 1, "\(run.log)")
        let line = errors.first ?? ""
        #expect(line.hasPrefix("rtenc: stream: the WHIP server http://127.0.0.1:8090/whip refused the offer: 400 Bad Request: "), "\(line)")
        #expect(line.hasSuffix("; rtenc offered H.265 only (--codec hevc): --codec h264 publishes H.264"), "\(line)")
        #expect(run.rtencOut.contains("rtenc exit 1"), "\(run.log)")
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

    /// What never reaches a server: a URL that is not http(s) (one line, status 1, before the encoder opens), the plain
    /// RTP options beside --whip, and --whip-token or --smooth-playout alone (usage errors, 64).
    @Test func badURLAndOptionsThatDoNotGoWithWHIP() throws {
        let bad = try CLIRunner.rtenc(["stream", "--whip", "ftp://example/whip", "--duration", "1"], timeout: 30)
        #expect(bad.status == 1)
        #expect(bad.stderrText == "rtenc: stream: --whip: \"ftp://example/whip\": WHIP needs an http or https URL, not ftp\n")
        let relative = try CLIRunner.rtenc(["stream", "--whip", "/whip", "--duration", "1"], timeout: 30)
        #expect(relative.status == 1)
        #expect(relative.stderrText.hasPrefix("rtenc: stream: --whip: \"/whip\" is not an absolute URL"), "\(relative.stderrText)")
        let both = try CLIRunner.rtenc(["stream", "--whip", "http://127.0.0.1:8090/whip", "--to", "127.0.0.1:5000", "--sdp", "x.sdp"], timeout: 30)
        #expect(both.status == 64)
        #expect(both.stderrText.contains("--whip publishes over WebRTC; --to, --sdp are for plain RTP"), "\(both.stderrText)")
        #expect(both.stderrText.split(separator: "\n").count == 1)
        let token = try CLIRunner.rtenc(["stream", "--whip-token", "abc"], timeout: 30)
        #expect(token.status == 64)
        #expect(token.stderrText.contains("--whip-token needs --whip URL"))
        let smooth = try CLIRunner.rtenc(["stream", "--to", "127.0.0.1:5000", "--smooth-playout"], timeout: 30)
        #expect(smooth.status == 64)
        #expect(smooth.stderrText.contains("--smooth-playout needs --whip URL"), "\(smooth.stderrText)")
    }

    /// A server that refuses (401: no token given), one that is not there (connection refused: at once, one try) and
    /// one that never answers the SYN (a listener whose accept queue is full, so the kernel drops SYNs as a blackholed
    /// route would: the 3 s connect timeout): one line each with the status and the server's reason, or the cause;
    /// status 1. Inside a namespace, like the others.
    @Test(.enabled(if: ServeWHEPTests.namespaceProblem == nil, ServeWHEPTests.skipMessage), .timeLimit(.minutes(1)))
    func refusalsAreOneLine() throws {
        let server = ServeWHEPTests.scripts.appendingPathComponent("whip-aiortc-server.py").path
        let directory = try makeTemporaryDirectory(prefix: "rtenc-whip-refused")
        defer { try? FileManager.default.removeItem(at: directory) }
        let rtenc = "\(CLIRunner.rtencPath) stream --duration 2 --size 320x240 --quiet --whip"
        // The listener whose queue is full exits by itself (15 s) and holds none of the test's pipes: under the test
        // runner the `kill` through `timeout` did not end it, and the run waited 30 s for its stderr.
        let inner = """
            ip link set lo up
            timeout 30 /usr/bin/python3 \(server) 8090 20 \(directory.path)/server.json --token right >\(directory.path)/server.out 2>&1 & server=$!
            timeout 20 /usr/bin/python3 -c 'import socket, time
            l = socket.socket(); l.bind(("127.0.0.1", 8092)); l.listen(0)
            f = socket.socket(); f.connect(("127.0.0.1", 8092)); print("full", flush=True); time.sleep(15)' >\(directory.path)/full.out 2>&1 & full=$!
            for i in $(seq 1 100); do grep -q listening \(directory.path)/server.out 2>/dev/null && grep -q full \(directory.path)/full.out && break; sleep 0.1; done
            timeout 20 \(rtenc) http://127.0.0.1:8090/whip --whip-token wrong
            echo "exit $?"
            start=$(date +%s%N); timeout 20 \(rtenc) http://127.0.0.1:8091/whip
            echo "exit $? $(( ($(date +%s%N) - start) / 1000000 ))"
            start=$(date +%s%N); timeout 20 \(rtenc) http://127.0.0.1:8092/whip
            echo "exit $? $(( ($(date +%s%N) - start) / 1000000 ))"
            kill $server $full; wait $server
            """
        let result = try Tool.run("/usr/bin/unshare", ServeWHEPTests.namespaceArguments + ["bash", "-c", inner], timeout: 50)
        let errors = result.stderrText.split(separator: "\n").filter { $0.hasPrefix("rtenc:") }
        let exits = result.stdoutText.split(separator: "\n").map { $0.split(separator: " ") }
        #expect(exits.map { $0.prefix(2).joined(separator: " ") } == ["exit 1", "exit 1", "exit 1"], "\(result.stdoutText) \(result.stderrText)")
        #expect(errors.count == 3, "one line each: \(result.stderrText)")
        guard errors.count == 3, exits.count == 3 else { return }
        #expect(errors[0] == "rtenc: stream: the WHIP server http://127.0.0.1:8090/whip refused the offer: 401 Unauthorized: a bearer token is required",
                "\(result.stderrText)")
        #expect(errors[1].hasPrefix("rtenc: stream: WHIP http://127.0.0.1:8091/whip: POST http://127.0.0.1:8091/whip: cannot connect to 127.0.0.1:8091: ")
                && errors[1].contains("Connection refused"), "\(result.stderrText)")
        // The whole process, encoder start included: well under the second a refused connection may cost.
        let refusedMilliseconds = Int(exits[1].last ?? "") ?? .max
        #expect(refusedMilliseconds < 1000, "connection refused took \(refusedMilliseconds) ms")
        #expect(errors[2] == "rtenc: stream: WHIP http://127.0.0.1:8092/whip: POST http://127.0.0.1:8092/whip: no connection within 3 s (connect timeout)",
                "\(result.stderrText)")
        let unansweredMilliseconds = Int(exits[2].last ?? "") ?? .max
        #expect(unansweredMilliseconds >= 3000 && unansweredMilliseconds < 4500, "an unanswered SYN took \(unansweredMilliseconds) ms")
    }

    /// HTTPS with a private CA (made here with the openssl CLI: a P-256 CA and a certificate for IP 127.0.0.1, which
    /// aiortc's server presents): without `--whip-ca-file` the handshake fails and rtenc says why in one line (status 1,
    /// no POST reached the server); with it, rtenc publishes, aiortc decodes, and the DELETE goes over https too.
    @Test(.enabled(if: ServeWHEPTests.namespaceProblem == nil, ServeWHEPTests.skipMessage), .timeLimit(.minutes(2)))
    func publishesOverHTTPSWithAPrivateCA() throws {
        let server = ServeWHEPTests.scripts.appendingPathComponent("whip-aiortc-server.py").path
        let directory = try makeTemporaryDirectory(prefix: "rtenc-whip-https")
        defer { try? FileManager.default.removeItem(at: directory) }
        let d = directory.path
        let inner = """
            set -e
            cd \(d)
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 1 -subj "/CN=rtenc test CA" 2>/dev/null
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key -out server.csr -subj "/CN=127.0.0.1" 2>/dev/null
            printf 'subjectAltName=IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\nextendedKeyUsage=serverAuth\\n' >server.ext
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 1 -extfile server.ext 2>/dev/null
            set +e
            ip link set lo up
            ip addr add 127.0.0.2/8 dev lo
            timeout 40 /usr/bin/python3 \(server) 8090 30 server.json --tls server.pem server.key >server.out 2>server.err & server=$!
            for i in $(seq 1 100); do grep -q listening server.out 2>/dev/null && break; sleep 0.1; done
            timeout 20 \(CLIRunner.rtencPath) stream --whip https://127.0.0.1:8090/whip --duration 2 --size 320x240 --quiet
            echo "exit $?"
            timeout 30 \(CLIRunner.rtencPath) stream --whip https://127.0.0.1:8090/whip --whip-ca-file ca.pem --duration 5 \\
                --size 640x360 testsrc:barcode >rtenc.out 2>rtenc.err
            echo "exit $?"
            wait $server
            """
        let result = try Tool.run("/usr/bin/unshare", ServeWHEPTests.namespaceArguments + ["bash", "-c", inner], timeout: 80)
        let read = { (name: String) in (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? "" }
        let log = "\(result.stdoutText) \(result.stderrText)\nrtenc: \(read("rtenc.out"))\(read("rtenc.err").suffix(2000))\nserver: \(read("server.json")) \(read("server.err").suffix(1000))"
        #expect(result.stdoutText == "exit 1\nexit 0\n", "\(log)")
        let errors = result.stderrText.split(separator: "\n").filter { $0.hasPrefix("rtenc:") }
        #expect(errors == ["rtenc: stream: WHIP https://127.0.0.1:8090/whip: POST https://127.0.0.1:8090/whip: TLS: the server's certificate is not trusted (CERTIFICATE_VERIFY_FAILED: no CA in the system store signed it); --whip-ca-file adds a CA"],
                "\(log)")
        let json = (try? JSONSerialization.jsonObject(with: Data(read("server.json").utf8))) as? [String: Any] ?? [:]
        #expect(json["posts"] as? Int == 1, "only the run with the CA file reached HTTP: \(log)")
        #expect(json["status"] as? Int == 201, "\(log)")
        #expect((json["frames"] as? Int ?? 0) >= 60, "\(log)")
        #expect((json["codes_read"] as? Int ?? 0) >= 60, "\(log)")
        #expect(json["delete_received"] as? Bool == true, "\(log)")
        #expect(read("rtenc.out").contains("over WHIP to https://127.0.0.1:8090/whip"), "\(log)")
    }

    /// A CA file rtenc cannot use is refused before anything starts, and --whip-ca-file needs --whip.
    @Test func unusableCAFileIsOneLine() throws {
        let missing = try CLIRunner.rtenc(["stream", "--whip", "https://127.0.0.1:8090/whip", "--whip-ca-file", "/nonexistent/ca.pem", "--duration", "1"], timeout: 30)
        #expect(missing.status == 1)
        #expect(missing.stderrText.hasPrefix("rtenc: stream: --whip-ca-file /nonexistent/ca.pem: not a readable PEM file of certificates"), "\(missing.stderrText)")
        #expect(missing.stderrText.split(separator: "\n").count == 1, "\(missing.stderrText)")
        let alone = try CLIRunner.rtenc(["stream", "--whip-ca-file", "ca.pem"], timeout: 30)
        #expect(alone.status == 64)
        #expect(alone.stderrText.contains("--whip-ca-file needs --whip URL"), "\(alone.stderrText)")
    }
}
