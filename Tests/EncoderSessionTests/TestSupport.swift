import Bitstream
import CLibAV
import Foundation
import TestSupport
import Synchronization

@testable import EncoderSession

/// Collects every output a session delivers through its handler.
final class OutputCollector: Sendable {
    private let storage = Mutex<[EncoderOutput]>([])

    var handler: CompressionSession.OutputHandler {
        { [self] output in storage.withLock { $0.append(output) } }
    }

    var outputs: [EncoderOutput] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
    var frames: [EncodedFrame] { outputs.compactMap(\.frame) }
}

enum TestMedia {
    /// Quiets x264's info lines (frame type summaries at close) so test logs stay readable.
    static let quiet: Void = { rtenc_av_log_set_level(AV_LOG_ERROR) }()

    /// A moving diagonal gradient with a moving box: cheap to make in Swift, compressible like real video.
    static func pattern(format: PixelFormat = .nv12, width: Int, height: Int, index: Int) -> PixelBuffer {
        var buffer = PixelBuffer(format: format, width: width, height: height)
        let shift = index * 3
        buffer.planes[0].bytes.withUnsafeMutableBufferPointer { luma in
            for y in 0..<height {
                let row = y * width
                for x in 0..<width { luma[row + x] = UInt8(truncatingIfNeeded: (x + y + shift) >> 1) }
            }
            let box = 32
            let bx = (index * 5) % max(1, width - box)
            let by = (index * 3) % max(1, height - box)
            for y in by..<(by + box) where y < height {
                for x in bx..<(bx + box) where x < width { luma[y * width + x] = 235 }
            }
        }
        return buffer
    }

    /// Uniform random bytes in every plane: content no encoder can compress (x264 pins QP at 51).
    static func noise(
        format: PixelFormat = .nv12, width: Int, height: Int, generator: inout SystemRandomNumberGenerator
    ) -> PixelBuffer {
        var buffer = PixelBuffer(format: format, width: width, height: height)
        for index in buffer.planes.indices {
            buffer.planes[index].bytes.withUnsafeMutableBytes { raw in
                let words = raw.count / 8
                let wordPointer = raw.baseAddress!.assumingMemoryBound(to: UInt64.self)
                for word in 0..<words { wordPointer[word] = generator.next() }
                for tail in (words * 8)..<raw.count { raw[tail] = UInt8.random(in: 0...255, using: &generator) }
            }
        }
        return buffer
    }

    static func time(_ index: Int, fps: Int = 30) -> MediaTime {
        MediaTime(value: Int64(index) * 3000 * 30 / Int64(fps), timescale: 90_000)
    }
}

/// Raw frames from `ffmpeg -f lavfi -i <graph> -f rawvideo -pix_fmt nv12 -`, read one at a time.
final class FFmpegFrameSource {
    private let process = Process()
    private let pipe = Pipe()
    let width: Int
    let height: Int

    init(graph: String, width: Int, height: Int, frames: Int) throws {
        self.width = width
        self.height = height
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = [
            "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", graph, "-frames:v", "\(frames)",
            "-f", "rawvideo", "-pix_fmt", "nv12", "-",
        ]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Bounded like every process a test starts: a test that forgets this source cannot leave ffmpeg running.
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { [process] in
            if process.isRunning { kill(pid, SIGKILL) }
        }
    }

    deinit {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    func next() -> PixelBuffer? {
        let lumaSize = width * height
        guard let data = try? pipe.fileHandleForReading.read(upToCount: lumaSize * 3 / 2),
            data.count == lumaSize * 3 / 2
        else { return nil }
        let bytes = [UInt8](data)
        return PixelBuffer(
            format: .nv12, width: width, height: height,
            planes: [
                .init(bytes: Array(bytes[0..<lumaSize]), bytesPerRow: width),
                .init(bytes: Array(bytes[lumaSize...]), bytesPerRow: width),
            ])
    }
}

/// Writes `annexB` to a temporary .h264 file for the duration of `body`.
private func withStreamFile<T>(_ annexB: [UInt8], _ body: (String) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("rtenc-\(UUID().uuidString).h264")
    try Data(annexB).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url.path)
}

/// Runs ffprobe on an Annex-B stream (`format` "h264" or "hevc") and returns the pict_type of every decoded frame, in order — an independent
/// check of what the session's own parser says.
func ffprobePictureTypes(_ annexB: [UInt8], format: String = "h264") throws -> [String] {
    let data = try withStreamFile(annexB) { path in
        try Tool.output("ffprobe", [
            "-v", "error", "-f", format, "-show_entries", "frame=pict_type,key_frame", "-of", "csv=p=0", path,
        ], timeout: 30)
    }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map { String($0) }
}

/// One field of `ffprobe -show_streams` for an Annex-B stream (e.g. "profile", "level", "width").
func ffprobeStreamField(_ annexB: [UInt8], _ field: String, format: String = "h264") throws -> String {
    let data = try withStreamFile(annexB) { path in
        try Tool.output("ffprobe", [
            "-v", "error", "-f", format, "-show_entries", "stream=\(field)", "-of", "default=nw=1:nk=1", path,
        ], timeout: 30)
    }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Decodes an Annex-B stream with the ffmpeg CLI: the number of frames it decoded and its error lines.
func ffmpegDecode(_ annexB: [UInt8], format: String = "h264") throws -> (frames: Int, errors: [String]) {
    let result = try withStreamFile(annexB) { path in
        try Tool.run("ffmpeg", ["-v", "error", "-f", format, "-i", path, "-f", "framemd5", "-"], timeout: 60)
    }
    guard !result.timedOut else { throw ToolError("ffmpeg ran over 60 s decoding the stream") }
    let frames = result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
    return (frames, result.stderrText.split(separator: "\n").map(String.init))
}

/// slice_qp_delta of the first slice of every access unit, as ffmpeg's trace_headers reads them, with
/// pic_init_qp_minus26: SliceQPY per access unit.
func ffmpegSliceQPs(_ annexB: [UInt8]) throws -> [Int] {
    let result = try withStreamFile(annexB) { path in
        try Tool.run("ffmpeg", ["-hide_banner", "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"],
                     timeout: 60)
    }
    var picInit = 0
    var qps: [Int] = []
    var firstSliceOfPicture = false
    for line in result.stderrText.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let value = fields.last.flatMap({ Int($0) }) else { continue }
        if line.contains("pic_init_qp_minus26") { picInit = value }
        if line.contains("first_mb_in_slice") { firstSliceOfPicture = value == 0 }
        if line.contains("slice_qp_delta"), firstSliceOfPicture { qps.append(26 + picInit + value) }
    }
    return qps
}

/// Concatenated Annex-B bytes of every delivered frame.
func annexBStream(_ frames: [EncodedFrame]) -> [UInt8] {
    frames.reduce(into: [UInt8]()) { $0 += $1.bytes }
}

/// NAL unit types of a delivered frame.
func nalTypes(_ frame: EncodedFrame) -> [UInt8] { frame.nalUnits.map(\.type) }

/// Encodes `count` frames of the moving pattern through a new session and returns every output, in delivery order.
func runSession(
    _ configuration: Configuration, count: Int, time: (Int) -> MediaTime = { TestMedia.time($0) },
    options: (Int) -> FrameOptions = { _ in FrameOptions() },
    beforeFrame: (Int, CompressionSession) throws -> Void = { _, _ in }
) throws -> [EncoderOutput] {
    _ = TestMedia.quiet
    let collector = OutputCollector()
    let session = try CompressionSession(configuration: configuration, outputHandler: collector.handler)
    for index in 0..<count {
        try beforeFrame(index, session)
        let buffer = TestMedia.pattern(
            format: configuration.pixelFormat, width: configuration.width, height: configuration.height, index: index)
        try session.encode(buffer, presentationTime: time(index), options: options(index), context: index)
    }
    try session.completeFrames()
    session.invalidate()
    return collector.outputs
}

/// The small real-time configuration most behaviour tests use: 160×120, libx264, WebRTC's settings.
func smallRealTime(averageBitRate: Int = 300_000) -> Configuration {
    var configuration = Configuration.realTimeCommunication(
        width: 160, height: 120, averageBitRate: averageBitRate, encoder: .software)
    configuration.preset = .ultrafast
    return configuration
}
