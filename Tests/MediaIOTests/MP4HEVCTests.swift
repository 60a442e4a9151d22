import Foundation
import Testing
import Bitstream
@testable import MediaIO

/// H.265 in MP4: the native reader on hvc1/hev1 files from ffmpeg/libx265 (against libavformat), the sample entry
/// and length-size rules as byte vectors, and MP4Writer's hvc1 output against ffmpeg's own muxer.
@Suite struct MP4HEVCTests {
    /// An ffmpeg/libx265 MP4 of `frames` frames at 30 fps with an IDR every `keyint`, sample entry `tag`.
    static func x265MP4(in directory: URL, tag: String, frames: Int = 20, keyint: Int = 8, bframes: Int = 0) throws -> String {
        let path = directory.appendingPathComponent("x265-\(tag)-k\(keyint)-b\(bframes).mp4").path
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=192x108:rate=30",
                               "-frames:v", String(frames), "-c:v", "libx265", "-preset", "ultrafast", "-tag:v", tag,
                               "-x265-params", "log-level=error:keyint=\(keyint):open-gop=0:bframes=\(bframes)", path],
                    timeout: 60)
        return path
    }

    private func readAll(_ reader: MP4SampleReader) throws -> [MP4Sample] {
        var samples: [MP4Sample] = []
        while let sample = try reader.nextSample() { samples.append(sample) }
        return samples
    }

    /// Both sample entries are read natively, with the same samples, times, keyframes and record as libavformat's,
    /// and the hvcC's VPS/SPS/PPS go in front of every IRAP picture when converted to Annex-B.
    @Test(arguments: ["hvc1", "hev1"])
    func x265MP4IsReadNativelyLikeLibAVFormat(tag: String) throws {
        try withTemporaryDirectory { directory in
            let path = try Self.x265MP4(in: directory, tag: tag)
            let native = try MP4SampleReader(path: path)
            let libav = try MP4SampleReader(path: path, demuxer: .libavformat)
            #expect(!native.usesLibAVFormat && libav.usesLibAVFormat)
            #expect(native.codec == .hevc && libav.codec == .hevc)
            #expect(native.decoderConfigurationRecord == libav.decoderConfigurationRecord)
            #expect(native.width == 192 && native.height == 108 && native.frameRate == Rational(30, 1))
            #expect(native.configuration == nil)
            let record = try #require(native.hevcConfiguration)
            #expect(record.videoParameterSets.count == 1 && record.sequenceParameterSets.count == 1
                && record.pictureParameterSets.count == 1)
            let samples = try readAll(native)
            #expect(samples == (try readAll(libav)))
            #expect(samples.count == 20)
            #expect(samples.enumerated().filter(\.element.isKeyframe).map(\.offset) == [0, 8, 16])

            let reread = try MP4SampleReader(path: path)
            var index = 0
            while let unit = try reread.nextAccessUnit() {
                #expect(unit.codec == .hevc && unit.framing == .lengthPrefixed(lengthSize: reread.nalUnitLengthSize))
                let annexB = try AVCC.toAnnexB(unit.bytes[...], lengthSize: reread.nalUnitLengthSize,
                                               parameterSets: reread.parameterSets)
                let types = try AnnexB.split(annexB[...]).map { VideoCodec.hevc.nalUnitType(firstByte: $0[$0.startIndex]) }
                let sets = types.filter { [32, 33, 34].contains($0) }
                #expect(sets == (unit.isKeyframe ? [32, 33, 34] : []), "sample \(index): \(types)")
                index += 1
            }
            #expect(index == 20)
        }
    }

    /// B-frames: ffmpeg writes an edit list that moves time, so libavformat reads the file — with the same result.
    @Test func x265WithBFramesGoesToLibAVFormat() throws {
        try withTemporaryDirectory { directory in
            let path = try Self.x265MP4(in: directory, tag: "hvc1", frames: 12, keyint: 6, bframes: 2)
            let reader = try MP4SampleReader(path: path)
            #expect(reader.usesLibAVFormat && reader.codec == .hevc && reader.hevcConfiguration != nil)
            let samples = try readAll(reader)
            #expect(samples.count == 12 && samples.contains { $0.pts != $0.dts })
        }
    }

    /// The drip-feed rule on an HEVC movie box: every strict prefix is refused, except the one that ends right
    /// after the track (it drops only the trailing udta).
    @Test func everyStrictPrefixOfAnHEVCMovieBoxIsRefused() throws {
        try withTemporaryDirectory { directory in
            let path = try Self.x265MP4(in: directory, tag: "hvc1", frames: 6, keyint: 3)
            let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let top = try #require(MP4Box.children(of: file[...]))
            let movie = try #require(top.first { $0.type == MP4Box.type("moov") }).payload
            let boxes = try #require(MP4Box.children(of: movie))
            let track = try #require(boxes.first { $0.type == MP4Box.type("trak") })
            let whole = try #require(MP4TrackIndex(movie: movie, fileSize: Int64(file.count)))
            #expect(whole.codec == .hevc && whole.samples.count == 6)
            for end in movie.startIndex..<movie.endIndex {
                let index = MP4TrackIndex(movie: movie[movie.startIndex..<end], fileSize: Int64(file.count))
                if end == track.payload.endIndex, boxes.last?.type == MP4Box.type("udta") {
                    #expect(index?.samples == whole.samples)
                } else {
                    #expect(index == nil, "prefix of \(end - movie.startIndex) bytes")
                }
            }
        }
    }

    // MARK: Sample entries, as bytes

    /// A box: 32-bit size (header included), four-character type, payload.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + payload.count)
        return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: size >> $0) } + Array(type.utf8) + payload
    }

    /// A VisualSampleEntry (ISO/IEC 14496-12 §12.1.3) of `width` × `height` with `children` boxes: reserved(6),
    /// data_reference_index 1, pre_defined/reserved(16), width, height, 50 bytes of resolutions, frame_count,
    /// compressorname, depth, pre_defined.
    static func visualEntry(_ type: String, width: UInt16, height: UInt16, children: [UInt8]) -> [UInt8] {
        var payload = [UInt8](repeating: 0, count: 6) + [0, 1] + [UInt8](repeating: 0, count: 16)
        payload += [UInt8(width >> 8), UInt8(width & 0xFF), UInt8(height >> 8), UInt8(height & 0xFF)]
        payload += [UInt8](repeating: 0, count: 50)
        return box(type, payload + children)
    }

    /// An stsd (§8.5.2): version 0, flags 0, entry_count, entries.
    static func sampleDescription(_ entries: [[UInt8]]) -> MP4Box {
        let payload: [UInt8] = [0, 0, 0, 0, 0, 0, 0, UInt8(entries.count)] + entries.flatMap { $0 }
        let stbl = box("stsd", payload)
        return MP4Box(type: MP4Box.type("stbl"), payload: stbl[...])
    }

    /// A record box's payload stand-in: the index reads it as bytes only (MP4SampleReader parses it).
    static let record: [UInt8] = [1, 0xAA, 0xBB]

    /// Which sample entries the native index takes, and what it takes from them.
    @Test(arguments: [
        ("avc1 + avcC", [visualEntry("avc1", width: 320, height: 240, children: box("avcC", record))], VideoCodec.h264, 320),
        ("avc3 + avcC", [visualEntry("avc3", width: 320, height: 240, children: box("avcC", record))], .h264, 320),
        ("hvc1 + hvcC", [visualEntry("hvc1", width: 1280, height: 720, children: box("hvcC", record))], .hevc, 1280),
        ("hev1 + hvcC, then pasp", [visualEntry("hev1", width: 1280, height: 720,
                                                children: box("hvcC", record) + box("pasp", [0, 0, 0, 1, 0, 0, 0, 1]))],
         .hevc, 1280),
    ] as [(String, [[UInt8]], VideoCodec, Int)])
    func sampleEntriesReadNatively(name: String, entries: [[UInt8]], codec: VideoCodec, width: Int) throws {
        let entry = try #require(MP4TrackIndex.sampleEntry(Self.sampleDescription(entries)), "\(name)")
        #expect(entry.codec == codec && entry.width == width)
        #expect(entry.record.map(Array.init) == Self.record)
    }

    /// What the native index leaves to libavformat (nil) or cannot use (no record).
    @Test(arguments: [
        ("hvc1 with an avcC, not an hvcC", [visualEntry("hvc1", width: 64, height: 64, children: box("avcC", record))], true),
        ("avc1 with an hvcC", [visualEntry("avc1", width: 64, height: 64, children: box("hvcC", record))], true),
        ("hvc1 without record", [visualEntry("hvc1", width: 64, height: 64, children: [])], true),
        ("mp4v", [visualEntry("mp4v", width: 64, height: 64, children: box("esds", record))], false),
        ("two entries", [visualEntry("hvc1", width: 64, height: 64, children: box("hvcC", record)),
                         visualEntry("hvc1", width: 64, height: 64, children: box("hvcC", record))], false),
        ("entry cut short", [Array(visualEntry("hvc1", width: 64, height: 64, children: box("hvcC", record)).dropLast())],
         false),
    ] as [(String, [[UInt8]], Bool)])
    func sampleEntriesRefused(name: String, entries: [[UInt8]], readsEntry: Bool) {
        let entry = MP4TrackIndex.sampleEntry(Self.sampleDescription(entries))
        if readsEntry {
            #expect(entry != nil && entry?.record == nil, "\(name)")
        } else {
            #expect(entry == nil, "\(name)")
        }
    }

    /// Length-prefixed H.265 samples with every length size hvcC allows (lengthSizeMinusOne 0, 1, 3): the NAL
    /// units found by walking the lengths, and the Annex-B conversion with the record's VPS/SPS/PPS in front of the
    /// IRAP slice only.
    @Test(arguments: [
        // IDR_W_RADL (19) then a suffix SEI (40): 1-byte lengths.
        (1, [4, 0x26, 0x01, 0xAF, 0x80, 3, 0x50, 0x01, 0x99] as [UInt8], [19, 40] as [UInt8], true),
        // TRAIL_R (1): 2-byte lengths.
        (2, [0, 3, 0x02, 0x01, 0xD0], [1], false),
        // Prefix SEI (39) then CRA (21): 4-byte lengths.
        (4, [0, 0, 0, 3, 0x4E, 0x01, 0x05, 0, 0, 0, 3, 0x2A, 0x01, 0xC4], [39, 21], true),
    ] as [(Int, [UInt8], [UInt8], Bool)])
    func lengthSizes(lengthSize: Int, bytes: [UInt8], types: [UInt8], isIRAP: Bool) throws {
        let sample = MP4Sample(bytes: bytes, pts: .zero, dts: .zero, isKeyframe: isIRAP)
        let unit = try sample.accessUnit(codec: .hevc, lengthSize: lengthSize)
        #expect(unit.nalUnits.map(\.type) == types)
        #expect(unit.nalUnits.allSatisfy { VideoCodec.hevc.nalUnitType(firstByte: bytes[$0.range.lowerBound]) == $0.type })

        let (vps, sps, pps): ([UInt8], [UInt8], [UInt8]) = ([0x40, 0x01, 0x0C], [0x42, 0x01, 0x01], [0x44, 0x01, 0xC1])
        let record = try HEVC.DecoderConfigurationRecord(
            generalProfileSpace: 0, generalTierFlag: false, generalProfileIdc: 1, generalProfileCompatibilityFlags: 0,
            generalConstraintIndicatorFlags: 0, generalLevelIdc: 63, nalUnitLengthSize: lengthSize, arrays: [
                .init(arrayCompleteness: true, nalUnitType: .vps, nalUnits: [vps]),
                .init(arrayCompleteness: true, nalUnitType: .sps, nalUnits: [sps]),
                .init(arrayCompleteness: true, nalUnitType: .pps, nalUnits: [pps]),
            ])
        let annexB = try AVCC.toAnnexB(bytes[...], lengthSize: lengthSize, parameterSets: record)
        let units = try AnnexB.split(annexB[...]).map(Array.init)
        let slices = unit.nalUnitBytes.map(Array.init)
        if isIRAP {
            // In front of the IRAP slice itself, so after a prefix SEI.
            let irap = try #require(slices.firstIndex { VideoCodec.hevc.isRandomAccessSlice(nalUnitType: $0[0] >> 1 & 0x3F) })
            #expect(units == Array(slices[..<irap]) + [vps, sps, pps] + Array(slices[irap...]))
        } else {
            #expect(units == slices)
        }
        // A sample whose last length runs past its end is refused, not cut short.
        let broken = MP4Sample(bytes: Array(bytes.dropLast()), pts: .zero, dts: .zero, isKeyframe: isIRAP)
        #expect(throws: MediaIOError.self) { try broken.accessUnit(codec: .hevc, lengthSize: lengthSize) }
    }

    // MARK: Writing

    /// x265 Annex-B (VPS/SPS/PPS before every IDR) through MP4Writer: an hvc1 file ffprobe reads, whose hvcC equals
    /// the one ffmpeg's muxer writes for the same stream, and which decodes to the same frames.
    @Test func writerMakesHvc1LikeFFmpegs() throws {
        try withTemporaryDirectory { directory in
            let source = directory.appendingPathComponent("x265-repeat-headers.h265").path
            try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=200x120:rate=30",
                                   "-frames:v", "24", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                                   "log-level=error:keyint=8:open-gop=0:bframes=0:repeat-headers=1", "-f", "hevc", source],
                        timeout: 60)
            let ours = directory.appendingPathComponent("ours.mp4").path
            let theirs = directory.appendingPathComponent("theirs.mp4").path
            try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-r", "30", "-i", source, "-c", "copy",
                                   "-tag:v", "hvc1", theirs], timeout: 60)

            let reader = try AnnexBFileReader(path: source, frameRate: Rational(30, 1), codec: .hevc)
            let writer = try MP4Writer(path: ours, codec: .hevc, width: 200, height: 120)
            while let unit = try reader.nextAccessUnit() {
                try writer.write(accessUnit: unit.bytes, pts: unit.pts, isKeyframe: unit.isKeyframe)
            }
            try writer.close()
            #expect(writer.samplesWritten == 24 && writer.keyframesWritten == 3)

            let probed = try probe(ours)
            #expect(probed.codec == "hevc" && probed.width == 200 && probed.height == 120)
            #expect(probed.packets == 24 && probed.keyframes == [0, 8, 16])
            let tag = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                               "stream=codec_tag_string", "-of", "csv=p=0", ours]), as: UTF8.self)
            #expect(tag.trimmingCharacters(in: .whitespacesAndNewlines) == "hvc1")

            let ourReader = try MP4SampleReader(path: ours)
            let theirReader = try MP4SampleReader(path: theirs)
            #expect(ourReader.codec == .hevc && !ourReader.usesLibAVFormat)
            #expect(ourReader.decoderConfigurationRecord == theirReader.decoderConfigurationRecord)
            // hvc1: the parameter sets live in the record, not in the samples.
            for unit in try readAll(ourReader) {
                let types = try unit.accessUnit(codec: .hevc, lengthSize: 4).nalUnits.map(\.type)
                #expect(!types.contains { [32, 33, 34].contains($0) })
            }
            let frames = { (path: String) throws -> [Substring] in
                String(decoding: try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "framemd5", "-"],
                                             timeout: 60), as: UTF8.self)
                    .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last ?? "" }
            }
            let ourFrames = try frames(ours)
            #expect(ourFrames.count == 24)
            #expect(ourFrames == (try frames(source)))
        }
    }

    /// Parameter sets handed to the writer must be one of each type the codec needs, in order.
    @Test(arguments: [
        [[0x42, 0x01, 0x01], [0x44, 0x01, 0xC1]],                     // no VPS
        [[0x42, 0x01, 0x01], [0x40, 0x01, 0x0C], [0x44, 0x01, 0xC1]],  // SPS before VPS
        [[0x40, 0x01, 0x0C], [], [0x44, 0x01, 0xC1]],                  // an empty one
    ] as [[[UInt8]]])
    func givenParameterSetsAreChecked(_ sets: [[UInt8]]) throws {
        try withTemporaryDirectory { directory in
            let error = #expect(throws: MediaIOError.self) {
                try MP4Writer(path: directory.appendingPathComponent("x.mp4").path, codec: .hevc, width: 64, height: 64,
                              parameterSets: sets)
            }
            #expect(error?.code == .invalidArgument)
        }
    }
}
