import Foundation
import TestSupport
import Testing

/// `--srtp` end to end: ffmpeg and `rtenc receive` decrypt and decode what `rtenc stream --srtp` sends, the key
/// lives only in the SDP (mode 0600), and bad or wrong keys fail the way the CLI's conventions say.
@Suite(.serialized) struct SRTPCommandTests {
    /// The `inline:` key of an SDP written by `rtenc stream --srtp`.
    static func key(inSDP path: String) throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let line = try #require(text.split(separator: "\r\n").first { $0.hasPrefix("a=crypto:1 ") }, "no a=crypto in \(text)")
        let key = try #require(line.split(separator: "inline:").last.map(String.init))
        #expect(key.count == 40)
        return key
    }

    static func mode(of path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func ffmpegDecodesOurSRTPStream() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.next()
        let sdp = dir.appendingPathComponent("stream.sdp").path
        let stats = dir.appendingPathComponent("stats.jsonl").path
        let stream = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", "--srtp", "--duration", "3", "--size", "640x360", "--start-delay", "3", "--to", "127.0.0.1:\(port)",
            "--sdp", sdp, "--stats-json", stats,
        ], deadline: 30)
        let ffmpeg = try FFmpegSDPReceiver(sdp: sdp, port: port, protocols: "file,udp,rtp,srtp")
        let key = try Self.key(inSDP: sdp)
        #expect(try Self.mode(of: sdp) == 0o600)
        #expect(try String(contentsOfFile: sdp, encoding: .utf8).contains("m=video \(port) RTP/SAVP 96"))
        let sent = stream.finish(within: 20)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let received = ffmpeg.finish()
        // 90 frames sent; ffmpeg decrypts and decodes ≥ 95 % of them, each a whole 640x360 4:2:0 picture.
        #expect(received.frames.count >= 86, "decoded \(received.frames.count) of 90: \(received.log.suffix(800))")
        #expect(received.frames.allSatisfy { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .dropFirst(4).first == "\(640 * 360 * 3 / 2)" })
        for symptom in ["error while decoding", "concealing", "non-existing PPS", "no frame!"] {
            #expect(!received.log.contains(symptom), "\(symptom): \(received.log.suffix(800))")
        }
        let statsText = try String(contentsOfFile: stats, encoding: .utf8)
        #expect(!statsText.isEmpty)
        for (name, text) in [("stdout", sent.stdoutText), ("stderr", sent.stderrText), ("stats-json", statsText)] {
            #expect(!text.contains(key) && !text.contains(key.prefix(16)), "the key appears in \(name)")
        }
        #expect(sent.stdoutText.contains("-protocol_whitelist file,udp,rtp,srtp"))
    }

    /// `rtenc receive --sdp` takes the key from the SDP's a=crypto, decrypts and decodes every frame, and reports no
    /// authentication failures; with the _32 suite (4-byte tags) too.
    @Test(arguments: ["AES_CM_128_HMAC_SHA1_80", "AES_CM_128_HMAC_SHA1_32"])
    func rtencReceiveDecryptsEveryFrame(suite: String) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.next()
        let sdp = dir.appendingPathComponent("s.sdp").path
        let stream = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", "--srtp-suite", suite, "--frames", "90", "--size", "640x360", "--start-delay", "2",
            "--to", "127.0.0.1:\(port)", "--sdp", sdp, "--quiet",
        ], deadline: 30)
        try #require(waitForFile(sdp, timeout: 10))
        let key = try Self.key(inSDP: sdp)
        #expect(try String(contentsOfFile: sdp, encoding: .utf8).contains("a=crypto:1 \(suite) inline:"))
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--sdp", sdp, "--bind", "127.0.0.1", "--decode", "--timeout", "20", "--quiet",
        ], deadline: 30)
        try #require(waitUntilBound(udpPort: port, timeout: 1.5))
        let sent = stream.finish(within: 20)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let received = receiver.finish(within: 5)  // stops by itself at the (SRTCP) BYE
        #expect(!received.timedOut, "receive did not stop at BYE")
        let report = try #require(try JSONSerialization.jsonObject(with: received.stdout) as? [String: Any], "\(received.stderrText)")
        #expect(report["frames"] as? Int == 90)
        #expect(report["decoded_frames"] as? Int == 90)
        #expect(report["decode_errors"] as? Int == 0, "\(report["last_decode_error"] ?? "")")
        #expect(report["auth_failures"] as? Int == 0)
        #expect(report["bye_received"] as? Bool == true)
        for text in [sent.stdoutText, sent.stderrText, received.stdoutText, received.stderrText] {
            #expect(!text.contains(key))
        }
    }

    /// NACK retransmission under SRTP, through the impairment relay (5 % loss, 5 % reordered, 30 ms): a plain
    /// retransmission is the same SRTP packet again, which the receiver accepts because it never got the first
    /// copy; so it decodes (almost) every frame, as without SRTP, and nothing fails authentication.
    @Test func nackRetransmissionsRecoverLossUnderSRTP() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = Data((0 ..< 30).map { UInt8(truncatingIfNeeded: 200 + $0 * 7) }).base64EncodedString()
        let port = TestPorts.next(), relayPort = TestPorts.next(), localPort = TestPorts.next()
        let (receiver, relay) = try NetworkFaultTests.startReceiverAndRelay(
            port: port, relayPort: relayPort, receiveArguments: ["--srtp-key", key],
            relayArguments: ["--loss", "5", "--reorder", "5", "--delay", "30", "--seed", "11"])
        let sent = try CLIRunner.rtenc([
            "stream", "--srtp-key", key, "--frames", "150", "--size", "640x360", "--to", "127.0.0.1:\(relayPort)",
            "--local-port", "\(localPort)", "--sdp", dir.appendingPathComponent("s.sdp").path, "--quiet",
        ], timeout: 30)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let received = try NetworkFaultTests.report(receiver.finish(within: 3))
        let relayed = try NetworkFaultTests.report(relay.finish(within: 0))
        let decoded = received["decoded_frames"] as? Int ?? 0
        print("SRTPCommandTests: SRTP, 5% loss + 5% reorder + 30 ms, NACK on: decoded \(decoded)/150; receiver \(received)")
        #expect((relayed["dropped_loss"] as? Int ?? 0) >= 5, "\(relayed)")
        #expect((received["nacks_sent"] as? Int ?? 0) >= 1, "\(received)")
        #expect(decoded >= 149, "decoded \(decoded) of 150 with NACK under SRTP: \(received)")
        #expect(received["decode_errors"] as? Int == 0 && received["auth_failures"] as? Int == 0, "\(received)")
    }

    /// `rtenc send --srtp` (no re-encoding) to `rtenc receive --sdp`: every access unit arrives and decodes.
    @Test func sendWithSRTP() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("x264-320x240.h264").path
        try LavfiMedia.testsrc2(file, size: "320x240", frames: 60, arguments: ["-c:v", "libx264", "-g", "30", "-bf", "0"])
        let port = TestPorts.next()
        let sdp = dir.appendingPathComponent("send.sdp").path
        let send = try BackgroundProcess(CLIRunner.rtencPath, [
            "send", file, "--srtp", "--start-delay", "2", "--to", "127.0.0.1:\(port)", "--sdp", sdp, "--quiet",
        ], deadline: 20)
        try #require(waitForFile(sdp, timeout: 10))
        #expect(try Self.mode(of: sdp) == 0o600)
        let key = try Self.key(inSDP: sdp)
        let received = try CLIRunner.rtenc(["receive", "--sdp", sdp, "--bind", "127.0.0.1", "--decode", "--timeout", "10", "--quiet"],
                                           timeout: 15)
        let sent = send.finish(within: 5)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let report = try #require(try JSONSerialization.jsonObject(with: received.stdout) as? [String: Any], "\(received.stderrText)")
        #expect(report["frames"] as? Int == 60 && report["decoded_frames"] as? Int == 60, "\(report)")
        #expect(report["auth_failures"] as? Int == 0)
        #expect(!sent.stdoutText.contains(key) && !sent.stderrText.contains(key))
    }

    /// A receiver with another key decodes nothing: every packet fails authentication and is counted.
    @Test func wrongKeyAuthenticatesNothing() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.next()
        let wrongKey = Data((0 ..< 30).map { UInt8($0) }).base64EncodedString()
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--srtp-key", wrongKey, "--decode", "--timeout", "6", "--quiet",
        ], deadline: 30)
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let sent = try CLIRunner.rtenc([
            "stream", "--srtp", "--frames", "30", "--size", "320x240", "--to", "127.0.0.1:\(port)",
            "--sdp", dir.appendingPathComponent("s.sdp").path, "--quiet",
        ], timeout: 20)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let received = receiver.finish(within: 10)
        let report = try #require(try JSONSerialization.jsonObject(with: received.stdout) as? [String: Any], "\(received.stderrText)")
        #expect(report["frames"] as? Int == 0 && report["packets"] as? Int == 0)
        #expect((report["auth_failures"] as? Int ?? 0) >= 30, "\(report)")
        #expect(report["decoded_frames"] as? Int == 0)
        #expect(!received.stderrText.contains(wrongKey) && !received.stdoutText.contains(wrongKey))
    }

    /// A bad key is a usage error (exit 64) whose message does not repeat it.
    @Test(arguments: [
        ["stream", "--srtp-key"], ["send", "x.h264", "--srtp-key"], ["receive", "--port", "5004", "--srtp-key"],
    ])
    func badKeyIsAUsageErrorThatDoesNotEchoTheKey(command: [String]) throws {
        for key in ["c2VjcmV0LWtleS1vZi13cm9uZy1sZW5ndGg=", "not base64 but secret!", Data(count: 29).base64EncodedString()] {
            let result = try CLIRunner.rtenc(command + [key], timeout: 10)
            #expect(result.status == 64, "\(command) \(result.stderrText)")
            #expect(result.stderrText.contains("--srtp-key must be the base64 of 30 bytes"), "\(result.stderrText)")
            #expect(!result.stderrText.contains(key) && !result.stdoutText.contains(key), "\(result.stderrText)")
        }
    }

    /// `--srtp-key-file` keeps the key out of the process list: stream and receive read the same file (mode 0600),
    /// the SDP carries that key, and every frame decrypts and decodes.
    @Test func keyFileKeepsTheKeyOffTheCommandLine() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = Data((7 ..< 37).map { UInt8($0) }).base64EncodedString()
        let keyFile = dir.appendingPathComponent("srtp.key").path
        try Data((key + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
        let port = TestPorts.next()
        let sdp = dir.appendingPathComponent("s.sdp").path
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--srtp-key-file", keyFile, "--decode", "--timeout", "15",
            "--quiet",
        ], deadline: 30)
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let sent = try CLIRunner.rtenc([
            "stream", "--srtp-key-file", keyFile, "--frames", "30", "--size", "320x240", "--to", "127.0.0.1:\(port)",
            "--sdp", sdp, "--quiet",
        ], timeout: 20)
        #expect(sent.status == 0, "\(sent.stderrText)")
        #expect(try Self.key(inSDP: sdp) == key)
        #expect(sent.stdoutText.contains("-protocol_whitelist file,udp,rtp,srtp"))
        let received = receiver.finish(within: 10)
        let report = try #require(try JSONSerialization.jsonObject(with: received.stdout) as? [String: Any], "\(received.stderrText)")
        #expect(report["frames"] as? Int == 30 && report["decoded_frames"] as? Int == 30, "\(report)")
        #expect(report["auth_failures"] as? Int == 0)
        for text in [sent.stdoutText, sent.stderrText, received.stdoutText, received.stderrText] { #expect(!text.contains(key)) }
    }

    /// A key file others may read, one that holds no key, or none at all: exit 1 with one line that names the file and
    /// never its content; both --srtp-key and --srtp-key-file: a usage error.
    @Test(arguments: [
        (0o644, "c2VjcmV0LWtleS1vZi10aGlydHktYnl0ZXMhIQ==", "chmod 600"),
        (0o600, "this is not base64 but it is secret", "must hold the base64 of 30 bytes"),
        (-1, "", "cannot open --srtp-key-file"),
    ])
    func badKeyFileIsOneLineThatDoesNotEchoIt(mode: Int, content: String, message: String) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keyFile = dir.appendingPathComponent("srtp.key").path
        if mode >= 0 {
            try Data(content.utf8).write(to: URL(fileURLWithPath: keyFile))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: keyFile)
        }
        let sdp = dir.appendingPathComponent("x.sdp").path
        for command in [["stream", "--frames", "3", "--to", "127.0.0.1:5998", "--sdp", sdp], ["receive", "--port", "5998", "--timeout", "1"]] {
            let result = try CLIRunner.rtenc(command + ["--srtp-key-file", keyFile], timeout: 15)
            #expect(result.status == 1, "\(command[0]): \(result.stderrText)")
            #expect(result.stderrText.contains(message) && result.stderrText.contains(keyFile), "\(result.stderrText)")
            #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
            if !content.isEmpty { #expect(!result.stderrText.contains(content) && !result.stdoutText.contains(content)) }
        }
        let both = try CLIRunner.rtenc(["stream", "--srtp-key", Data(count: 30).base64EncodedString(), "--srtp-key-file", keyFile],
                                       timeout: 10)
        #expect(both.status == 64 && both.stderrText.contains("not both"), "\(both.stderrText)")
    }

    /// A key given on the command line is the one in the SDP; the SDP of a plain stream keeps mode 0644.
    @Test func givenKeyGoesIntoTheSDP() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = Data((100 ..< 130).map { UInt8($0) }).base64EncodedString()
        let sdp = dir.appendingPathComponent("k.sdp").path
        let plainSDP = dir.appendingPathComponent("p.sdp").path
        let port = TestPorts.next()
        let sink = try BackgroundProcess(CLIRunner.rtencPath, ["receive", "--port", "\(port)", "--bind", "127.0.0.1", "--timeout", "8", "--quiet"],
                                         deadline: 20)
        _ = waitUntilBound(udpPort: port, timeout: 10)
        let keyed = try CLIRunner.rtenc(["stream", "--srtp-key", key, "--frames", "3", "--size", "160x120", "--to", "127.0.0.1:\(port)",
                                         "--sdp", sdp, "--quiet"], timeout: 20)
        #expect(keyed.status == 0, "\(keyed.stderrText)")
        #expect(try Self.key(inSDP: sdp) == key)
        #expect(try Self.mode(of: sdp) == 0o600)
        #expect(!keyed.stdoutText.contains(key) && !keyed.stderrText.contains(key))
        let plain = try CLIRunner.rtenc(["stream", "--frames", "3", "--size", "160x120", "--to", "127.0.0.1:\(port)", "--sdp", plainSDP,
                                         "--quiet"], timeout: 20)
        #expect(plain.status == 0, "\(plain.stderrText)")
        #expect(try Self.mode(of: plainSDP) & 0o077 != 0 || umaskIsStrict())
        #expect(!(try String(contentsOfFile: plainSDP, encoding: .utf8)).contains("crypto"))
        _ = sink.finish(within: 0.1)
    }
}

/// True when this process's umask already removes every group/other bit (then a 0644 file shows as 0600 anyway).
private func umaskIsStrict() -> Bool {
    let current = umask(0o022)
    umask(current)
    return current & 0o044 == 0o044
}
