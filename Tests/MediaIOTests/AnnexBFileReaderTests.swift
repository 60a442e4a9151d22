import Bitstream
import Foundation
import Testing
@testable import MediaIO

@Suite struct AnnexBFileReaderTests {
    static func readAll(_ path: String, rate: Rational = Rational(30, 1)) throws -> [AnnexBAccessUnit] {
        let reader = try AnnexBFileReader(path: path, frameRate: rate)
        var units: [AnnexBAccessUnit] = []
        while let unit = try reader.nextAccessUnit() { units.append(unit) }
        return units
    }

    static func write(_ bytes: [UInt8], in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("handmade.h264")
        try Data(bytes).write(to: path)
        return path.path
    }

    @Test func readsBackWhatTheWriterWrote() throws {
        try withTemporaryDirectory { directory in
            let fixture = try EncodedFixture.make(in: directory, frames: 30, gop: 10)
            let path = directory.appendingPathComponent("ours.h264").path
            let writer = try AnnexBFileWriter(path: path)
            let written = fixture.samples.map(fixture.annexB)
            for unit in written { try writer.write(unit) }
            try writer.close()
            let units = try Self.readAll(path)
            #expect(units.map(\.bytes) == written)
            #expect(units.enumerated().filter(\.element.isKeyframe).map(\.offset) == [0, 10, 20])
            #expect(units.map(\.pts) == (0..<30).map { MediaTime(value: Int64($0), timescale: 30) })
        }
    }

    @Test func slicesOfOnePictureStayTogether() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("x264-slices4.h264").path
            try runTool("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x128:rate=25",
                                   "-frames:v", "8", "-c:v", "libx264", "-x264-params", "slices=4", path])
            let units = try Self.readAll(path, rate: Rational(25, 1))
            #expect(units.count == 8)
            #expect(units.allSatisfy { $0.nalUnitTypes.filter { $0 == 1 || $0 == 5 }.count == 4 })
            #expect(units[0].nalUnitTypes.prefix(2) == [7, 8])
            #expect(units.last?.pts == MediaTime(value: 7, timescale: 25))
            // The ranges are the NAL units a start-code scan finds, each right after its 4-byte start code.
            for unit in units {
                var scanned: [ArraySlice<UInt8>] = []
                try AnnexB.forEachNALUnit(in: unit.bytes[...]) { scanned.append($0) }
                #expect(unit.nalUnitRanges.map { unit.bytes[$0] } == scanned)
                #expect(unit.nalUnitRanges.map { unit.nalUnitTypes.isEmpty ? 0 : unit.bytes[$0.lowerBound] & 0x1F } == unit.nalUnitTypes)
                #expect(unit.accessUnit.framing == .annexB && unit.accessUnit.codec == .h264)
                #expect(unit.accessUnit.nalUnitBytes == scanned)
                #expect(unit.isKeyframe == unit.nalUnitTypes.contains(5))
            }
            #expect(units.map(\.isKeyframe) == [true] + Array(repeating: false, count: 7))
        }
    }

    /// x265 with a keyframe every 4 frames (IDR, or CRA with open GOP) and 2 slices per picture: read as H.265,
    /// one access unit per picture (§7.4.2.4.4) with VPS/SPS/PPS in front of the first, the keyframe flag on the
    /// IRAP pictures, the types from the 2-byte header.
    @Test func hevcIsGroupedByPictureWithIRAPAsKeyframe() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("x265-slices2.h265").path
            try runTool("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x128:rate=25",
                                   "-frames:v", "8", "-c:v", "libx265", "-preset", "ultrafast", "-g", "4",
                                   "-x265-params", "log-level=error:slices=2:bframes=0", "-f", "hevc", path])
            let reader = try AnnexBFileReader(path: path, frameRate: Rational(25, 1), codec: .hevc)
            var units: [AnnexBAccessUnit] = []
            while let unit = try reader.nextAccessUnit() { units.append(unit) }
            #expect(units.count == 8)
            #expect(units[0].nalUnitTypes.prefix(3) == [32, 33, 34])
            #expect(units.allSatisfy { $0.accessUnit.codec == .hevc && $0.nalUnitTypes.filter { $0 < 32 }.count == 2 })
            for unit in units {
                #expect(unit.nalUnitRanges.map { unit.bytes[$0.lowerBound] >> 1 & 0x3F } == unit.nalUnitTypes)
                #expect(unit.isKeyframe == unit.nalUnitTypes.contains { (16 ... 23).contains($0) })
            }
            #expect(units.map(\.isKeyframe) == [true, false, false, false, true, false, false, false])
        }
    }

    @Test(arguments: [
        // 3-byte start codes; AUD starts each access unit.       → types per access unit
        ([0, 0, 1, 0x09, 0xF0,  0, 0, 1, 0x65, 0x88,  0, 0, 1, 0x09, 0xF0,  0, 0, 1, 0x41, 0x9A] as [UInt8],
         [[9, 5], [9, 1]] as [[UInt8]]),
        // No delimiters: an IDR slice (first_mb_in_slice 0: 0x88 = 1000 1000), a second slice of the same picture
        // (0x08: first bit 0, so first_mb_in_slice > 0), then a new picture's slice.
        ([0, 0, 0, 1, 0x65, 0x88, 0x10,  0, 0, 0, 1, 0x65, 0x08, 0x10,  0, 0, 1, 0x41, 0x80], [[5, 5], [1]]),
        // SPS, PPS and SEI in front of slices; trailing zero bytes after the last NAL unit are dropped.
        ([0, 0, 1, 0x67, 0x42,  0, 0, 1, 0x68, 0xCE,  0, 0, 1, 0x65, 0x88,  0, 0, 1, 0x06, 0x05,  0, 0, 1, 0x41, 0x9A, 0, 0],
         [[7, 8, 5], [6, 1]]),
        // Leading zero bytes before the first start code are allowed.
        ([0, 0, 0, 0, 0, 1, 0x65, 0x88], [[5]]),
        // An empty file has no access units.
        ([], []),
    ])
    func groupsHandmadeStreams(bytes: [UInt8], expected: [[UInt8]]) throws {
        try withTemporaryDirectory { directory in
            let units = try Self.readAll(try Self.write(bytes, in: directory))
            #expect(units.map(\.nalUnitTypes) == expected)
            // Trailing zero bytes belong to no NAL unit.
            #expect(units.allSatisfy { $0.bytes.last != 0 })
        }
    }

    @Test func nalUnitsAndStartCodesAcrossReadChunks() throws {
        try withTemporaryDirectory { directory in
            // Payload bytes ≥ 0x10 contain no start code. The second start code straddles the first read chunk's end.
            func payload(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(0x10 + $0 % 0xE0) } }
            let chunk = FileInput.readAheadSize
            let first: [UInt8] = [0x65, 0x88] + payload(chunk - 4 - 2 - 2)
            let second: [UInt8] = [0x41, 0x9A] + payload(3 * chunk + 17)
            let third: [UInt8] = [0x41, 0x9B, 0x10]
            let stream = [0, 0, 0, 1] + first + [0, 0, 0, 1] + second + [0, 0, 1] + third
            let units = try Self.readAll(try Self.write(stream, in: directory))
            #expect(units.map(\.bytes) == [[0, 0, 0, 1] + first, [0, 0, 0, 1] + second, [0, 0, 0, 1] + third])
        }
    }

    @Test(arguments: [
        [0x12, 0x34, 0x56] as [UInt8],             // no start code at all
        [0x01, 0, 0, 1, 0x65, 0x88],               // data before the first start code
    ])
    func rejectsNonAnnexB(bytes: [UInt8]) throws {
        try withTemporaryDirectory { directory in
            let error = #expect(throws: MediaIOError.self) { _ = try Self.readAll(try Self.write(bytes, in: directory)) }
            #expect(error?.code == .invalidFormat)
        }
    }

    @Test func frameRateMustBePositive() {
        let error = #expect(throws: MediaIOError.self) { try AnnexBFileReader(path: "/dev/null", frameRate: Rational(0, 1)) }
        #expect(error?.code == .invalidArgument)
    }
}
