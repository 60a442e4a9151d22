import Foundation
import Testing
@testable import RTP
@testable import RTPOut

/// Real peers on loopback receive our RFC 7798 packets: ffmpeg from our SDP, GStreamer's rtph265depay from caps or
/// from our SDP. The packets go out of a plain test-side UDP socket (the payloader and packetizer are what is under
/// test here; HEVCStreamTests in rtencTests runs the whole RTPSender/RTPReceiver path). Every process is
/// time-bounded and stopped by the test.
@Suite(.serialized)
struct H265PeerInteropTests {
    static let frames = 150  // 5 s at 30 fps
    /// A 1280x720 yuv420p frame, as framecrc reports its size.
    static let frameBytes = 1_382_400

    /// x265 ultrafast/zerolatency at 720p30, one IRAP (VPS/SPS/PPS in front of it only), split into access units.
    static func stream(in directory: URL) throws -> [[ArraySlice<UInt8>]] {
        let bytes = try Fixtures.x265(size: "1280x720", frames: frames, parameters: "info=0", in: directory)
        let accessUnits = try TestAnnexB.hevcAccessUnits(bytes)
        #expect(accessUnits.count == frames)
        return accessUnits
    }

    static func description(_ accessUnits: [[ArraySlice<UInt8>]], port: UInt16) -> SessionDescription {
        let first = accessUnits.first ?? []
        let set = { (type: UInt8) in first.first { ($0[$0.startIndex] >> 1) & 0x3F == type }.map(Array.init) ?? [] }
        return .hevc(connectionAddress: "127.0.0.1", port: port, videoParameterSet: set(32), sequenceParameterSet: set(33),
                     pictureParameterSet: set(34), feedback: [])
    }

    /// Packetizes each access unit at its due time (30 fps, the first at once) and sends the packets to `port`.
    static func sendInRealTime(_ accessUnits: [[ArraySlice<UInt8>]], to port: UInt16) throws {
        let socket = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let destination = try SocketAddress(host: "127.0.0.1", port: port)
        let packetizer = try RTPPacketizer(payloader: try H265Payloader(), payloadType: 96, ssrc: 0x4856_4331)
        let start = Date()
        var sendError: RTPError?
        for (i, au) in accessUnits.enumerated() {
            let wait = start.addingTimeInterval(Double(i) / 30).timeIntervalSinceNow
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            try packetizer.packetize(au, timestamp: 1000 &+ UInt32(i * 3000)) { packet, _, _ in
                do throws(RTPError) { _ = try socket.send(packet, to: destination) } catch { sendError = sendError ?? error }
            }
        }
        if let sendError { throw sendError }
    }

    /// The x265 stream, a free port pair and our SDP for it, written to `stream.sdp` in `directory`.
    static func prepare(in directory: URL) throws -> (accessUnits: [[ArraySlice<UInt8>]], port: UInt16, sdpURL: URL) {
        let accessUnits = try stream(in: directory)
        let port = try Ports.freePair()
        let sdpURL = directory.appendingPathComponent("stream.sdp")
        try description(accessUnits, port: port).text.write(to: sdpURL, atomically: true, encoding: .utf8)
        return (accessUnits, port, sdpURL)
    }

    @Test func ffmpegDecodesEveryFrameFromOurSDP() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeUnlessKept(directory) }
        let (accessUnits, port, sdpURL) = try Self.prepare(in: directory)
        let ffmpeg = try PeerProcess(Fixtures.ffmpeg, [
            "-hide_banner", "-nostdin", "-protocol_whitelist", "file,udp,rtp", "-buffer_size", "4194304",
            "-i", sdpURL.path, "-f", "framecrc", "-",
        ], outputIn: directory, name: "ffmpeg-receiver")
        #expect(Ports.waitUntilBound(port))
        try Self.sendInRealTime(accessUnits, to: port)
        Thread.sleep(forTimeInterval: 1)
        ffmpeg.stop()
        let errors = ffmpeg.errors
        let frameLines = ffmpeg.output.split(separator: "\n").filter { $0.hasPrefix("0,") }
        // ffmpeg still holds the last few frames (frame threads, the RTP demuxer's queue) when it is stopped: 145 of
        // 150 measured here, the H.264 test sees the same tail.
        #expect(Double(frameLines.count) >= 0.95 * Double(Self.frames), "\(errors.suffix(2000))")
        #expect(frameLines.allSatisfy { $0.contains("\(Self.frameBytes)") })
        // Bit-exact: each received frame's CRC is the one a local decode of the same file gives, in order.
        let file = directory.appendingPathComponent("x265-1280x720-\(Self.frames).h265").path
        let local = try runTool(Fixtures.ffmpeg, ["-hide_banner", "-loglevel", "error", "-i", file, "-f", "framecrc", "-"])
        let crc = { (line: Substring) in line.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        let localCRCs = local.output.split(separator: "\n").filter { $0.hasPrefix("0,") }.compactMap(crc)
        #expect(localCRCs.count == Self.frames)
        #expect(frameLines.compactMap(crc) == Array(localCRCs.prefix(frameLines.count)))
        #expect(!errors.contains("error while decoding") && !errors.contains("PPS id out of range"), "\(errors.suffix(2000))")
        #expect(errors.contains("hevc"))  // the stream ffmpeg opened is HEVC
    }

    /// GStreamer started first, with hand-written caps on udpsrc or reading our SDP (sdpsrc → sdpdemux, which also
    /// checks that GStreamer accepts the SDP we write).
    @Test(arguments: [false, true])
    func gstreamerDecodesEveryFrame(fromOurSDP: Bool) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeUnlessKept(directory) }
        let (accessUnits, port, sdpURL) = try Self.prepare(in: directory)
        let source = fromOurSDP
            ? ["sdpsrc", "location=file://\(sdpURL.path)"]
            : ["udpsrc", "port=\(port)", "address=127.0.0.1", "buffer-size=4194304",
               "caps=application/x-rtp,media=video,encoding-name=H265,clock-rate=90000,payload=96"]
        let gst = try PeerProcess("/usr/bin/stdbuf", ["-oL", "gst-launch-1.0", "-e", "-v"] + source + [
            "!", "rtph265depay", "!", "h265parse", "!", "avdec_h265", "!", "fakesink", "silent=false",
        ], outputIn: directory, name: "gst-receiver")
        #expect(Ports.waitUntilBound(port))
        try Self.sendInRealTime(accessUnits, to: port)
        Thread.sleep(forTimeInterval: 1)
        gst.stop()
        let output = gst.output + gst.errors
        let decoded = output.split(separator: "\n").filter { $0.contains("last-message = chain") && $0.contains("fakesink0") }
        #expect(decoded.count == Self.frames, "\(output.suffix(1500))")
        #expect(output.contains("width=(int)1280, height=(int)720"))
        #expect(!output.contains("ERROR"), "\(output.suffix(1500))")
    }
}
