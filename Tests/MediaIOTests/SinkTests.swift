import Foundation
import Testing
import Bitstream
import EncoderSession
@testable import MediaIO

/// Access units and parameter sets of an ffmpeg/x264 MP4, read back as Annex-B: the encoder output the sinks take.
struct EncodedFixture {
    var path: String
    var samples: [MP4Sample]
    var avcC: [UInt8]
    var sps: [UInt8]
    var pps: [UInt8]

    /// `bFrames` > 0 makes pts differ from dts.
    static func make(in directory: URL, frames: Int = 30, gop: Int = 10, bFrames: Int = 0) throws -> EncodedFixture {
        let path = directory.appendingPathComponent("x264-160x120-g\(gop)-bf\(bFrames).mp4").path
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30",
                               "-frames:v", String(frames), "-c:v", "libx264", "-preset", "veryfast", "-g", String(gop),
                               "-bf", String(bFrames), "-x264-params", "scenecut=0", "-pix_fmt", "yuv420p", path])
        let reader = try MP4SampleReader(path: path)
        var samples: [MP4Sample] = []
        while let sample = try reader.nextSample() { samples.append(sample) }
        let sps = try #require(reader.configuration?.sequenceParameterSets.first)
        let pps = try #require(reader.configuration?.pictureParameterSets.first)
        let avcC = reader.decoderConfigurationRecord
        return EncodedFixture(path: path, samples: samples, avcC: avcC, sps: sps, pps: pps)
    }

    /// A sample's AVCC NAL units with start codes instead of lengths; SPS and PPS in front of keyframes.
    func annexB(_ sample: MP4Sample) -> [UInt8] {
        let startCode: [UInt8] = [0, 0, 0, 1]
        var out: [UInt8] = sample.isKeyframe ? startCode + sps + startCode + pps : []
        var offset = 0
        while offset + 4 <= sample.bytes.count {
            let length = sample.bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            out += startCode + sample.bytes[(offset + 4)..<(offset + 4 + length)]
            offset += 4 + length
        }
        return out
    }
}

/// ffprobe's view of a file's video stream: codec, size, packet count, and which packets are keyframes.
func probe(_ path: String) throws -> (codec: String, width: Int, height: Int, packets: Int, keyframes: [Int]) {
    let stream = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_packets",
        "-show_entries", "stream=codec_name,width,height,nb_read_packets", "-of", "csv=p=0", path]), as: UTF8.self)
    let fields = stream.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
    let flags = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0",
        "-show_entries", "packet=flags", "-of", "csv=p=0", path]), as: UTF8.self)
    let keyframes = flags.split(separator: "\n").enumerated().filter { $0.element.hasPrefix("K") }.map(\.offset)
    return (fields[0], Int(fields[1]) ?? -1, Int(fields[2]) ?? -1, Int(fields[3]) ?? -1, keyframes)
}

@Suite struct MP4WriterTests {
    @Test(arguments: [0, 2])
    func roundTripsThroughFFprobeAndTheSampleReader(bFrames: Int) throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, bFrames: bFrames)
            #expect(fixture.samples.count == 30)
            let outputPath = directory.appendingPathComponent("ours.mp4").path
            // Parameter sets are not given: the writer must take them from the first keyframe's access unit.
            let writer = try MP4Writer(path: outputPath, width: 160, height: 120)
            for sample in fixture.samples {
                try writer.write(accessUnit: fixture.annexB(sample), pts: sample.pts, dts: sample.dts,
                                 isKeyframe: sample.isKeyframe)
            }
            #expect(!FileManager.default.fileExists(atPath: outputPath)) // still .partial
            try writer.close()
            #expect(!FileManager.default.fileExists(atPath: outputPath + ".partial"))

            let probed = try probe(outputPath)
            #expect(probed.codec == "h264" && probed.width == 160 && probed.height == 120)
            #expect(probed.packets == 30)
            #expect(probed.keyframes == [0, 10, 20])
            #expect(writer.samplesWritten == 30 && writer.keyframesWritten == 3)

            let reader = try MP4SampleReader(path: outputPath)
            #expect(reader.decoderConfigurationRecord == fixture.avcC)
            var readBack: [MP4Sample] = []
            while let sample = try reader.nextSample() { readBack.append(sample) }
            #expect(readBack.map(\.bytes) == fixture.samples.map(\.bytes))
            #expect(readBack.map(\.isKeyframe) == fixture.samples.map(\.isKeyframe))
            #expect(readBack.map(\.pts.seconds) == fixture.samples.map(\.pts.seconds))
            #expect(readBack.map(\.dts.seconds) == fixture.samples.map(\.dts.seconds))
        }
    }

    @Test func decodesToTheSamePicturesAsTheOriginal() throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 12)
            let outputPath = directory.appendingPathComponent("ours.mp4").path
            let writer = try MP4Writer(path: outputPath, width: 160, height: 120, sps: fixture.sps, pps: fixture.pps)
            for sample in fixture.samples {
                try writer.write(accessUnit: fixture.annexB(sample), pts: sample.pts, isKeyframe: sample.isKeyframe)
            }
            try writer.close()
            var original = try LibAVFileSource(path: fixture.path, format: .i420)
            var ours = try LibAVFileSource(path: outputPath, format: .i420)
            let a = try LibAVFileSourceTests.decodeAll(&original)
            let b = try LibAVFileSourceTests.decodeAll(&ours)
            #expect(b.pts.count == 12)
            #expect(a.bytes == b.bytes)
            #expect(a.pts == b.pts)
        }
    }

    @Test func changedParameterSetsStayInBand() throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 3)
            let outputPath = directory.appendingPathComponent("ours.mp4").path
            let writer = try MP4Writer(path: outputPath, width: 160, height: 120)
            let startCode: [UInt8] = [0, 0, 0, 1]
            // SPS with one more trailing byte: different bytes, so it must not be dropped as redundant.
            let otherSPS = fixture.sps + [0x80]
            let units = [fixture.annexB(fixture.samples[0]), startCode + otherSPS, fixture.annexB(fixture.samples[1]),
                         fixture.annexB(fixture.samples[2])]
            try writer.write(accessUnit: units[0], pts: MediaTime(value: 0, timescale: 30), isKeyframe: true)
            try writer.write(accessUnit: units[1], pts: MediaTime(value: 1, timescale: 30), isKeyframe: false)
            try writer.write(accessUnit: units[2], pts: MediaTime(value: 1, timescale: 30), isKeyframe: false)
            try writer.write(accessUnit: units[3], pts: MediaTime(value: 2, timescale: 30), isKeyframe: false)
            try writer.close()
            let reader = try MP4SampleReader(path: outputPath)
            var samples: [MP4Sample] = []
            while let sample = try reader.nextSample() { samples.append(sample) }
            #expect(samples.count == 3)
            #expect(samples[0].bytes == fixture.samples[0].bytes) // the SPS/PPS of the avcC record are stripped
            let carried = [0, 0, 0, UInt8(otherSPS.count)] + otherSPS
            #expect(samples[1].bytes == carried + fixture.samples[1].bytes)
        }
    }

    @Test func droppedWriterLeavesNoFile() throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 3)
            let outputPath = directory.appendingPathComponent("dropped.mp4").path
            do {
                let writer = try MP4Writer(path: outputPath, width: 160, height: 120)
                try writer.write(accessUnit: fixture.annexB(fixture.samples[0]), pts: .zero, isKeyframe: true)
                #expect(FileManager.default.fileExists(atPath: outputPath + ".partial"))
            }
            #expect(!FileManager.default.fileExists(atPath: outputPath))
            #expect(!FileManager.default.fileExists(atPath: outputPath + ".partial"))
        }
    }

    @Test func closingWithoutSamplesFailsAndLeavesNoFile() throws {
        try withTemporaryDirectory { directory in
            let outputPath = directory.appendingPathComponent("empty.mp4").path
            let writer = try MP4Writer(path: outputPath, width: 160, height: 120)
            let error = #expect(throws: MediaIOError.self) { try writer.close() }
            #expect(error?.code == .invalidState)
            #expect(!FileManager.default.fileExists(atPath: outputPath))
            #expect(!FileManager.default.fileExists(atPath: outputPath + ".partial"))
        }
    }

    @Test func missingParameterSetsAreReported() throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 3)
            let writer = try MP4Writer(path: directory.appendingPathComponent("x.mp4").path, width: 160, height: 120)
            let unit = fixture.annexB(fixture.samples[1]) // a P frame: no SPS/PPS in front
            let error = #expect(throws: MediaIOError.self) {
                try writer.write(accessUnit: unit, pts: .zero, isKeyframe: false)
            }
            #expect(error?.code == .invalidState)
            #expect(error?.frameIndex == 0)
        }
    }

    @Test func timeMustMoveForward() throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 3)
            let writer = try MP4Writer(path: directory.appendingPathComponent("x.mp4").path, width: 160, height: 120)
            try writer.write(accessUnit: fixture.annexB(fixture.samples[0]), pts: MediaTime(value: 1, timescale: 30),
                             isKeyframe: true)
            let error = #expect(throws: MediaIOError.self) {
                try writer.write(accessUnit: fixture.annexB(fixture.samples[1]), pts: .zero, isKeyframe: false)
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.frameIndex == 1)
        }
    }

    @Test(arguments: [
        [UInt8](),                       // nothing
        [0, 0, 0, 1],                    // a start code and no NAL unit
        [0x65, 0x88, 0x84],              // AVCC-style payload without a start code
        [0x01, 0x00, 0x00, 0x01, 0x65],  // data before the first start code
    ])
    func rejectsNonAnnexBInput(bytes: [UInt8]) throws {
        try withTemporaryDirectory { directory in
            let writer = try MP4Writer(path: directory.appendingPathComponent("x.mp4").path, width: 160, height: 120)
            let error = #expect(throws: MediaIOError.self) { try writer.write(accessUnit: bytes, pts: .zero, isKeyframe: true) }
            #expect(error?.code == .invalidFormat)
        }
    }
}

@Suite struct AnnexBFileWriterTests {
    @Test func writesWhatFFprobeReadsBack() throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 20)
            let outputPath = directory.appendingPathComponent("ours.h264").path
            let writer = try AnnexBFileWriter(path: outputPath)
            var expected: [UInt8] = []
            for sample in fixture.samples {
                let unit = fixture.annexB(sample)
                try writer.write(unit)
                expected += unit
            }
            #expect(!FileManager.default.fileExists(atPath: outputPath))
            try writer.close()
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: outputPath))) == expected)
            #expect(writer.accessUnitsWritten == 20 && writer.bytesWritten == expected.count)
            let probed = try probe(outputPath)
            #expect(probed.codec == "h264" && probed.width == 160 && probed.height == 120)
            #expect(probed.packets == 20)
            #expect(probed.keyframes == [0, 10])
        }
    }

    @Test func droppedWriterLeavesNoFile() throws {
        try withTemporaryDirectory { directory in
            let outputPath = directory.appendingPathComponent("dropped.h264").path
            do {
                let writer = try AnnexBFileWriter(path: outputPath)
                try writer.write([0, 0, 0, 1, 0x09, 0xF0])
                #expect(FileManager.default.fileExists(atPath: outputPath + ".partial"))
            }
            #expect(!FileManager.default.fileExists(atPath: outputPath))
            #expect(!FileManager.default.fileExists(atPath: outputPath + ".partial"))
        }
    }

    @Test func rejectsDataWithoutStartCodeAndWritesAfterClose() throws {
        try withTemporaryDirectory { directory in
            let writer = try AnnexBFileWriter(path: directory.appendingPathComponent("x.h264").path)
            let notAnnexB = #expect(throws: MediaIOError.self) { try writer.write([0, 0, 0, 2, 0x09, 0xF0]) }
            #expect(notAnnexB?.code == .invalidFormat)
            try writer.write([0, 0, 1, 0x09, 0xF0])
            try writer.close()
            let afterClose = #expect(throws: MediaIOError.self) { try writer.write([0, 0, 1, 0x09, 0xF0]) }
            #expect(afterClose?.code == .invalidState)
        }
    }

    @Test func unwritableDirectoryIsAnIOError() {
        let error = #expect(throws: MediaIOError.self) { try AnnexBFileWriter(path: "/nonexistent-dir/x.h264") }
        #expect(error?.code == .io)
        #expect(error?.libraryReason == "No such file or directory")
    }
}

@Suite struct MP4SampleReaderTests {
    /// The reader's CodedAccessUnit: the AVCC sample as stored, its NAL units found by walking the lengths (the
    /// same ones the fixture's own conversion finds), the container's keyframe flag and times.
    @Test func readerGivesCodedAccessUnits() throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 6, gop: 3, bFrames: 1)
            let reader = try MP4SampleReader(path: fixture.path)
            var units: [CodedAccessUnit] = []
            while let unit = try reader.nextAccessUnit() { units.append(unit) }
            #expect(units.count == fixture.samples.count)
            for (unit, sample) in zip(units, fixture.samples) {
                #expect(unit.bytes == sample.bytes && unit.framing == .lengthPrefixed(lengthSize: 4))
                #expect(unit.isKeyframe == sample.isKeyframe && unit.presentationTime == sample.pts && unit.decodeTime == sample.dts)
                let parameterSets = sample.isKeyframe ? [fixture.sps[...], fixture.pps[...]] : []
                #expect(AnnexB.join(parameterSets + unit.nalUnitBytes) == fixture.annexB(sample))
                #expect(unit.nalUnits.allSatisfy { unit.bytes[$0.range.lowerBound] & 0x1F == $0.type })
            }
            #expect(units.filter(\.isKeyframe).count == 2)
            // A sample whose lengths do not tile it is refused with a typed error, not cut short.
            var broken = fixture.samples[1]
            broken.bytes.removeLast()
            #expect(throws: MediaIOError.self) { try broken.accessUnit(codec: .h264, lengthSize: 4) }
        }
    }

    @Test func readsSamplesWithTimingAndKeyframes() throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 12, gop: 5, bFrames: 2)
            #expect(fixture.samples.count == 12)
            #expect(fixture.samples.filter(\.isKeyframe).count == 3)
            #expect(fixture.avcC[0] == 1 && fixture.sps[0] & 0x1F == 7 && fixture.pps[0] & 0x1F == 8)
            // B-frames: decode order differs from presentation order, and dts never passes pts.
            #expect(fixture.samples.contains { $0.pts != $0.dts })
            #expect(fixture.samples.allSatisfy { $0.dts <= $0.pts })
            #expect(Set(fixture.samples.map(\.pts.seconds)).count == 12)
            // Every sample is a sequence of length-prefixed NAL units that exactly fills it.
            for sample in fixture.samples {
                var offset = 0
                while offset + 4 <= sample.bytes.count {
                    offset += 4 + sample.bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
                }
                #expect(offset == sample.bytes.count)
            }
            let reader = try MP4SampleReader(path: fixture.path)
            #expect(reader.width == 160 && reader.height == 120 && reader.nalUnitLengthSize == 4)
            #expect(reader.frameRate == Rational(30, 1))
        }
    }

    @Test func annexBFileHasNoAVCCSamples() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("x264.h264").path
            try runTool("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=30",
                                   "-frames:v", "2", "-c:v", "libx264", path])
            let error = #expect(throws: MediaIOError.self) { try MP4SampleReader(path: path) }
            #expect(error?.code == .unsupported)
        }
    }

    @Test func otherCodecsAreRejected() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("mpeg4.mp4").path
            try runTool("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=30",
                                   "-frames:v", "2", "-c:v", "mpeg4", path])
            let error = #expect(throws: MediaIOError.self) { try MP4SampleReader(path: path) }
            #expect(error?.code == .unsupported)
            #expect(error?.reason.contains("mpeg4") == true)
        }
    }

    @Test func missingFile() {
        let error = #expect(throws: MediaIOError.self) { try MP4SampleReader(path: "/nonexistent.mp4") }
        #expect(error?.code == .demuxFailed)
    }
}
