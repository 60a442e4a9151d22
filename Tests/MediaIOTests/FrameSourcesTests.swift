import Bitstream
import Foundation
import Testing
import EncoderSession
@testable import MediaIO

@Suite struct FrameSourcesTests {
    @Test func testPatternByDefault() throws {
        let source = try FrameSources.open("testsrc")
        let pattern = try #require(source as? TestPatternSource)
        #expect(pattern.width == 1280 && pattern.height == 720 && pattern.frameRate == Rational(30, 1))
        #expect(pattern.content == .bars && pattern.format == .nv12)
        let noise = try #require(try FrameSources.open("testsrc:noise", options: .init(width: 64, height: 48, frameRate: Rational(25, 1)))
                                 as? TestPatternSource)
        #expect(noise.content == .noise && noise.width == 64 && noise.frameRate == Rational(25, 1))
    }

    @Test func y4mFileIsReadDirectly() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Y4MReaderTests.fixture(in: directory)
            var source = try FrameSources.open(fixture.y4m, options: .init(format: .i420))
            #expect(source is Y4MReader)
            var buffer = source.makeBuffer()
            var bytes: [UInt8] = []
            while try source.nextFrame(into: &buffer) != nil { bytes += buffer.packedBytes }
            #expect(bytes == fixture.raw)
        }
    }

    @Test(arguments: [PixelFormat.nv12, .i420])
    func y4mAtAnotherSizeIsScaledLikeFFmpeg(format: PixelFormat) throws {
        try withTemporaryDirectory { directory in
            let fixture = try Y4MReaderTests.fixture(in: directory, size: "160x120")
            var source = try FrameSources.open(fixture.y4m, options: .init(width: 64, height: 48, format: format))
            #expect(source.width == 64 && source.height == 48 && source.format == format)
            var buffer = source.makeBuffer()
            var bytes: [UInt8] = []
            while try source.nextFrame(into: &buffer) != nil { bytes += buffer.packedBytes }
            let reference = Array(try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", fixture.y4m, "-pix_fmt",
                format == .nv12 ? "nv12" : "yuv420p", "-s", "64x48", "-f", "rawvideo", "-"]))
            try #require(bytes.count == reference.count)
            let differences = zip(bytes, reference).map { abs(Int($0) - Int($1)) }
            #expect(differences.max() ?? 0 <= 3)
        }
    }

    @Test func loopingY4MGoesThroughLibavformat() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Y4MReaderTests.fixture(in: directory)
            var source = try FrameSources.open(fixture.y4m, options: .init(loop: true))
            #expect(source is LibAVFileSource)
            var buffer = source.makeBuffer()
            var times: [Double] = []
            for _ in 0..<7 { times.append(try #require(try source.nextFrame(into: &buffer)).seconds) }
            #expect(times.enumerated().allSatisfy { abs($0.element - Double($0.offset) / 30) < 1e-9 })
        }
    }

    @Test func otherFilesGoThroughLibavformat() throws {
        try withTemporaryDirectory { directory in
            let path = try LibAVFileSourceTests.makeMP4(in: directory, frames: 2)
            let source = try FrameSources.open(path, options: .init(width: 48, height: 32))
            #expect(source is LibAVFileSource && source.width == 48 && source.height == 32)
        }
    }

    @Test func errors() {
        let loopStdin = #expect(throws: MediaIOError.self) { try FrameSources.open("-", options: .init(loop: true)) }
        #expect(loopStdin?.code == .invalidArgument)
        let missing = #expect(throws: MediaIOError.self) { try FrameSources.open("/nonexistent/input.mov") }
        #expect(missing?.code == .demuxFailed)
        #expect(missing?.description == "cannot open /nonexistent/input.mov: No such file or directory")
        let badSize = #expect(throws: MediaIOError.self) { try FrameSources.open("testsrc", options: .init(width: 641, height: 480)) }
        #expect(badSize?.code == .invalidArgument)
    }
}
