import Bitstream
import Foundation
import TestSupport
import Testing

/// Annex-B file → access units with Bitstream's splitter and access-unit grouping (the real ones, so the peer tests
/// also exercise them on x264 output).
enum TestAnnexB {
    static func accessUnits(_ bytes: [UInt8]) throws -> [[ArraySlice<UInt8>]] {
        var nalUnits: [ArraySlice<UInt8>] = []
        try AnnexB.forEachNALUnit(in: bytes[...]) { nalUnits.append($0) }
        return H264.accessUnits(of: nalUnits).map(\.nalUnits)
    }
}

/// Runs a tool with a time limit; kills it if it overruns. Returns exit status and stdout+stderr.
@discardableResult
func runTool(_ path: String, _ arguments: [String], timeout: Double = 60) throws -> (status: Int32, output: String) {
    let result = try Tool.run(path, arguments, timeout: timeout)
    return (result.status, result.stdoutText + result.stderrText)
}

enum Fixtures {
    static let ffmpeg = "/usr/bin/ffmpeg"

    /// A fresh temporary directory for one test.
    static func temporaryDirectory() throws -> URL { try makeTemporaryDirectory(prefix: "rtpout") }

    /// Deletes a test's directory, unless RTPOUT_KEEP_FILES is set (to look at peer logs after a failure).
    static func removeUnlessKept(_ directory: URL) {
        if let keep = ProcessInfo.processInfo.environment["RTPOUT_KEEP_FILES"], !keep.isEmpty {
            print("kept \(directory.path)")
            return
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// x264 Annex-B made by ffmpeg at test time.
    static func x264(size: String = "320x240", frames: Int = 30, rate: Int = 30, gop: Int = 7200, extra: [String] = [],
                     in directory: URL) throws -> [UInt8] {
        let path = directory.appendingPathComponent("x264-\(size)-\(frames).h264").path
        let (status, output) = try runTool(ffmpeg, [
            "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate)",
            "-frames:v", "\(frames)", "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "\(gop)",
        ] + extra + ["-bsf:v", "h264_mp4toannexb", "-f", "h264", path], timeout: 120)
        guard status == 0 else { throw FixtureError(message: "ffmpeg failed: \(output)") }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

struct FixtureError: Error { var message: String }
