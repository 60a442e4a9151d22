import Bitstream
import Foundation
import Testing
import EncoderSession
@testable import MediaIO

@Suite struct LibAVFileSourceTests {
    static let ffmpeg = ["-nostdin", "-v", "error", "-y"]

    /// An H.264 MP4 of testsrc2 made by ffmpeg/x264.
    static func makeMP4(in directory: URL, frames: Int = 10, size: String = "96x64") throws -> String {
        let path = directory.appendingPathComponent("x264-\(size).mp4").path
        try runTool("ffmpeg", ffmpeg + ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30", "-frames:v", String(frames),
                                        "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path])
        return path
    }

    /// ffmpeg's own conversion of the same file, the reference for our frames.
    static func ffmpegRaw(_ path: String, pixelFormat: String, size: String) throws -> [UInt8] {
        Array(try runTool("ffmpeg", ffmpeg + ["-i", path, "-pix_fmt", pixelFormat, "-s", size, "-f", "rawvideo", "-"]))
    }

    static func decodeAll(_ source: inout LibAVFileSource, limit: Int = 1000) throws -> (bytes: [UInt8], pts: [MediaTime]) {
        var buffer = source.makeBuffer()
        var bytes: [UInt8] = []
        var pts: [MediaTime] = []
        while pts.count < limit, let time = try source.nextFrame(into: &buffer) {
            bytes += buffer.packedBytes
            pts.append(time)
        }
        return (bytes, pts)
    }

    @Test(arguments: [(PixelFormat.nv12, "nv12"), (.i420, "yuv420p")])
    func sameSizeMatchesFFmpegExactly(format: PixelFormat, pixelFormat: String) throws {
        try withTemporaryDirectory { directory in
            let path = try Self.makeMP4(in: directory)
            var source = try LibAVFileSource(path: path, format: format)
            #expect(source.width == 96 && source.height == 64)
            #expect(source.frameRate == Rational(30, 1))
            #expect(source.decoderName == "h264")
            let ours = try Self.decodeAll(&source)
            let reference = try Self.ffmpegRaw(path, pixelFormat: pixelFormat, size: "96x64")
            #expect(ours.pts.count == 10)
            #expect(ours.bytes == reference)
        }
    }

    @Test(arguments: [(PixelFormat.nv12, "nv12"), (.i420, "yuv420p")])
    func scaledFramesAreCloseToFFmpegs(format: PixelFormat, pixelFormat: String) throws {
        try withTemporaryDirectory { directory in
            let path = try Self.makeMP4(in: directory, frames: 3, size: "160x120")
            var source = try LibAVFileSource(path: path, width: 64, height: 48, format: format)
            let ours = try Self.decodeAll(&source).bytes
            let reference = try Self.ffmpegRaw(path, pixelFormat: pixelFormat, size: "64x48")
            try #require(ours.count == reference.count)
            // Same scaler and flags, but ffmpeg's filter graph may add its own flags: allow rounding differences.
            let differences = zip(ours, reference).map { abs(Int($0) - Int($1)) }
            #expect(differences.max() ?? 0 <= 3)
            #expect(Double(differences.reduce(0, +)) / Double(differences.count) < 0.5)
        }
    }

    @Test func timestampsFollowTheStreamTimeBase() throws {
        try withTemporaryDirectory { directory in
            let path = try Self.makeMP4(in: directory)
            var source = try LibAVFileSource(path: path)
            let pts = try Self.decodeAll(&source).pts
            #expect(pts.first == .zero)
            for (index, time) in pts.enumerated() {
                #expect(abs(time.seconds - Double(index) / 30) < 1e-9, "frame \(index) at \(time)")
            }
        }
    }

    @Test func streamStartingLateStartsAtZero() throws {
        try withTemporaryDirectory { directory in
            // MPEG-TS starts its clock at 1.4 s (and uses a 1/90000 time base).
            let path = directory.appendingPathComponent("x264.ts").path
            try runTool("ffmpeg", Self.ffmpeg + ["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=30", "-frames:v", "6",
                                                 "-c:v", "libx264", "-preset", "ultrafast", "-bf", "0", path])
            var source = try LibAVFileSource(path: path, loop: true)
            let pts = try Self.decodeAll(&source, limit: 13).pts
            #expect(pts.first?.timescale == 90_000)
            #expect(pts.map(\.value) == (0..<13).map { Int64($0) * 3000 })
        }
    }

    @Test func loopingKeepsTimestampsContinuous() throws {
        try withTemporaryDirectory { directory in
            let path = try Self.makeMP4(in: directory, frames: 5)
            var source = try LibAVFileSource(path: path, format: .i420, loop: true)
            let result = try Self.decodeAll(&source, limit: 16)
            #expect(result.pts.count == 16)
            for (index, time) in result.pts.enumerated() {
                #expect(abs(time.seconds - Double(index) / 30) < 1e-9, "frame \(index) at \(time)")
            }
            // Frame 5 is the file's frame 0 again.
            let frameBytes = 96 * 64 * 3 / 2
            #expect(result.bytes[0..<frameBytes] == result.bytes[(5 * frameBytes)..<(6 * frameBytes)])
        }
    }

    @Test func decodesY4MThroughLibavformatToo() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Y4MReaderTests.fixture(in: directory)
            var source = try LibAVFileSource(path: fixture.y4m, format: .i420)
            #expect(try Self.decodeAll(&source).bytes == fixture.raw)
        }
    }

    @Test func missingFileCarriesFFmpegsReason() throws {
        let error = #expect(throws: MediaIOError.self) { try LibAVFileSource(path: "/nonexistent/video.mp4") }
        #expect(error?.code == .demuxFailed)
        #expect(error?.libraryReason == "No such file or directory")
    }

    @Test func garbageIsRejected() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("garbage.mp4")
            var random = XorShift64Star(seed: 7)
            try Data((0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) }).write(to: path)
            let error = #expect(throws: MediaIOError.self) { try LibAVFileSource(path: path.path) }
            #expect(error?.code == .demuxFailed)
            #expect(error?.libraryReason == "Invalid data found when processing input")
        }
    }

    @Test func audioOnlyFileHasNoVideoStream() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("tone.wav").path
            try runTool("ffmpeg", Self.ffmpeg + ["-f", "lavfi", "-i", "sine=duration=0.1", path])
            let error = #expect(throws: MediaIOError.self) { try LibAVFileSource(path: path) }
            #expect(error?.code == .noVideoStream)
        }
    }

    @Test func truncatedFileEndsOrFailsButNeverCrashes() throws {
        try withTemporaryDirectory { directory in
            // An Annex-B stream cut in the middle: the decoder gets a partial last access unit.
            let whole = directory.appendingPathComponent("whole.h264").path
            try runTool("ffmpeg", Self.ffmpeg + ["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=30", "-frames:v", "10",
                                                 "-c:v", "libx264", "-preset", "ultrafast", whole])
            let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
            let cut = directory.appendingPathComponent("cut.h264")
            try bytes.prefix(bytes.count * 2 / 3).write(to: cut)
            var source = try LibAVFileSource(path: cut.path)
            do {
                let frames = try Self.decodeAll(&source).pts.count
                #expect(frames > 0 && frames <= 10)
            } catch let error as MediaIOError {
                #expect(error.code == .decodeFailed)
            }
        }
    }

    @Test func rejectsOddOutputSize() throws {
        try withTemporaryDirectory { directory in
            let path = try Self.makeMP4(in: directory, frames: 1)
            let error = #expect(throws: MediaIOError.self) { try LibAVFileSource(path: path, width: 63, height: 48) }
            #expect(error?.code == .invalidArgument)
        }
    }
}
