import Foundation
import Testing
import TestSupport
@testable import MediaIO

/// `LibAVFileSource.seekToKeyframe(atOrBefore:)`: where decoding resumes, on the source's own time line.
@Suite struct LibAVFileSourceSeekTests {
    @Test func seekResumesAtTheKeyframeAtOrBefore() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("gop10.mp4").path
            try LavfiMedia.testsrc2(path, size: "96x64", frames: 60, arguments: ["-c:v", "libx264", "-g", "10",
                                                                                 "-sc_threshold", "0", "-bf", "0"])
            var source = try LibAVFileSource(path: path, format: .i420)
            var buffer = source.makeBuffer()
            // Before a frame is read the origin is unknown: refused, not guessed.
            #expect(throws: MediaIOError.self) { try source.seekToKeyframe(atOrBefore: MediaTime(value: 1, timescale: 1)) }
            let first = try #require(try source.nextFrame(into: &buffer))
            #expect(first == .zero)
            // Keyframes every 10 frames (1/3 s): 1.5 s resumes at 1 1/3 s (frame 40), 0.2 s at 0, 1 s at 1 s.
            for (target, expected) in [(MediaTime(value: 3, timescale: 2), 40), (MediaTime(value: 1, timescale: 5), 0),
                                       (MediaTime(value: 1, timescale: 1), 30)] {
                try source.seekToKeyframe(atOrBefore: target)
                let time = try #require(try source.nextFrame(into: &buffer))
                #expect(time == MediaTime(value: Int64(expected), timescale: 30), "seek to \(target)")
                // Decoding goes on from there in order.
                let next = try #require(try source.nextFrame(into: &buffer))
                #expect(next == MediaTime(value: Int64(expected + 1), timescale: 30))
            }
        }
    }

    @Test func loopingSourcesDoNotSeek() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("a.mp4").path
            try LavfiMedia.testsrc2(path, size: "96x64", frames: 5)
            var source = try LibAVFileSource(path: path, format: .i420, loop: true)
            var buffer = source.makeBuffer()
            _ = try source.nextFrame(into: &buffer)
            #expect {
                try source.seekToKeyframe(atOrBefore: .zero)
            } throws: { ($0 as? MediaIOError)?.code == .unsupported }
        }
    }
}
