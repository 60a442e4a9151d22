import Foundation
import Testing
@testable import RTP
@testable import RTPOut

/// Real peers on loopback: ffmpeg and GStreamer receive our stream; ffmpeg sends to our receiver.
/// Every process is time-bounded and stopped by the test.
@Suite(.serialized)
struct PeerInteropTests {
    static let frames = 150  // 5 s at 30 fps

    /// The brief's 720p30 stream: x264 ultrafast/zerolatency, one IDR (GOP 7200).
    static func stream(in directory: URL) throws -> (bytes: [UInt8], accessUnits: [[ArraySlice<UInt8>]]) {
        let bytes = try Fixtures.x264(size: "1280x720", frames: frames, in: directory)
        return (bytes, try TestAnnexB.accessUnits(bytes))
    }

    static func parameterSets(_ accessUnits: [[ArraySlice<UInt8>]]) -> (sps: [UInt8], pps: [UInt8]) {
        let first = accessUnits.first ?? []
        let sps = first.first { $0.first.map { $0 & 0x1F == 7 } ?? false }.map(Array.init) ?? []
        let pps = first.first { $0.first.map { $0 & 0x1F == 8 } ?? false }.map(Array.init) ?? []
        return (sps, pps)
    }

    static func targetBitrate(_ bytes: [UInt8]) -> UInt64 { UInt64(bytes.count * 8) * 30 / UInt64(frames) }

    @Test func ffmpegDecodesOurStreamFromOurSDP() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeUnlessKept(directory) }
        let (bytes, accessUnits) = try Self.stream(in: directory)
        let (sps, pps) = Self.parameterSets(accessUnits)
        let port = try Ports.freePair()
        let sender = try RTPSender(
            configuration: .init(destination: SocketAddress(host: "127.0.0.1", port: port),
                                 pacing: .paced(targetBitrate: Self.targetBitrate(bytes))),
            sequenceParameterSet: sps, pictureParameterSet: pps)
        let sdpURL = directory.appendingPathComponent("stream.sdp")
        try sender.sessionDescription(sequenceParameterSet: sps, pictureParameterSet: pps).text
            .write(to: sdpURL, atomically: true, encoding: .utf8)
        let ffmpeg = try PeerProcess(Fixtures.ffmpeg, [
            // A 4 MB socket buffer (the kernel's rmem_max here): on a loaded 2-core machine ffmpeg is sometimes not
            // scheduled for tens of milliseconds, and the default 208 kB then overflows (seen as one concealed P frame).
            "-hide_banner", "-nostdin", "-protocol_whitelist", "file,udp,rtp", "-buffer_size", "4194304",
            "-i", sdpURL.path, "-f", "framecrc", "-",
        ], outputIn: directory, name: "ffmpeg-receiver")
        #expect(Ports.waitUntilBound(port))
        try sendInRealTime(accessUnits, through: sender)
        sender.close()
        Thread.sleep(forTimeInterval: 1)
        ffmpeg.stop()
        let output = ffmpeg.output
        let errors = ffmpeg.errors
        // framecrc lines: stream, dts, pts, duration, size, crc; a 1280x720 yuv420p frame is 1 382 400 bytes.
        let frameLines = output.split(separator: "\n").filter { $0.hasPrefix("0,") }
        let fullSize = frameLines.filter { $0.contains("1382400") }
        #expect(Double(frameLines.count) >= 0.95 * Double(Self.frames), "\(errors.suffix(2000))")
        #expect(fullSize.count == frameLines.count)
        #expect(!errors.contains("error while decoding"), "\(errors.suffix(2000))")
        #expect(!errors.contains("non-existing PPS"))
        let stats = sender.statistics
        #expect(stats.accessUnitsSent == Self.frames && stats.packetsDropped == 0)
    }

    /// GStreamer started first, either with hand-written caps on udpsrc or reading our SDP (sdpsrc → sdpdemux,
    /// which also checks that GStreamer accepts the SDP we write).
    @Test(arguments: [false, true])
    func gstreamerDecodesEveryFrame(fromOurSDP: Bool) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeUnlessKept(directory) }
        let (bytes, accessUnits) = try Self.stream(in: directory)
        let (sps, pps) = Self.parameterSets(accessUnits)
        let port = try Ports.freePair()
        let sender = try RTPSender(configuration: .init(destination: SocketAddress(host: "127.0.0.1", port: port),
                                                        pacing: .paced(targetBitrate: Self.targetBitrate(bytes))))
        let sdpURL = directory.appendingPathComponent("stream.sdp")
        try sender.sessionDescription(sequenceParameterSet: sps, pictureParameterSet: pps).text
            .write(to: sdpURL, atomically: true, encoding: .utf8)
        let source = fromOurSDP
            ? ["sdpsrc", "location=file://\(sdpURL.path)"]
            : ["udpsrc", "port=\(port)", "address=127.0.0.1", "buffer-size=4194304",
               "caps=application/x-rtp,media=video,encoding-name=H264,clock-rate=90000,payload=96"]
        let gst = try PeerProcess("/usr/bin/stdbuf", ["-oL", "gst-launch-1.0", "-e", "-v"] + source + [
            "!", "rtph264depay", "!", "avdec_h264", "!", "fakesink", "silent=false",
        ], outputIn: directory, name: "gst-receiver")
        #expect(Ports.waitUntilBound(port))
        try sendInRealTime(accessUnits, through: sender)
        sender.close()
        Thread.sleep(forTimeInterval: 1)
        gst.stop()
        let output = gst.output + gst.errors
        let decoded = output.split(separator: "\n").filter { $0.contains("last-message = chain") && $0.contains("fakesink0") }
        #expect(decoded.count == Self.frames, "\(output.suffix(1500))")
        #expect(output.contains("width=(int)1280, height=(int)720"))
    }

    @Test func ffmpegSenderToOurReceiverGivesTheFileBack() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeUnlessKept(directory) }
        let (_, accessUnits) = try Self.stream(in: directory)
        let input = directory.appendingPathComponent("x264-1280x720-\(Self.frames).h264")
        let received = Collector<ReceivedAccessUnit>()
        let port = try Ports.freePair()
        let receiver = try RTPReceiver(configuration: .init(localAddress: SocketAddress(host: "127.0.0.1", port: port))) {
            received.append($0)
        }
        let ffmpeg = try PeerProcess(Fixtures.ffmpeg, [
            "-hide_banner", "-nostdin", "-re", "-framerate", "30", "-i", input.path, "-c", "copy", "-f", "rtp",
            "rtp://127.0.0.1:\(port)",
        ], outputIn: directory, name: "ffmpeg-sender")
        let status = ffmpeg.wait(timeout: 30)
        _ = eventually(timeout: 2) { received.all.count >= accessUnits.count }
        receiver.close()
        #expect(status == 0, "\(ffmpeg.errors.suffix(1000))")
        let got = received.all
        #expect(got.count == accessUnits.count)
        #expect(receiver.statistics.packetsLost == 0)
        for (i, (sent, back)) in zip(accessUnits, got).enumerated() where back.nalUnits != sent.map({ Array($0) }) {
            Issue.record("access unit \(i) differs: \(back.nalUnits.map(\.count)) vs \(sent.map(\.count))")
            break
        }
        // ffmpeg's RTP timestamps advance 3000 per frame at 30 fps.
        if got.count > 2 { #expect(got[2].timestamp &- got[1].timestamp == 3000) }
    }
}
