import Foundation
import TestSupport
import Testing

/// HEVC MP4 files end to end on loopback: x265 MP4s from ffmpeg (hvc1 and hev1) and from `rtenc encode`, sent by
/// `rtenc send` — the codec read from the file — to `rtenc receive --codec h265 --decode`; and `rtenc receive`
/// without `--codec` refusing an H.265 stream in one line instead of reading it as H.264.
@Suite(.serialized) struct HEVCMP4Tests {
    enum Source: String, CaseIterable, Sendable {
        /// ffmpeg's libx265 defaults (B-frames: an edit list, so MP4SampleReader's libavformat path), hvc1.
        case ffmpegHvc1
        /// zerolatency (no B-frames: the native reader), hev1.
        case ffmpegHev1
        /// rtenc's own MP4 writer.
        case rtencEncode
    }

    /// A 2 s (60 frames, 30 fps) 320x240 HEVC MP4 made by `source`.
    static func makeMP4(_ source: Source, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("\(source.rawValue).mp4").path
        switch source {
        case .ffmpegHvc1:
            try LavfiMedia.testsrc2(path, size: "320x240", frames: 60, arguments: [
                "-c:v", "libx265", "-preset", "ultrafast", "-g", "30", "-tag:v", "hvc1", "-x265-params", "log-level=error",
            ])
        case .ffmpegHev1:
            try LavfiMedia.testsrc2(path, size: "320x240", frames: 60, arguments: [
                "-c:v", "libx265", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "30", "-tag:v", "hev1",
                "-x265-params", "log-level=error",
            ])
        case .rtencEncode:
            let result = try CLIRunner.rtenc(["encode", "--codec", "h265", "--size", "320x240", "--frames", "60",
                                              "--keyint", "30", "-o", path, "--quiet"], timeout: 60)
            try #require(result.status == 0, "\(result.stderrText)")
        }
        return path
    }

    /// Every access unit arrives and decodes, and what arrived is what `rtenc annexb` makes of the same MP4: the
    /// hvcC's VPS/SPS/PPS in front of every IRAP picture.
    @Test(arguments: Source.allCases)
    func sentMP4IsReceivedAndDecoded(_ source: Source) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.makeMP4(source, in: dir)
        let port = TestPorts.next()
        let received = dir.appendingPathComponent("got.h265").path
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--port", "\(port)", "--bind", "127.0.0.1", "--codec", "h265", "--decode", "--timeout", "30",
            "-o", received, "--quiet",
        ], deadline: 40)
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let sdp = dir.appendingPathComponent("s.sdp").path
        let sent = try CLIRunner.rtenc(["send", file, "--no-pacing", "--to", "127.0.0.1:\(port)", "--sdp", sdp, "--quiet"],
                                       timeout: 30)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let result = receiver.finish(within: 10)
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
                                  "\(result.stderrText)")
        #expect(report["frames"] as? Int == 60, "\(report)")
        #expect((report["keyframes"] as? Int ?? 0) >= 2, "\(report)")
        #expect(report["decoded_frames"] as? Int == 60, "\(report)")
        #expect(report["decode_errors"] as? Int == 0, "\(report)")
        #expect(report["width"] as? Int == 320 && report["height"] as? Int == 240)
        let description = try String(contentsOfFile: sdp, encoding: .utf8)
        #expect(description.contains("H265/90000") && description.contains("sprop-vps="), "\(description)")

        let reference = dir.appendingPathComponent("ref.h265").path
        let converted = try CLIRunner.rtenc(["annexb", file, "-o", reference])
        try #require(converted.status == 0, "\(converted.stderrText)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: received)) == Data(contentsOf: URL(fileURLWithPath: reference)))
    }

    /// The codec of an MP4 is the file's: a --codec that contradicts it is refused in one line.
    @Test func codecOptionContradictingTheFileIsRefused() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.makeMP4(.ffmpegHev1, in: dir)
        let result = try CLIRunner.rtenc(["send", file, "--codec", "avc", "--to", "127.0.0.1:9", "--no-pacing", "--quiet",
                                          "--sdp", dir.appendingPathComponent("s.sdp").path])
        #expect(result.status == 1, "\(result.stderrText)")
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("rtenc: send: ") == true, "\(result.stderrText)")
        #expect(lines.first?.contains("is H.265, not H.264 as --codec says") == true, "\(result.stderrText)")
        // The same with a --codec that agrees (either spelling) is fine.
        for spelling in ["h265", "hevc"] {
            let agreed = try CLIRunner.rtenc(["send", file, "--codec", spelling, "--to", "127.0.0.1:9", "--no-pacing",
                                              "--quiet", "--bye-delay", "0", "--sdp", dir.appendingPathComponent("s.sdp").path],
                                             timeout: 30)
            #expect(agreed.status == 0, "\(spelling): \(agreed.stderrText)")
        }
    }

    /// `rtenc receive` told (or assuming) H.264 while an H.265 MP4 is sent to it: status 1, one line (returned), no
    /// report on stdout, no output file left.
    private func receiveH265As(_ receiveArguments: (_ port: UInt16, _ dir: URL) throws -> [String]) throws -> Substring {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.makeMP4(.ffmpegHev1, in: dir)
        let port = TestPorts.next()
        let output = dir.appendingPathComponent("got.h264").path
        let receiver = try BackgroundProcess(CLIRunner.rtencPath, [
            "receive", "--bind", "127.0.0.1", "--timeout", "30", "-o", output, "--quiet",
        ] + (try receiveArguments(port, dir)), deadline: 40)
        try #require(waitUntilBound(udpPort: port, timeout: 10))
        let sent = try CLIRunner.rtenc(["send", file, "--no-pacing", "--to", "127.0.0.1:\(port)", "--quiet",
                                        "--sdp", dir.appendingPathComponent("s.sdp").path], timeout: 30)
        #expect(sent.status == 0, "\(sent.stderrText)")
        let result = receiver.finish(within: 10)
        #expect(!result.timedOut && result.status == 1, "\(result.status) \(result.stderrText)")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: output))
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("rtenc: receive: ") == true, "\(result.stderrText)")
        return lines.first ?? ""
    }

    /// `rtenc receive --port N` assumes H.264 (or is told so): the H.265 packets (an AP with VPS/SPS/PPS first)
    /// make it stop and name the fix.
    @Test(arguments: [[String](), ["--codec", "avc"]])
    func receiveWithoutTheRightCodecSaysToAddIt(_ codecArguments: [String]) throws {
        let line = try receiveH265As { port, _ in ["--port", "\(port)"] + codecArguments }
        #expect(line.contains("are H.265") && line.contains("add --codec h265"), "\(line)")
    }

    /// An SDP that offers H.264 for an H.265 stream: --codec cannot overrule it, so the line asks for the sender's
    /// SDP instead.
    @Test func receiveWithAnH264SDPSaysItIsTheWrongOne() throws {
        let line = try receiveH265As { port, dir in
            let sdp = ["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=peer", "c=IN IP4 127.0.0.1", "t=0 0",
                       "m=video \(port) RTP/AVP 96", "a=rtpmap:96 H264/90000"].joined(separator: "\r\n") + "\r\n"
            let path = dir.appendingPathComponent("h264.sdp").path
            try sdp.write(toFile: path, atomically: true, encoding: .utf8)
            return ["--sdp", path]
        }
        #expect(line.contains("are H.265") && line.contains("give the SDP the sender wrote"), "\(line)")
        #expect(!line.contains("--codec"), "\(line)")
    }

    /// `receive -o` writes Annex-B: an .mp4 name, or the other codec's Annex-B name, is refused before anything is
    /// received (one line, status 1, no file).
    @Test(arguments: [
        (["--codec", "h265"], "x.mp4", "writes the access units as Annex-B only; use .h265"),
        (["--codec", "h265"], "x.h264", "that name says h264; use .h265"),
        ([], "x.hevc", "that name says hevc; use .h264"),
    ] as [([String], String, String)])
    func receiveRefusesAnOutputNameItCannotHonour(_ codecArguments: [String], name: String, says: String) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent(name).path
        let result = try CLIRunner.rtenc(["receive", "--port", "\(TestPorts.next())", "--bind", "127.0.0.1", "--timeout", "5",
                                          "-o", output] + codecArguments, timeout: 30)
        #expect(result.status == 1 && !result.terminatedBySignal, "\(result.stderrText)")
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("rtenc: receive: ") == true, "\(result.stderrText)")
        #expect(lines.first?.contains(says) == true, "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
