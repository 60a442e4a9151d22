import Bitstream
import Foundation
import Testing
import EncoderSession
@testable import MediaIO

@Suite struct Y4MReaderTests {
    /// Makes `frames` frames of testsrc2 as Y4M plus ffmpeg's raw bytes of the same frames in `rawFormat`.
    static func fixture(in directory: URL, frames: Int = 3, size: String = "64x48", y4mPixelFormat: String = "yuv420p",
                        rawFormat: String = "yuv420p") throws -> (y4m: String, raw: [UInt8]) {
        let y4m = directory.appendingPathComponent("in.y4m").path
        let raw = directory.appendingPathComponent("in.raw").path
        let source = ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30", "-frames:v", String(frames)]
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y"] + source + ["-pix_fmt", y4mPixelFormat, "-f", "yuv4mpegpipe", y4m])
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y"] + source + ["-pix_fmt", rawFormat, "-f", "rawvideo", raw])
        return (y4m, Array(try Data(contentsOf: URL(fileURLWithPath: raw))))
    }

    static func readAll(_ reader: inout Y4MReader) throws -> (bytes: [UInt8], pts: [MediaTime]) {
        var buffer = reader.makeBuffer()
        var bytes: [UInt8] = []
        var pts: [MediaTime] = []
        while let time = try reader.nextFrame(into: &buffer) {
            bytes += buffer.packedBytes
            pts.append(time)
        }
        return (bytes, pts)
    }

    @Test(arguments: [(PixelFormat.i420, "yuv420p"), (.nv12, "nv12")])
    func matchesFFmpegsRawFrames(format: PixelFormat, rawFormat: String) throws {
        try withTemporaryDirectory { directory in
            let fixture = try Self.fixture(in: directory, rawFormat: rawFormat)
            var reader = try Y4MReader(path: fixture.y4m, format: format)
            #expect(reader.width == 64 && reader.height == 48 && reader.frameRate == Rational(30, 1))
            let result = try Self.readAll(&reader)
            #expect(result.bytes.count == 3 * 64 * 48 * 3 / 2)
            #expect(result.bytes == fixture.raw)
            #expect(result.pts == (0..<3).map { MediaTime(value: Int64($0), timescale: 30) })
        }
    }

    @Test func oddSizeMatchesFFmpeg() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Self.fixture(in: directory, frames: 2, size: "65x49")
            var reader = try Y4MReader(path: fixture.y4m)
            #expect(try Self.readAll(&reader).bytes == fixture.raw)
        }
    }

    @Test func monoGetsNeutralChroma() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Self.fixture(in: directory, frames: 1, y4mPixelFormat: "gray", rawFormat: "gray")
            var reader = try Y4MReader(path: fixture.y4m)
            #expect(reader.header.colorspace == .mono)
            let frame = try #require(try reader.nextFrame()).buffer
            #expect(Array(frame.planes[0].bytes) == fixture.raw)
            #expect(frame.planes[1].bytes.allSatisfy { $0 == 128 } && frame.planes[2].bytes.allSatisfy { $0 == 128 })
        }
    }

    @Test func yuv422IsRejectedWithAHint() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Self.fixture(in: directory, frames: 1, y4mPixelFormat: "yuv422p")
            let error = #expect(throws: MediaIOError.self) { try Y4MReader(path: fixture.y4m) }
            #expect(error?.code == .unsupported)
        }
    }

    @Test func readsFromADescriptor() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Self.fixture(in: directory)
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: fixture.y4m))
            defer { try? handle.close() }
            var reader = try Y4MReader(fileDescriptor: handle.fileDescriptor, name: "pipe")
            #expect(try Self.readAll(&reader).bytes == fixture.raw)
        }
    }

    /// A pipe fed a few bytes at a time, as stdin from a slow producer: every read is short.
    @Test func readsFromADripFedPipe() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Self.fixture(in: directory)
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: fixture.y4m)))
            let pipe = Pipe()
            let writer = Thread {
                var offset = 0
                while offset < bytes.count {
                    let count = min(7 + offset % 13, bytes.count - offset)
                    pipe.fileHandleForWriting.write(Data(bytes[offset..<(offset + count)]))
                    offset += count
                }
                try? pipe.fileHandleForWriting.close()
            }
            writer.start()
            var reader = try Y4MReader(fileDescriptor: pipe.fileHandleForReading.fileDescriptor, name: "pipe", format: .nv12)
            let frames = try Self.readAll(&reader)
            #expect(frames.pts.count == 3)
            let nv12 = try Self.fixture(in: directory, rawFormat: "nv12").raw
            #expect(frames.bytes == nv12)
        }
    }

    @Test func truncatedFramesReportTheirIndex() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Self.fixture(in: directory)
            let whole = try Data(contentsOf: URL(fileURLWithPath: fixture.y4m))
            let headerLength = try #require(whole.firstIndex(of: UInt8(ascii: "\n"))) + 1
            let frameLength = 6 + 64 * 48 * 3 / 2 // "FRAME\n" + planes
            #expect(whole.count == headerLength + 3 * frameLength)
            // Cut inside frame 0's FRAME line, inside its luma, inside frame 2's chroma, and one byte short.
            for (cut, index) in [(headerLength + 3, 0), (headerLength + 100, 0), (headerLength + 2 * frameLength + 4000, 2),
                                 (whole.count - 1, 2)] {
                let path = directory.appendingPathComponent("cut-\(cut).y4m")
                try whole.prefix(cut).write(to: path)
                for format in PixelFormat.allCases {
                    var reader = try Y4MReader(path: path.path, format: format)
                    let error = #expect(throws: MediaIOError.self) { _ = try Self.readAll(&reader) }
                    #expect(error?.code == .truncated, "cut at \(cut)")
                    #expect(error?.frameIndex == index, "cut at \(cut)")
                }
            }
        }
    }

    @Test func garbageInsteadOfFrameIsAnError() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("bad.y4m")
            try Data("YUV4MPEG2 W2 H2\nFRAMX\n012345".utf8).write(to: path)
            var reader = try Y4MReader(path: path.path)
            let error = #expect(throws: MediaIOError.self) { _ = try reader.nextFrame() }
            #expect(error?.code == .invalidFormat)
            #expect(error?.frameIndex == 0)
        }
    }

    @Test func frameParametersAreIgnored() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("params.y4m")
            try Data("YUV4MPEG2 W2 H2 F1:1\nFRAME Ip XFOO=1\n\u{1}\u{2}\u{3}\u{4}\u{5}\u{6}".utf8).write(to: path)
            var reader = try Y4MReader(path: path.path)
            let frame = try #require(try reader.nextFrame())
            #expect(frame.buffer.packedBytes == [1, 2, 3, 4, 5, 6])
            #expect(try reader.nextFrame() == nil)
        }
    }

    @Test func emptyAndMissingFiles() throws {
        try withTemporaryDirectory { directory in
            let empty = directory.appendingPathComponent("empty.y4m")
            try Data().write(to: empty)
            let emptyError = #expect(throws: MediaIOError.self) { try Y4MReader(path: empty.path) }
            #expect(emptyError?.code == .emptyInput)
            let missing = #expect(throws: MediaIOError.self) { try Y4MReader(path: directory.appendingPathComponent("nope").path) }
            #expect(missing?.code == .io)
            #expect(missing?.libraryReason == "No such file or directory")
        }
    }

    /// Drip feed through the reader: every strict prefix of a header line in a file fails with a typed error.
    @Test func everyHeaderPrefixInAFileFails() throws {
        try withTemporaryDirectory { directory in
            let header = Array(Y4MHeaderTests.valid.utf8)
            for length in 0..<header.count {
                let path = directory.appendingPathComponent("prefix.y4m")
                try Data(header.prefix(length)).write(to: path)
                let error = #expect(throws: MediaIOError.self) { try Y4MReader(path: path.path) }
                #expect(error?.code == (length == 0 ? .emptyInput : .truncated), "prefix of \(length) bytes")
            }
        }
    }

    @Test func reusesTheCallersBuffer() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Self.fixture(in: directory)
            var reader = try Y4MReader(path: fixture.y4m, format: .nv12)
            var buffer = reader.makeBuffer()
            _ = try reader.nextFrame(into: &buffer)
            let address = buffer.storageAddress(ofPlane: 1)
            _ = try reader.nextFrame(into: &buffer)
            #expect(buffer.storageAddress(ofPlane: 1) == address)
        }
    }
}
