import Foundation
import Testing
import Bitstream
@testable import MediaIO

/// The native MP4 path (`MP4File` + `MP4TrackIndex`) against libavformat on the same files, its refusals (which
/// send a file to libavformat instead), and the box layer's byte rules.
@Suite struct MP4NativeReaderTests {
    /// Every sample, time, keyframe flag, size, frame rate and avcC of both demuxers.
    private func expectSameAsLibAVFormat(_ path: String, native expectNative: Bool) throws {
        let native = try MP4SampleReader(path: path)
        let libav = try MP4SampleReader(path: path, demuxer: .libavformat)
        #expect(native.usesLibAVFormat == !expectNative)
        #expect(libav.usesLibAVFormat)
        #expect(native.codec == libav.codec)
        #expect(native.decoderConfigurationRecord == libav.decoderConfigurationRecord)
        #expect(native.width == libav.width && native.height == libav.height)
        #expect(native.frameRate == libav.frameRate)
        var count = 0
        while let expected = try libav.nextSample() {
            let sample = try #require(try native.nextSample())
            #expect(sample == expected, "sample \(count)")
            count += 1
        }
        #expect(try native.nextSample() == nil)
        #expect(count > 0)
    }

    @Test(arguments: [(frames: 30, gop: 10), (frames: 7, gop: 250)])
    func ffmpegMP4WithoutBFramesIsReadNatively(frames: Int, gop: Int) throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: frames, gop: gop, bFrames: 0)
            try expectSameAsLibAVFormat(fixture.path, native: true)
        }
    }

    /// x264 with B-frames: ffmpeg writes ctts and an edit list that starts at the first composition offset, which
    /// moves every timestamp in libavformat: that file goes to libavformat, with the same result.
    @Test func editListThatMovesTimeGoesToLibAVFormat() throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 12, gop: 5, bFrames: 2)
            try expectSameAsLibAVFormat(fixture.path, native: false)
        }
    }

    /// Composition offsets without an edit list (`-use_editlist 0`): read natively, pts = dts + ctts.
    @Test func compositionOffsetsWithoutEditList() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("x264-bf2-noeditlist.mp4").path
            try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30",
                                   "-frames:v", "12", "-c:v", "libx264", "-preset", "veryfast", "-bf", "2",
                                   "-use_editlist", "0", path])
            try expectSameAsLibAVFormat(path, native: true)
            let reader = try MP4SampleReader(path: path)
            var samples: [MP4Sample] = []
            while let sample = try reader.nextSample() { samples.append(sample) }
            #expect(samples.contains { $0.pts != $0.dts })
        }
    }

    /// ffmpeg's mp4 muxer (the one rtenc's MP4Writer drives) puts the moov after the media data; `-movflags
    /// faststart` moves it in front. Both are found.
    @Test(arguments: [false, true])
    func movieBoxAtEitherEnd(faststart: Bool) throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 20, gop: 10, bFrames: 0)
            let path = try faststart
                ? remux(fixture, movflags: "faststart", to: "faststart.mp4", in: directory) : fixture.path
            try expectSameAsLibAVFormat(path, native: true)
        }
    }

    /// A fragmented MP4 (mvex in the moov, samples in moofs) is libavformat's.
    @Test func fragmentedMP4GoesToLibAVFormat() throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 20, gop: 10, bFrames: 0)
            let path = try remux(fixture, movflags: "frag_keyframe+empty_moov", to: "fragmented.mp4", in: directory)
            try expectSameAsLibAVFormat(path, native: false)
        }
    }

    /// A file cut inside its media data: the tables point past the end, so the native index refuses it and
    /// libavformat reads what there is (as before).
    @Test func truncatedFileGoesToLibAVFormat() throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 20, gop: 10, bFrames: 0)
            let faststart = try remux(fixture, movflags: "faststart", to: "faststart.mp4", in: directory)
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: faststart)))
            bytes.removeLast(bytes.count / 3)
            let cut = directory.appendingPathComponent("cut.mp4").path
            try Data(bytes).write(to: URL(fileURLWithPath: cut))
            #expect(MP4File.open(path: cut) == nil)
            let reader = try MP4SampleReader(path: cut)
            #expect(reader.usesLibAVFormat)
        }
    }

    /// The drip-feed rule for the movie box: a strict prefix of a real moov payload is refused (nil), never a trap —
    /// except the one that ends exactly after the track, which drops only the trailing `udta` (metadata the index
    /// does not read) and so is a complete movie box itself, with the same index.
    @Test func everyStrictPrefixOfTheMovieBoxIsRefused() throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 8, gop: 4, bFrames: 0)
            let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture.path)))
            let top = try #require(MP4Box.children(of: file[...]))
            let movie = try #require(top.first { $0.type == MP4Box.type("moov") }).payload
            let boxes = try #require(MP4Box.children(of: movie))
            #expect(boxes.map(\.type) == [MP4Box.type("mvhd"), MP4Box.type("trak"), MP4Box.type("udta")])
            let trackEnd = boxes[1].payload.endIndex
            let size = Int64(file.count)
            let whole = try #require(MP4TrackIndex(movie: movie, fileSize: size))
            #expect(whole.samples.count == 8 && whole.samples.filter(\.isSync).count == 2)
            for end in movie.startIndex..<movie.endIndex {
                let index = MP4TrackIndex(movie: movie[movie.startIndex..<end], fileSize: size)
                if end == trackEnd {
                    #expect(index?.samples == whole.samples && index?.decoderConfigurationRecord == whole.decoderConfigurationRecord)
                } else {
                    #expect(index == nil, "prefix of \(end - movie.startIndex) bytes")
                }
            }
            // The samples must lie inside the file: the same tables over a shorter file are refused.
            #expect(MP4TrackIndex(movie: movie, fileSize: 100) == nil)
        }
    }

    /// Box headers (ISO/IEC 14496-12 §4.2): 32-bit size, 64-bit largesize, size 0 (to the end), and the sizes that
    /// cannot be.
    @Test(arguments: [
        // size 16, "free", 8 payload bytes
        ([0, 0, 0, 16, 0x66, 0x72, 0x65, 0x65, 1, 2, 3, 4, 5, 6, 7, 8], [("free", 8)]),
        // size 1 + largesize 24: 8 payload bytes after the 16-byte header
        ([0, 0, 0, 1, 0x6D, 0x64, 0x61, 0x74, 0, 0, 0, 0, 0, 0, 0, 24, 1, 2, 3, 4, 5, 6, 7, 8], [("mdat", 8)]),
        // size 0: to the end of the data
        ([0, 0, 0, 0, 0x6D, 0x64, 0x61, 0x74, 9, 9, 9], [("mdat", 3)]),
        // two boxes back to back, the first empty
        ([0, 0, 0, 8, 0x66, 0x72, 0x65, 0x65, 0, 0, 0, 9, 0x73, 0x6B, 0x69, 0x70, 7], [("free", 0), ("skip", 1)]),
    ] as [([UInt8], [(String, Int)])])
    func boxHeaders(bytes: [UInt8], expected: [(String, Int)]) throws {
        let boxes = try #require(MP4Box.children(of: bytes[...]))
        #expect(boxes.map { fourCC($0.type) } == expected.map(\.0))
        #expect(boxes.map(\.payload.count) == expected.map(\.1))
    }

    @Test(arguments: [
        [0, 0, 0, 17, 0x66, 0x72, 0x65, 0x65, 1, 2, 3, 4, 5, 6, 7, 8],  // claims one byte more than there is
        [0, 0, 0, 7, 0x66, 0x72, 0x65, 0x65],                           // smaller than its own header
        [0, 0, 0, 1, 0x6D, 0x64, 0x61, 0x74, 0, 0, 0, 0, 0, 0, 0, 8],   // largesize smaller than the 16-byte header
        [0, 0, 0, 8, 0x66, 0x72, 0x65],                                 // header cut short
        [0, 0, 0, 1, 0x6D, 0x64, 0x61, 0x74, 0, 0, 0],                  // largesize cut short
    ] as [[UInt8]])
    func impossibleBoxSizesAreRefused(bytes: [UInt8]) {
        #expect(MP4Box.children(of: bytes[...]) == nil)
    }

    /// `fixture` copied by ffmpeg (`-c copy`) with `movflags`, as `name` in `directory`.
    private func remux(_ fixture: EncodedFixture, movflags: String, to name: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", fixture.path, "-c", "copy", "-movflags", movflags, path])
        return path
    }

    private func fourCC(_ type: UInt32) -> String {
        String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: type >> $0) }, as: UTF8.self)
    }
}
