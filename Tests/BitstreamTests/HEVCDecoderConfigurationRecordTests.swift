import Foundation
import TestSupport
import Testing
@testable import Bitstream

extension BytesMP4Reader {
    /// The payload of the first box with `fourcc`, found by its fourcc.
    func box(_ fourcc: String) throws -> ArraySlice<UInt8> {
        guard let at = bytes.indices.dropFirst(4).first(where: {
            bytes[$0..<min($0 + 4, bytes.count)].elementsEqual(fourcc.utf8)
        }) else { throw Failure.malformed("no \(fourcc)") }
        return bytes[(at + 4)..<(at - 4 + (try u32(at - 4)))]
    }
}

/// hvcC against what ffmpeg's MP4 muxer writes for libx265, and MP4 samples → Annex-B against ffmpeg's
/// hevc_mp4toannexb.
@Suite // needs ffmpeg with libx265
struct HEVCDecoderConfigurationRecordTests {
    /// An MP4 (hev1 or hvc1) from libx265 with a global header, its Annex-B through hevc_mp4toannexb, and the
    /// directory they sit in.
    struct Fixture {
        var mp4: [UInt8]
        var annexB: [UInt8]
        var directory: URL

        init(tag: String, params: String) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("rtenc-hvcc-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let mp4Path = directory.appendingPathComponent("x265.mp4").path
            let annexBPath = directory.appendingPathComponent("x265.h265").path
            _ = try SyntaxFixtures.run(SyntaxFixtures.ffmpegPath, [
                "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                "-frames:v", "12", "-c:v", "libx265", "-x265-params", "log-level=error:" + params, "-tag:v", tag,
                mp4Path,
            ], timeout: 60)
            _ = try SyntaxFixtures.run(SyntaxFixtures.ffmpegPath, [
                "-nostdin", "-loglevel", "error", "-y", "-i", mp4Path, "-c", "copy", "-bsf:v", "hevc_mp4toannexb",
                "-f", "hevc", annexBPath,
            ])
            mp4 = Array(try Data(contentsOf: URL(fileURLWithPath: mp4Path)))
            annexB = Array(try Data(contentsOf: URL(fileURLWithPath: annexBPath)))
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }

        /// ffmpeg's MD5 of every decoded frame of an Annex-B stream.
        func decodedFrameHashes(_ annexB: [UInt8], name: String) throws -> [String] {
            let path = directory.appendingPathComponent(name).path
            try Data(annexB).write(to: URL(fileURLWithPath: path))
            let output = try SyntaxFixtures.run(SyntaxFixtures.ffmpegPath, [
                "-nostdin", "-loglevel", "error", "-i", path, "-f", "framemd5", "-",
            ])
            return String(decoding: output, as: UTF8.self).split(separator: "\n")
                .filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map(String.init) }
        }
    }

    static let variants: [(tag: String, params: String)] = [
        ("hev1", "keyint=4:open-gop=0"),  // IDR pictures, array_completeness 0
        ("hvc1", "keyint=5"),  // open GOP: CRA pictures with leading RASL pictures, array_completeness 1
    ]

    @Test(arguments: variants)
    func builtRecordEqualsFFmpegsMuxer(tag: String, params: String) throws {
        let fixture = try Fixture(tag: tag, params: params)
        defer { fixture.remove() }
        let hvcC = try BytesMP4Reader(bytes: fixture.mp4).box("hvcC")
        let parsed = try HEVC.DecoderConfigurationRecord(parsing: hvcC)
        #expect(parsed.serialized() == Array(hvcC))
        #expect(parsed.serializedSize == hvcC.count)
        #expect(parsed.warnings.isEmpty)
        #expect(parsed.generalProfileIdc == 1 && parsed.generalLevelIdc == 60)  // level 2, as x265 picks for 320x240
        #expect(parsed.nalUnitLengthSize == 4 && parsed.chromaFormat == 1)
        #expect(parsed.arrays.map(\.nalUnitType) == [.vps, .sps, .pps, .prefixSEI])
        #expect(parsed.arrays.map(\.arrayCompleteness) == [tag == "hvc1", tag == "hvc1", tag == "hvc1", false])

        // Built from the NAL units alone, in another order, the record is the one FFmpeg wrote.
        let nalUnits = parsed.arrays.flatMap(\.nalUnits).reversed()
        let built = try HEVC.DecoderConfigurationRecord(nalUnits: Array(nalUnits), arrayCompleteness: tag == "hvc1")
        #expect(built.serialized() == Array(hvcC))
        #expect(built == parsed)
        let sps = try HEVC.SequenceParameterSet(nalUnit: try #require(built.sequenceParameterSets.first)[...])
        #expect(sps.width == 320 && sps.height == 240)
    }

    /// Samples → Annex-B puts the hvcC's VPS, SPS and PPS in front of each IRAP picture, as hevc_mp4toannexb does
    /// (which also repeats the hvcC's SEI there); the two streams decode to the same frames.
    @Test(arguments: variants)
    func samplesToAnnexBDecodeLikeFFmpegs(tag: String, params: String) throws {
        let fixture = try Fixture(tag: tag, params: params)
        defer { fixture.remove() }
        let reader = BytesMP4Reader(bytes: fixture.mp4)
        let record = try HEVC.DecoderConfigurationRecord(parsing: try reader.box("hvcC"))
        var ours: [UInt8] = []
        var irapSamples = 0
        for sample in try reader.samples() {
            let annexB = try AVCC.toAnnexB(sample, lengthSize: record.nalUnitLengthSize, parameterSets: record)
            #expect(try AVCC.annexBSize(sample, lengthSize: 4, parameterSets: record) == annexB.count)
            let units = HEVC.accessUnits(of: try AnnexB.split(annexB[...]))
            #expect(units.count == 1)
            if units.first?.isIRAP == true {
                irapSamples += 1
                let types = try AnnexB.split(annexB[...]).compactMap { HEVC.NALUnitHeader($0)?.nalUnitType }
                let firstIRAP = try #require(types.firstIndex { $0.isIRAP })
                #expect(Array(types[..<firstIRAP]).filter(\.isParameterSet) == [.vps, .sps, .pps])
            }
            ours += annexB
        }
        #expect(irapSamples == 3)
        let theirs = try AnnexB.split(fixture.annexB[...]).filter { HEVC.NALUnitHeader($0)?.nalUnitType != .prefixSEI }
        let oursWithoutSEI = try AnnexB.split(ours[...]).filter { HEVC.NALUnitHeader($0)?.nalUnitType != .prefixSEI }
        #expect(oursWithoutSEI.map(Array.init) == theirs.map(Array.init))
        let ourFrames = try fixture.decodedFrameHashes(ours, name: "ours.h265")
        #expect(ourFrames.count == 12)
        #expect(ourFrames == (try fixture.decodedFrameHashes(fixture.annexB, name: "theirs.h265")))
    }

    static let x265Record: [UInt8] = {
        let vector = HEVCFixtures.x265Main320x240
        return (try? HEVC.DecoderConfigurationRecord(nalUnits: [vector.vps, vector.sps, vector.pps]))?.serialized() ?? []
    }()

    /// Every strict prefix fails with a typed error; the whole parses; bytes after it are ignored.
    @Test func dripFeed() throws {
        let bytes = Self.x265Record
        try #require(bytes.count > 23)
        for length in 0..<bytes.count {
            #expect(throws: BitstreamError.self) { try HEVC.DecoderConfigurationRecord(parsing: bytes[..<length]) }
        }
        let whole = try HEVC.DecoderConfigurationRecord(parsing: bytes[...])
        #expect(try HEVC.DecoderConfigurationRecord(parsing: (bytes + [0xFF])[...]) == whole)
        #expect(whole.videoParameterSets == [HEVCFixtures.x265Main320x240.vps])
    }

    @Test func versionsAndLengthSizes() throws {
        var bytes = Self.x265Record
        bytes[0] = 0
        let zero = try HEVC.DecoderConfigurationRecord(parsing: bytes[...])
        #expect(zero.warnings.map(\.syntaxElement) == ["configurationVersion"])
        bytes[0] = 2
        #expect { try HEVC.DecoderConfigurationRecord(parsing: bytes[...]) } throws: {
            ($0 as? BitstreamError)?.code == .unsupported
        }
        bytes[0] = 1
        bytes[21] = (bytes[21] & 0xFC) | 2  // lengthSizeMinusOne 2: reserved, read as FFmpeg reads it
        let three = try HEVC.DecoderConfigurationRecord(parsing: bytes[...])
        #expect(three.nalUnitLengthSize == 3)
        #expect(three.warnings.map(\.syntaxElement) == ["lengthSizeMinusOne"])
        #expect(three.warnings.map(\.offset) == [21])
        #expect(three.serialized() == bytes)
        #expect(throws: BitstreamError.self) {
            try HEVC.DecoderConfigurationRecord(nalUnits: [HEVCFixtures.x265Main320x240.sps])
        }
    }
}
