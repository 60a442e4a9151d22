import Foundation
import TestSupport
import Testing

/// The `rtenc` binary under test, run with a deadline like every process a test starts.
enum CLIRunner {
    /// `RTENC_BIN` (set by `make test`), else the binary beside the test bundle.
    static var rtencPath: String {
        if let path = ProcessInfo.processInfo.environment["RTENC_BIN"], !path.isEmpty {
            return path
        }
        return Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("rtenc").path
    }

    static func rtenc(_ arguments: [String], timeout: TimeInterval = 60, stdin: Data? = nil,
                      currentDirectory: URL? = nil) throws -> ProcessResult {
        try Tool.run(rtencPath, arguments, timeout: timeout, stdin: stdin, currentDirectory: currentDirectory)
    }

    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60) throws -> ProcessResult {
        try Tool.run(executable, arguments, timeout: timeout)
    }

    static func temporaryDirectory() throws -> URL { try makeTemporaryDirectory() }
}

/// ffmpeg reading a stream from an SDP file and writing one framecrc line per decoded frame.
struct FFmpegSDPReceiver {
    struct Result {
        /// One line per decoded frame: "stream, dts, pts, duration, size, crc".
        var frames: [Substring]
        var log: String
    }

    private let process: BackgroundProcess

    /// Starts ffmpeg once `sdp` exists (the sender writes it before its first packet, then waits its
    /// --start-delay) and waits until ffmpeg listens on `port`: a receiver that misses the first IDR's packets
    /// decodes with errors, which would test the machine's load, not the stream. `protocols` is ffmpeg's
    /// -protocol_whitelist (SRTP streams: "file,udp,rtp,srtp").
    init(sdp: String, port: UInt16, protocols: String = "file,udp,rtp") throws {
        guard waitForFile(sdp, timeout: 10) else { throw ToolError("no SDP at \(sdp)") }
        // A 4 MB socket buffer: on a loaded 2-core machine ffmpeg's default loses bursts of an IDR's packets.
        process = try BackgroundProcess("ffmpeg", [
            "-hide_banner", "-nostdin", "-protocol_whitelist", protocols, "-buffer_size", "4194304", "-i", sdp,
            "-f", "framecrc", "-",
        ], deadline: 30)
        guard waitUntilBound(udpPort: port, timeout: 2.5) else {
            throw ToolError("ffmpeg did not listen on \(port) within 2.5 s, before the sender's start delay ran out")
        }
    }

    /// Gives ffmpeg half a second for the last packets, then stops it (SIGTERM: it flushes and exits).
    func finish() -> Result {
        usleep(500_000)
        let result = process.finish(within: 1, signal: SIGTERM)
        return Result(frames: result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") },
                      log: result.stderrText)
    }
}
