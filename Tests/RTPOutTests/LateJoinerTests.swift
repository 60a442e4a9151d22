import Foundation
import Synchronization
import Testing
@testable import RTP
@testable import RTPOut

/// GStreamer joins 2 s into a stream whose only IDR was its first frame, asks for a keyframe with PLI (rtpbin,
/// request-keyframe=true, RTCP from an ephemeral port to our RTCP port), and must decode within a second.
///
/// No encoder lives in RTPOut, so the test plays one: it has the same content encoded twice, once with a single
/// IDR and once all-intra, and when `onKeyframeRequest` fires it switches to the all-intra frames (as an encoder
/// forcing an IDR would). The real forced-IDR path belongs to the EncoderSession integration.
/// Part of `PeerInteropTests`, so it never runs beside the other real-time peer tests.
extension PeerInteropTests {
    @Test func pictureLossFromGStreamerReachesTheEncoderCallback() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeUnlessKept(directory) }
        let frames = 120  // 4 s
        let size = "640x360"
        let longGOP = try TestAnnexB.accessUnits(try Fixtures.x264(size: size, frames: frames, in: directory))
        let allIntraDirectory = directory.appendingPathComponent("intra")
        try FileManager.default.createDirectory(at: allIntraDirectory, withIntermediateDirectories: true)
        let allIntra = try TestAnnexB.accessUnits(try Fixtures.x264(size: size, frames: frames, gop: 1, in: allIntraDirectory))
        #expect(longGOP.count == frames && allIntra.count == frames)

        let port = try Ports.freePair()
        let keyframeRequested = Mutex<Date?>(nil)
        let sender = try RTPSender(
            configuration: .init(destination: SocketAddress(host: "127.0.0.1", port: port), pacing: .paced(targetBitrate: 4_000_000)),
            onKeyframeRequest: { keyframeRequested.withLock { $0 = $0 ?? Date() } })
        let rtcpPort = sender.localRTCPAddress.port
        var gst: PeerProcess?
        var joined: Date?
        let start = Date()
        for i in 0 ..< frames {
            let due = start.addingTimeInterval(Double(i) / 30)
            if due.timeIntervalSinceNow > 0 { Thread.sleep(forTimeInterval: due.timeIntervalSinceNow) }
            if i == 60 {  // 2 s in
                gst = try PeerProcess("/usr/bin/stdbuf", [
                    "-oL", "gst-launch-1.0", "-e", "-v", "rtpbin", "name=rtpbin", "rtp-profile=avpf",
                    "udpsrc", "port=\(port)", "address=127.0.0.1", "buffer-size=4194304",
                    "caps=application/x-rtp,media=video,encoding-name=H264,clock-rate=90000,payload=96,rtcp-fb-nack-pli=(boolean)true",
                    "!", "rtpbin.recv_rtp_sink_0",
                    "rtpbin.", "!", "rtph264depay", "request-keyframe=true", "!", "avdec_h264", "!", "fakesink", "silent=false",
                    "udpsrc", "port=\(port + 1)", "address=127.0.0.1", "!", "rtpbin.recv_rtcp_sink_0",
                    "rtpbin.send_rtcp_src_0", "!", "udpsink", "host=127.0.0.1", "port=\(rtcpPort)", "sync=false", "async=false",
                ], outputIn: directory, name: "gst-late")
                joined = Date()
            }
            let forced = keyframeRequested.withLock { $0 } != nil
            try sender.send(accessUnit: forced ? allIntra[i] : longGOP[i], pts: Int64(i), timeBase: (1, 30))
        }
        sender.close()
        Thread.sleep(forTimeInterval: 0.5)
        gst?.stop()
        let output = (gst?.output ?? "") + (gst?.errors ?? "")
        let decoded = output.split(separator: "\n").filter { $0.contains("last-message = chain") && $0.contains("fakesink0") }.count
        let requestedAt = keyframeRequested.withLock { $0 }
        let stats = sender.statistics
        #expect(requestedAt != nil, "no keyframe request reached the callback; \(output.suffix(1500))")
        if let requestedAt, let joined {
            #expect(requestedAt.timeIntervalSince(joined) < 1.0, "PLI came \(requestedAt.timeIntervalSince(joined)) s after joining")
        }
        #expect(stats.keyframeRequestsReceived >= 1)
        #expect(stats.rtcpPacketsReceived >= 1)
        // 60 frames were sent after joining; decoding from within 1 s of joining leaves at least 30 of them.
        if ProcessInfo.processInfo.environment["RTPOUT_KEEP_LOGS"] != nil {
            try? output.write(toFile: "/tmp/gst-late.log", atomically: true, encoding: .utf8)
        }
        var delay = -1.0
        if let requestedAt, let joined { delay = requestedAt.timeIntervalSince(joined) }
        #expect(decoded >= 30, "decoded \(decoded) frames, PLI \(delay) s after joining; RTCP \(stats.rtcpPacketsReceived) ok, \(stats.rtcpPacketsIgnored) ignored, \(stats.rtcpPacketsMalformed) malformed")
    }
}
