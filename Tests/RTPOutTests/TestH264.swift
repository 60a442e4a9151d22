import Foundation
import Testing

/// Test-only Annex-B tools (the Bitstream module has the real splitter; these keep RTPOutTests independent of it).
enum TestAnnexB {
    /// NAL units between 3- or 4-byte start codes, as slices of `bytes`.
    static func split(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var starts: [(codeStart: Int, nalStart: Int)] = []
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                let codeStart = i > 0 && bytes[i - 1] == 0 ? i - 1 : i
                starts.append((codeStart, i + 3))
                i += 3
            } else {
                i += 1
            }
        }
        var units: [ArraySlice<UInt8>] = []
        for (k, start) in starts.enumerated() {
            var end = k + 1 < starts.count ? starts[k + 1].codeStart : bytes.count
            while end > start.nalStart, bytes[end - 1] == 0 { end -= 1 }  // trailing_zero_8bits
            if end > start.nalStart { units.append(bytes[start.nalStart ..< end]) }
        }
        return units
    }

    /// Groups NAL units into access units (H.264 §7.4.1.2.3, simplified): a new access unit starts at an AUD, SPS,
    /// PPS or SEI that follows a slice, or at a slice whose first_mb_in_slice is 0 (its ue(v) is the single bit 1).
    static func accessUnits(_ units: [ArraySlice<UInt8>]) -> [[ArraySlice<UInt8>]] {
        var result: [[ArraySlice<UInt8>]] = []
        var current: [ArraySlice<UInt8>] = []
        var sawSlice = false
        for unit in units {
            let type = unit[unit.startIndex] & 0x1F
            let isSlice = (1 ... 5).contains(type)
            let startsNew: Bool
            if isSlice {
                let firstMBIsZero = unit.count > 1 && unit[unit.startIndex + 1] & 0x80 != 0
                startsNew = sawSlice && firstMBIsZero
            } else {
                startsNew = sawSlice && [6, 7, 8, 9].contains(type)
            }
            if startsNew {
                result.append(current)
                current = []
                sawSlice = false
            }
            current.append(unit)
            if isSlice { sawSlice = true }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }
}

/// Runs a tool with a time limit; kills it if it overruns. Returns exit status and stdout+stderr.
@discardableResult
func runTool(_ path: String, _ arguments: [String], timeout: Double = 60) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    var data = Data()
    let reader = pipe.fileHandleForReading
    while process.isRunning {
        if Date() > deadline { process.terminate(); Thread.sleep(forTimeInterval: 0.2); kill(process.processIdentifier, SIGKILL) }
        Thread.sleep(forTimeInterval: 0.02)
    }
    data.append(reader.readDataToEndOfFile())
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

enum Fixtures {
    static let ffmpeg = "/usr/bin/ffmpeg"

    /// A fresh temporary directory for one test.
    static func temporaryDirectory() throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("rtpout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
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
