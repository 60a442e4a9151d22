// Test helpers of the byte layer (Annex-B, AVCC, avcC). Names carry "ByteLayer"/"Bytes" so they cannot collide
// with the syntax layer's helpers in the same test target.

import Bitstream
import Foundation
import TestSupport
import Testing

/// Runs `body` and checks it throws a BitstreamError with `code` (and `offset`, when given).
func expectByteLayerError(
    _ code: BitstreamError.Code, offset: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected \(code), nothing thrown", sourceLocation: sourceLocation)
    } catch {
        guard let error = error as? BitstreamError else {
            Issue.record("expected a BitstreamError, got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        if let offset {
            #expect(error.offset == offset, "\(error)", sourceLocation: sourceLocation)
        }
    }
}

/// `bytes` copied into the middle of a larger array, so the returned slice has a non-zero startIndex and
/// neighbours that must never leak into results.
func bytesEmbedded(_ bytes: [UInt8], padding: Int = 7) -> ArraySlice<UInt8> {
    let storage = [UInt8](repeating: 0xEE, count: padding) + bytes + [UInt8](repeating: 0xEE, count: padding)
    return storage[padding..<(padding + bytes.count)]
}

/// Files made by ffmpeg/x264 once per test run:
/// - `mp4`: 10 frames of testsrc2 at 320x240, libx264 High profile, an IDR every 4 frames, written straight to
///   MP4, so the SPS/PPS live only in the avcC box (global header) and the samples carry none.
/// - `annexB`: the same MP4 through `-c copy -bsf:v h264_mp4toannexb -f h264`, i.e. FFmpeg's own AVCC → Annex-B
///   conversion with parameter sets put in front of each IDR.
struct BytesFFmpegFixture: Sendable {
    let mp4: [UInt8]
    let annexB: [UInt8]

    static let shared: Result<BytesFFmpegFixture, BytesFixtureError> = make()

    private static func make() -> Result<BytesFFmpegFixture, BytesFixtureError> {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rtenc-bytes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let mp4 = directory.appendingPathComponent("x264-high-320x240.mp4").path
            let h264 = directory.appendingPathComponent("x264-high-320x240.h264").path
            try runFFmpeg([
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "10",
                "-c:v", "libx264", "-preset", "veryfast", "-g", "4", "-x264-params", "scenecut=0",
                "-pix_fmt", "yuv420p", "-f", "mp4", mp4,
            ])
            try runFFmpeg(["-i", mp4, "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264", h264])
            return .success(BytesFFmpegFixture(
                mp4: [UInt8](try Data(contentsOf: URL(fileURLWithPath: mp4))),
                annexB: [UInt8](try Data(contentsOf: URL(fileURLWithPath: h264)))
            ))
        } catch let error as BytesFixtureError {
            return .failure(error)
        } catch {
            return .failure(BytesFixtureError(message: "\(error)"))
        }
    }

    /// Runs ffmpeg with a 60 s deadline.
    private static func runFFmpeg(_ arguments: [String]) throws {
        do {
            _ = try Tool.output("ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + arguments, timeout: 60)
        } catch {
            throw BytesFixtureError(message: "\(error)")
        }
    }
}

struct BytesFixtureError: Error, Sendable, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Just enough ISO BMFF (ISO/IEC 14496-12) to take the avcC payload and the samples of a one-track MP4:
/// box header = size u32 + type fourcc (size 1: u64 largesize follows); sample table boxes stsz, stsc, stco/co64.
struct BytesMP4Reader {
    let bytes: [UInt8]

    enum Failure: Error { case malformed(String) }

    func u32(_ at: Int) throws -> Int {
        guard at >= 0, at + 4 <= bytes.count else { throw Failure.malformed("u32 at \(at)") }
        return bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
    }

    func u64(_ at: Int) throws -> Int {
        try u32(at) << 32 | u32(at + 4)
    }

    /// Payload ranges of the child boxes of `range`, keyed by type, in order.
    func boxes(in range: Range<Int>) throws -> [(type: String, payload: Range<Int>)] {
        var result: [(String, Range<Int>)] = []
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            var size = try u32(at)
            var header = 8
            if size == 1 { size = try u64(at + 8); header = 16 }
            if size == 0 { size = range.upperBound - at }
            guard size >= header, at + size <= range.upperBound else { throw Failure.malformed("box at \(at)") }
            let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
            result.append((type, (at + header)..<(at + size)))
            at += size
        }
        return result
    }

    func child(_ type: String, in range: Range<Int>) throws -> Range<Int> {
        guard let box = try boxes(in: range).first(where: { $0.type == type }) else {
            throw Failure.malformed("no \(type) box")
        }
        return box.payload
    }

    /// The payload of the avcC box, found by its fourcc as the brief of this test suggests.
    func avcC() throws -> ArraySlice<UInt8> {
        guard let fourcc = bytes.indices.dropFirst(4).first(where: { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual("avcC".utf8) }) else {
            throw Failure.malformed("no avcC")
        }
        let size = try u32(fourcc - 4)
        return bytes[(fourcc + 4)..<(fourcc - 4 + size)]
    }

    /// The samples of the first track, in decode order.
    func samples() throws -> [ArraySlice<UInt8>] {
        let moov = try child("moov", in: 0..<bytes.count)
        let stbl = try child("stbl", in: child("minf", in: child("mdia", in: child("trak", in: moov))))
        let stsz = try child("stsz", in: stbl)
        // stsz: version/flags u32, sample_size u32, sample_count u32, entry_size u32 × count.
        let fixedSize = try u32(stsz.lowerBound + 4)
        let sampleCount = try u32(stsz.lowerBound + 8)
        let sizes = try (0..<sampleCount).map { fixedSize != 0 ? fixedSize : try u32(stsz.lowerBound + 12 + 4 * $0) }
        // stco / co64: version/flags, entry_count, chunk_offset × count.
        let boxList = try boxes(in: stbl)
        var chunkOffsets: [Int] = []
        if let stco = boxList.first(where: { $0.type == "stco" })?.payload {
            chunkOffsets = try (0..<u32(stco.lowerBound + 4)).map { try u32(stco.lowerBound + 8 + 4 * $0) }
        } else if let co64 = boxList.first(where: { $0.type == "co64" })?.payload {
            chunkOffsets = try (0..<u32(co64.lowerBound + 4)).map { try u64(co64.lowerBound + 8 + 8 * $0) }
        }
        // stsc: version/flags, entry_count, (first_chunk, samples_per_chunk, sample_description_index) × count.
        let stsc = try child("stsc", in: stbl)
        let runs = try (0..<u32(stsc.lowerBound + 4)).map {
            (firstChunk: try u32(stsc.lowerBound + 8 + 12 * $0), perChunk: try u32(stsc.lowerBound + 12 + 12 * $0))
        }
        var samples: [ArraySlice<UInt8>] = []
        for (chunkIndex, chunkOffset) in chunkOffsets.enumerated() {
            let perChunk = runs.last(where: { $0.firstChunk <= chunkIndex + 1 })?.perChunk ?? 0
            var at = chunkOffset
            for _ in 0..<perChunk where samples.count < sizes.count {
                let size = sizes[samples.count]
                guard at + size <= bytes.count else { throw Failure.malformed("sample past end") }
                samples.append(bytes[at..<(at + size)])
                at += size
            }
        }
        guard samples.count == sampleCount else { throw Failure.malformed("\(samples.count) of \(sampleCount) samples") }
        return samples
    }
}
