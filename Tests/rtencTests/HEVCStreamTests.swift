import Foundation
import TestSupport
import Testing

/// HEVC (RFC 7798) end to end on loopback: `rtenc stream --codec hevc` to ffmpeg reading our SDP, to `rtenc receive`
/// (from the SDP, through a lossy relay with NACK, joining late with PLI), `rtenc send` of an x265 file to
/// GStreamer, and `rtenc packetize` of it. Serialized: each runs an encoder or a decoder in real time. 640×360, so
/// x265 keeps up in real time on two shared cores (the H.264 tests' 720p would test the machine).
@Suite(.serialized) struct HEVCStreamTests {
    static let frameSize360p = 640 * 360 * 3 / 2
    /// An HEVC Annex-B stream as the files we write begin: a start code and a VPS (type 32: 0x40 0x01).
    static let startsWithVPS: [UInt8] = [0, 0, 0, 1, 0x40, 0x01]

    static func report(_ result: ProcessResult) throws -> [String: Any] {
        try NetworkFaultTests.report(result)
    }

    @Test func ffmpegDecodesTheStreamFromOurSDP() throws {
        let (received, text) = try StreamCommandTests.streamToFFmpeg(["--codec", "hevc", "--size", "640x360"])
        #expect(text.contains("a=rtpmap:96 H265/90000") && text.contains("sprop-vps=") && text.contains("profile-id=1"), "\(text)")
        // 150 frames sent; ffmpeg must decode ≥ 95 % of them, every one a whole 640x360 4:2:0 picture.
        #expect(received.frames.count >= 143, "decoded \(received.frames.count) of 150: \(received.log.suffix(800))")
        #expect(received.frames.allSatisfy { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .dropFirst(4).first == "\(Self.frameSize360p)" })
        #expect(received.log.contains("hevc") && received.log.contains("640x360"), "\(received.log.suffix(800))")
        for symptom in ["error while decoding", "concealing", "PPS id out of range", "Could not find ref", "no frame!"] {
            #expect(!received.log.contains(symptom), "\(symptom): \(received.log.suffix(800))")
        }
    }

    /// `rtenc receive --sdp` reads the H265 offer (port, codec, sprop-vps/sps/pps) and decodes every frame; the
    /// file it writes begins with the VPS.
    @Test func rtencReceiveFromTheSDPDecodesEveryFrame() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.next()
        let sdp = dir.appendingPathComponent("s.sdp").path
        let output = dir.appendingPathComponent("out.h265").path
        let stream = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", "--codec", "hevc", "--frames", "150", "--size", "640x360", "--start-delay", "3",
            "--to", "127.0.0.1:\(port)", "--sdp", sdp,
        ], deadline: 40)
        try #require(waitForFile(sdp, timeout: 15), "no SDP")
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--sdp", sdp, "--bind", "127.0.0.1", "--decode", "-o", output, "--timeout", "25", "--quiet",
        ], deadline: 40)
        try #require(waitUntilBound(udpPort: port, timeout: 2.5), "receive did not bind \(port) before the start delay ran out")
        let sent = stream.finish(within: 20)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let received = receiver.finish(within: 5)
        #expect(!received.timedOut, "receive did not stop at BYE")
        let report = try Self.report(received)
        // Every frame the sender sent: 150, less any it skipped for falling behind real time on a busy machine
        // (its last line says how many it sent).
        let framesSent = try #require(NetworkFaultTests.framesSent(sent.stderrText), "\(sent.stderrText.suffix(400))")
        #expect(framesSent >= 120, "\(sent.stderrText.suffix(400))")
        #expect(report["frames"] as? Int == framesSent)
        #expect(report["decoded_frames"] as? Int == framesSent, "\(report)")
        #expect(report["decode_errors"] as? Int == 0, "\(report)")
        #expect((report["keyframes"] as? Int ?? 0) >= 1)
        #expect(report["width"] as? Int == 640 && report["height"] as? Int == 360)
        #expect(report["packets_lost"] as? Int == 0)
        let written = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(Array(written.prefix(6)) == Self.startsWithVPS)
    }

    /// 5 % random loss through the relay: NACK brings (almost) every packet back.
    @Test func lossIsRecoveredWithNACK() throws {
        let (received, relayed, decoded, framesSent) = try NetworkFaultTests.streamThroughRelayCountingSent(
            relayArguments: ["--loss", "5", "--seed", "7"], receiveArguments: ["--codec", "hevc"],
            streamArguments: ["--codec", "hevc"])
        print("HEVCStreamTests: 5% loss, NACK on: decoded \(decoded)/150; receiver \(received); relay \(relayed)")
        #expect((relayed["dropped_loss"] as? Int ?? 0) >= 5, "\(relayed)")
        #expect((received["nacks_sent"] as? Int ?? 0) >= 1, "\(received)")
        #expect(received["decode_errors"] as? Int == 0, "\(received)")
        #expect(framesSent >= 120, "the sender skipped \(150 - framesSent) frames")
        #expect(decoded >= framesSent - 2, "decoded \(decoded) of the \(framesSent) sent with NACK: \(received)")
    }

    /// A receiver joining 1.5 s in (GOP 7200, no periodic keyframes) asks with PLI and gets an IRAP with its
    /// VPS/SPS/PPS, and decodes from there. (The trailing pictures before it are written and handed to the decoder
    /// as they came, as for H.264: the decoder refuses the first and skips the rest, so errors are not counted here.)
    @Test func lateJoinerGetsAnIRAPWithItsParameterSetsAfterPLI() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.next()
        let output = dir.appendingPathComponent("late.h265").path
        let stream = try BackgroundProcess(CLIRunner.rtencPath, [
            "stream", "--codec", "hevc", "--duration", "4", "--size", "320x240", "--to", "127.0.0.1:\(port)",
            "--sdp", dir.appendingPathComponent("s.sdp").path, "--quiet", "--join-keyframes", "off",
        ], deadline: 30)
        usleep(1_500_000)
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--codec", "hevc", "--port", "\(port)", "--bind", "127.0.0.1", "--decode", "-o", output,
            "--timeout", "10", "--quiet",
        ], deadline: 30)
        let sent = stream.finish(within: 10)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let report = try Self.report(receiver.finish(within: 5))
        #expect((report["plis_sent"] as? Int ?? 0) >= 1, "\(report)")
        #expect((report["keyframes"] as? Int ?? 0) >= 1, "no IRAP answered the PLI: \(report)")
        // Joined with ~2.5 s (75 frames) left; decoding from within 1 s leaves at least 45 frames.
        #expect((report["decoded_frames"] as? Int ?? 0) >= 45, "\(report)")
        // The IRAP came with its VPS, SPS and PPS (start code, then the headers 0x40 0x01, 0x42 0x01, 0x44 0x01).
        let written = try Data(contentsOf: URL(fileURLWithPath: output))
        let vps = try #require(written.range(of: Data(Self.startsWithVPS)), "no VPS in what was received")
        let next = written[vps.upperBound...]
        #expect(next.range(of: Data([0, 0, 0, 1, 0x42, 0x01])) != nil && next.range(of: Data([0, 0, 0, 1, 0x44, 0x01])) != nil)
    }

    static func makeX265File(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("x265.h265").path
        try LavfiMedia.testsrc2(path, size: "320x240", frames: 90,
                               arguments: ["-c:v", "libx265", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "30",
                                           "-x265-params", "log-level=error", "-f", "hevc"])
        return path
    }

    /// An x265 file (codec read from its first NAL unit) sent in real time: GStreamer's rtph265depay and avdec_h265
    /// decode every frame.
    @Test func gstreamerDecodesAnX265FileWeSend() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.makeX265File(in: dir)
        let port = TestPorts.next()
        let gst = try GStreamerH264Receiver(port: port, encodingName: "H265")
        let sent = try CLIRunner.rtenc([
            "send", file, "--to", "127.0.0.1:\(port)", "--sdp", dir.appendingPathComponent("s.sdp").path, "--quiet",
        ], timeout: 20)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let received = gst.finish()
        #expect(received.decoded == 90, "\(received.log.suffix(1000))")
        #expect(received.log.contains("width=(int)320, height=(int)240"))
        let sdp = try String(contentsOf: dir.appendingPathComponent("s.sdp"), encoding: .utf8)
        #expect(sdp.contains("H265/90000") && sdp.contains("sprop-sps="))
    }

    /// `rtenc packetize` of the same file names RFC 7798's structures: the first packet an AP holding VPS, SPS and
    /// PPS, IRAP slices in FUs (at --mtu 500), one marker per access unit on its last packet.
    @Test func packetizeShowsAggregationAndFragmentationUnits() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.makeX265File(in: dir)
        let result = try CLIRunner.rtenc(["packetize", file, "--mtu", "500"])
        try #require(result.status == 0, "\(result.stderrText)")
        let packets = try result.stdoutText.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(packets.first?["payload"] as? String == "AP")
        #expect(((packets.first?["nal_types"] as? [Int]) ?? []).starts(with: [32, 33, 34]), "\(packets.first ?? [:])")
        #expect(packets.contains { $0["payload"] as? String == "FU" && $0["fu_start"] as? Bool == true
            && (16 ... 21).contains(($0["nal_types"] as? [Int])?.first ?? 0) })
        #expect(packets.allSatisfy { ($0["size"] as? Int ?? .max) <= 512 })
        let units = Dictionary(grouping: packets, by: { $0["access_unit"] as? Int ?? -1 })
        #expect(units.count == 90)
        for (_, unitPackets) in units { #expect(unitPackets.last?["marker"] as? Bool == true) }
        // --mode 0 is H.264's: refused in one line.
        let refused = try CLIRunner.rtenc(["packetize", file, "--mode", "0"])
        #expect(refused.status == 1 && refused.stderrText.contains("HEVC has none"), "\(refused.stderrText)")
    }

    /// With --sdp, a --codec that contradicts the offer, and a DONL offer, are refused in one line.
    @Test(arguments: [
        (["--codec", "h264"], "a=fmtp:96 profile-id=1", ["offers H.265, not H.264"]),
        ([], "a=fmtp:96 sprop-max-don-diff=2", ["not a usable SDP", "sprop-max-don-diff=2", "DONL"]),
    ])
    func refusedOffersInOneLine(arguments: [String], fmtp: String, says: [String]) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sdp = ["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=peer", "c=IN IP4 127.0.0.1", "t=0 0", "m=video 5004 RTP/AVP 96",
                   "a=rtpmap:96 H265/90000", fmtp].joined(separator: "\r\n") + "\r\n"
        try sdp.write(to: dir.appendingPathComponent("hevc.sdp"), atomically: true, encoding: .utf8)
        let result = try CLIRunner.rtenc(["receive", "--sdp", "hevc.sdp", "--timeout", "1"] + arguments, timeout: 30,
                                         currentDirectory: dir)
        #expect(result.status == 1 && !result.terminatedBySignal, "\(result.stderrText)")
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("rtenc: receive: ") == true, "\(result.stderrText)")
        for words in says { #expect(lines.first?.contains(words) == true, "missing \"\(words)\" in \(result.stderrText)") }
    }
}
