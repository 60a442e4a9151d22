import Foundation
import TestSupport
import Testing

/// `rtenc stream` against real receivers on loopback: ffmpeg, GStreamer, `rtenc receive`, and a GStreamer that joins
/// late and has to ask for a keyframe. Serialized: each runs a 720p30 encoder in real time, and two at once on two
/// cores would test the machine, not rtenc.
@Suite(.serialized) struct StreamCommandTests {
    static let frameSize720p = 1280 * 720 * 3 / 2

    /// `rtenc stream` for 5 s (after a 3 s start delay) with `arguments`, ffmpeg decoding it from our SDP: what
    /// ffmpeg decoded, and the SDP's text.
    static func streamToFFmpeg(_ arguments: [String] = []) throws -> (received: FFmpegSDPReceiver.Result, sdp: String) {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.next()
        let sdp = dir.appendingPathComponent("stream.sdp").path
        let stream = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", "--duration", "5", "--start-delay", "3", "--to", "127.0.0.1:\(port)", "--sdp", sdp, "--quiet",
        ] + arguments, deadline: 30)
        let ffmpeg = try FFmpegSDPReceiver(sdp: sdp, port: port)
        let sent = stream.finish(within: 20)
        #expect(sent.status == 0, "\(sent.stderrText)")
        return (ffmpeg.finish(), try String(contentsOfFile: sdp, encoding: .utf8))
    }

    @Test func ffmpegDecodesTheStreamFromOurSDP() throws {
        let received = try Self.streamToFFmpeg().received
        // 150 frames sent; ffmpeg must decode ≥ 95 % of them, every one a whole 1280x720 4:2:0 picture.
        #expect(received.frames.count >= 143, "decoded \(received.frames.count) of 150: \(received.log.suffix(800))")
        #expect(received.frames.allSatisfy { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .dropFirst(4).first == "\(Self.frameSize720p)" })
        #expect(received.log.contains("1280x720"))
        for symptom in ["error while decoding", "concealing", "non-existing PPS", "no frame!"] {
            #expect(!received.log.contains(symptom), "\(symptom): \(received.log.suffix(800))")
        }
    }

    @Test func gstreamerStartedFirstDecodesEveryFrame() throws {
        let port = TestPorts.next()
        let gst = try GStreamerH264Receiver(port: port)
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sent = try CLIRunner.rtenc([
            "stream", "--frames", "90", "--to", "127.0.0.1:\(port)", "--sdp", dir.appendingPathComponent("s.sdp").path,
            "--quiet",
        ], timeout: 20)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let received = gst.finish()
        #expect(received.decoded == 90, "\(received.log.suffix(1000))")
        #expect(received.log.contains("width=(int)1280, height=(int)720"))
    }

    @Test func rtencReceiveDecodesEveryFrame() throws {
        let port = TestPorts.next()
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--decode", "--timeout", "20", "--quiet",
        ], deadline: 30)
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sent = try CLIRunner.rtenc([
            "stream", "--frames", "90", "--size", "640x360", "--to", "127.0.0.1:\(port)",
            "--sdp", dir.appendingPathComponent("s.sdp").path, "--quiet",
        ], timeout: 20)
        #expect(sent.status == 0, "\(sent.stderrText)")
        // The receiver stops by itself on the sender's RTCP BYE.
        let received = receiver.finish(within: 5)
        #expect(!received.timedOut, "receive did not stop at BYE")
        let report = try #require(try JSONSerialization.jsonObject(with: received.stdout) as? [String: Any],
                                  "\(received.stderrText)")
        #expect(report["frames"] as? Int == 90)
        #expect(report["decoded_frames"] as? Int == 90)
        #expect(report["decode_errors"] as? Int == 0, "\(report["last_decode_error"] ?? "")")
        #expect(report["width"] as? Int == 640 && report["height"] as? Int == 360)
        #expect(report["bye_received"] as? Bool == true)
        #expect(report["packets_lost"] as? Int == 0)
    }

    /// The real test of forced IDR: the GOP is 7200 frames, so a receiver that joins 2 s in sees no IDR unless it
    /// asks. GStreamer (rtpbin) sends PLI to our RTCP port from an ephemeral port; we must answer with an IDR (HEVC:
    /// an IRAP with VPS/SPS/PPS) and it must decode from within 1 s of joining. H.264 asks through rtph264depay's
    /// request-keyframe; GStreamer 1.22's rtph265depay has none, so for HEVC the decoder asks
    /// (avdec_h265 automatic-request-sync-points). HEVC at 640×360, where x265 keeps up on two shared cores.
    @Test(arguments: [("H264", [String]()), ("H265", ["--codec", "hevc", "--size", "640x360"])])
    func lateJoinerGetsAKeyframeAfterItsPLI(encodingName: String, arguments: [String]) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.next()
        let localPort = TestPorts.next()
        let statsPath = dir.appendingPathComponent("stats.jsonl").path
        let (depay, decoder) = encodingName == "H265"
            ? (["rtph265depay"], ["avdec_h265", "automatic-request-sync-points=true"])
            : (["rtph264depay", "request-keyframe=true"], ["avdec_h264"])
        let stream = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", "--duration", "5", "--to", "127.0.0.1:\(port)", "--local-port", "\(localPort)",
            "--sdp", dir.appendingPathComponent("s.sdp").path, "--stats-json", statsPath, "--quiet",
            "--join-keyframes", "off",  // the IDR must come from the PLI, not from the periodic ones
        ] + arguments, deadline: 30)
        usleep(2_000_000)
        let gst = try BackgroundProcess("/usr/bin/stdbuf", [
            "-oL", "gst-launch-1.0", "-e", "-v", "rtpbin", "name=rtpbin", "rtp-profile=avpf",
            "udpsrc", "port=\(port)", "address=127.0.0.1",
            "caps=application/x-rtp,media=video,encoding-name=\(encodingName),clock-rate=90000,payload=96,rtcp-fb-nack-pli=(boolean)true",
            "!", "rtpbin.recv_rtp_sink_0", "rtpbin.", "!",
        ] + depay + ["!"] + decoder + ["!", "fakesink", "silent=false",
            "udpsrc", "port=\(port + 1)", "address=127.0.0.1", "!", "rtpbin.recv_rtcp_sink_0",
            "rtpbin.send_rtcp_src_0", "!", "udpsink", "host=127.0.0.1", "port=\(localPort + 1)", "sync=false",
            "async=false",
        ], deadline: 30)
        let sent = stream.finish(within: 15)
        #expect(sent.status == 0, "\(sent.stderrText)")
        usleep(300_000)
        let received = gst.finish(within: 0.3, signal: SIGINT)
        let output = received.stdoutText + received.stderrText
        let decoded = output.split(separator: "\n").filter { $0.contains("last-message = chain") && $0.contains("fakesink0") }
        // Joined with ~3 s (90 frames) left; decoding from within 1 s of joining leaves at least 60 frames.
        #expect(decoded.count >= 60, "decoded \(decoded.count): \(output.suffix(1000))")
        let lines = try String(contentsOfFile: statsPath, encoding: .utf8).split(separator: "\n")
        let last = try #require(lines.last.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect((last["plis"] as? Int ?? 0) >= 1, "no PLI reached the sender")
        #expect((last["keyframes"] as? Int ?? 0) >= 2, "no IDR answered the PLI")
    }
}
