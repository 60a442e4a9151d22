import Bitstream
import Foundation
import TestSupport
import Testing

/// Helpers for the H.264 syntax tests, kept in one namespace so they cannot collide with other test files of this
/// target: NAL unit splitting for test input, committed fixtures, and streams made by ffmpeg/x264 at test time.
enum SyntaxFixtures {
    /// Splits Annex-B bytes at 3- and 4-byte start codes (a small test-only splitter; the module's own lives in
    /// AnnexB.swift). Trailing zero bytes before a start code are dropped with it.
    static func nalUnits(annexB bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var starts: [Int] = []  // index of the first byte after each start code
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                starts.append(i + 3)
                i += 3
            } else {
                i += 1
            }
        }
        var units: [ArraySlice<UInt8>] = []
        for (n, start) in starts.enumerated() {
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : bytes.count
            while end > start, bytes[end - 1] == 0 { end -= 1 }
            if end > start { units.append(bytes[start..<end]) }
        }
        return units
    }

    static func nalType(_ nal: ArraySlice<UInt8>) -> UInt8 { (nal.first ?? 0) & 0x1F }

    /// The first NAL unit of `type` in an Annex-B stream.
    static func first(type: UInt8, in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        nalUnits(annexB: bytes).first { nalType($0) == type }
    }

    static var fixturesDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixturesDirectory.appendingPathComponent(name)))
    }

    // MARK: ffmpeg / ffprobe at test time

    static let ffmpegPath = "/usr/bin/ffmpeg"
    static let ffprobePath = "/usr/bin/ffprobe"

    /// Runs a tool with a time limit and returns its standard output; a failure or an overrun throws `ToolError`.
    /// Standard error goes to `errorFile` when given (ffmpeg's trace_headers log is read from there).
    static func run(
        _ path: String, _ arguments: [String], timeout: TimeInterval = 30, errorFile: String? = nil
    ) throws -> Data {
        let result = try Tool.run(path, arguments, timeout: timeout)
        if let errorFile { try result.stderr.write(to: URL(fileURLWithPath: errorFile)) }
        guard !result.timedOut, result.status == 0 else {
            throw ToolError("\(path) \(arguments) exited \(result.status)\(result.timedOut ? " after overrunning \(timeout) s" : ""): "
                + (errorFile.map { "see \($0)" } ?? String(result.stderrText.suffix(800))))
        }
        return result.stdout
    }

    /// A stream x264 wrote into its own temporary directory; `remove()` deletes the directory.
    struct EncodedStream {
        var bytes: [UInt8]
        var path: String
        var directory: URL
        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// Encodes `frames` frames of ffmpeg's testsrc2 with libx264 into a raw .h264 file in a fresh temporary
    /// directory. `options` are the codec options. Callers `defer { stream.remove() }`.
    static func x264(
        size: String = "160x120", rate: String = "30", frames: Int = 10, pixelFormat: String = "yuv420p",
        _ options: [String]
    ) throws -> EncodedStream {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rtenc-syntax-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("x264.h264").path
        do {
            _ = try run(
                ffmpegPath,
                ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate)",
                 "-frames:v", "\(frames)", "-pix_fmt", pixelFormat, "-c:v", "libx264"] + options + ["-f", "h264", path])
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            return EncodedStream(bytes: bytes, path: path, directory: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// ffprobe's first video stream as a JSON object.
    static func probeStream(_ path: String) throws -> [String: Any] {
        let data = try run(
            ffprobePath, ["-v", "error", "-select_streams", "v:0", "-show_streams", "-of", "json", path])
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        guard let stream = (json?["streams"] as? [[String: Any]])?.first else {
            throw ToolError("ffprobe found no stream in \(path)")
        }
        return stream
    }

    /// ffprobe's frames: key_frame flag and pict_type of each, in decode order of a stream without B-frames.
    static func probeFrames(_ path: String) throws -> [(keyFrame: Bool, pictType: String)] {
        let data = try run(
            ffprobePath,
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame,pict_type", "-of", "json",
             path])
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let frames = json?["frames"] as? [[String: Any]] ?? []
        return frames.map { (($0["key_frame"] as? Int) == 1, $0["pict_type"] as? String ?? "?") }
    }

    /// Parses the first SPS of a stream.
    static func sps(in bytes: [UInt8]) throws -> H264.SequenceParameterSet {
        guard let nal = first(type: 7, in: bytes) else { throw ToolError("no SPS") }
        return try H264.SequenceParameterSet(nalUnit: nal)
    }
}

extension SyntaxFixtures {
    /// The slice headers as ffmpeg's `trace_headers` bitstream filter prints them: one dictionary per slice, from
    /// syntax-element name to value (array elements such as `luma_weight_l0_flag[0]` left out). An independent
    /// reading of the same bits to compare with.
    static func tracedSliceHeaders(_ path: String) throws -> [[String: Int]] {
        try tracedSections(path, titled: "Slice Header")
    }

    /// Every section of `trace_headers` output whose title starts with `title` ("Slice Header", "Sequence
    /// Parameter Set", "Picture Parameter Set"), as above.
    static func tracedSections(_ path: String, titled title: String) throws -> [[String: Int]] {
        let directory = (path as NSString).deletingLastPathComponent
        let tracePath = directory + "/trace.txt"
        // trace_headers logs at info level to stderr.
        _ = try run(
            ffmpegPath, ["-nostdin", "-hide_banner", "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"],
            errorFile: tracePath)
        let text = try String(contentsOfFile: tracePath, encoding: .utf8)
        var sections: [[String: Int]] = []
        var current: [String: Int]?
        for rawLine in text.split(separator: "\n") {
            guard let close = rawLine.range(of: "] ") else { continue }
            let line = rawLine[close.upperBound...]
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.first.map({ Int($0) == nil }) ?? true {
                // A section title such as "Slice Header" or "Picture Parameter Set".
                if let finished = current { sections.append(finished) }
                current = line.hasPrefix(title) ? [:] : nil
                continue
            }
            guard current != nil, fields.count >= 5, fields[fields.count - 2] == "=",
                let value = Int(fields[fields.count - 1])
            else { continue }
            let name = String(fields[1])
            if !name.contains("[") { current?[name] = value }
        }
        if let finished = current { sections.append(finished) }
        return sections
    }
}
