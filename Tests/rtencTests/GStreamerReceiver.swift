import Foundation
import TestSupport
import Testing

/// GStreamer decoding H.264 RTP on a loopback port (udpsrc → rtph264depay → avdec_h264 → fakesink; for
/// `encodingName` "H265": rtph265depay → avdec_h265), counting the pictures that reach the sink and the caps it saw.
struct GStreamerH264Receiver {
    struct Result {
        /// Pictures that reached the sink.
        var decoded: Int
        /// Everything gst-launch printed.
        var log: String
    }

    private let process: BackgroundProcess

    /// Starts gst-launch-1.0 and waits until it has bound `port`.
    init(port: UInt16, encodingName: String = "H264") throws {
        let codec = encodingName.lowercased()  // h264, h265
        process = try BackgroundProcess("/usr/bin/stdbuf", [
            "-oL", "gst-launch-1.0", "-e", "-v", "udpsrc", "port=\(port)", "address=127.0.0.1",
            "caps=application/x-rtp,media=video,encoding-name=\(encodingName),clock-rate=90000,payload=96",
            "!", "rtp\(codec)depay", "!", "avdec_\(codec)", "!", "fakesink", "silent=false",
        ], deadline: 30)
        guard waitUntilBound(udpPort: port, timeout: 10) else { throw ToolError("GStreamer did not bind \(port)") }
    }

    /// Gives the last packets half a second, then stops GStreamer (SIGINT: it drains and exits).
    func finish() -> Result {
        usleep(500_000)
        let result = process.finish(within: 0.5, signal: SIGINT)
        let log = result.stdoutText + result.stderrText
        let decoded = log.split(separator: "\n").filter { $0.contains("last-message = chain") && $0.contains("fakesink0") }
        return Result(decoded: decoded.count, log: log)
    }
}
