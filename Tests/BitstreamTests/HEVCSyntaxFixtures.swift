import Bitstream
import Foundation
import TestSupport
import Testing

/// H.265 helpers beside `SyntaxFixtures`: byte vectors x265 wrote (committed inline, named after their producer)
/// and streams made by ffmpeg/libx265 at test time.
enum HEVCFixtures {
    /// Parameter sets of `ffmpeg -f lavfi -i testsrc2=size=…:rate=30 -c:v libx265` with x265 3.5+1 (build 199,
    /// Debian bookworm), default preset unless named.
    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var vps: [UInt8]
        var sps: [UInt8]
        var pps: [UInt8]
        var width: Int
        var height: Int
        var profile: HEVC.Profile
        var bitDepth: Int
        var fps: Double?
        var testDescription: String { name }
    }

    static let x265Main320x240 = Vector(
        name: "x265-3.5-main-320x240",
        vps: bytes("40010c01ffff01600000030090000003000003003c959809"),
        sps: bytes("42010101600000030090000003000003003ca00a080f165959a4932bc05a020000030002000003003c10"),
        pps: bytes("4401c172b46240"), width: 320, height: 240, profile: .main, bitDepth: 8, fps: 30)

    static let vectors: [Vector] = [
        x265Main320x240,
        Vector(
            name: "x265-3.5-main10-320x240",
            vps: bytes("40010c01ffff02200000030090000003000003003c959809"),
            sps: bytes("42010102200000030090000003000003003ca00a080f1365959a4932bc05a020000003002000000303c1"),
            pps: bytes("4401c172b46240"), width: 320, height: 240, profile: .main10, bitDepth: 10, fps: 30),
        // 318x238 is coded as 320x240 with conf_win_right_offset = conf_win_bottom_offset = 1 (in chroma units).
        Vector(
            name: "x265-3.5-main-318x238",
            vps: bytes("40010c01ffff01600000030090000003000003003c959809"),
            sps: bytes("42010101600000030090000003000003003ca00a080f1d565959a4932bc05a020000030002000003003c10"),
            pps: bytes("4401c172b46240"), width: 318, height: 238, profile: .main, bitDepth: 8, fps: 30),
        // -x265-params vui-timing-info=0: no timing in the VUI (ffprobe guesses 25 fps).
        Vector(
            name: "x265-3.5-main-320x240-notiming",
            vps: bytes("40010c01ffff01600000030090000003000003003c959809"),
            sps: bytes("42010101600000030090000003000003003ca00a080f165959a4932bc05a0020"),
            pps: bytes("4401c172b46240"), width: 320, height: 240, profile: .main, bitDepth: 8, fps: nil),
        // -b:v 500k -x265-params vbv-maxrate=600:vbv-bufsize=600:hrd=1: hrd_parameters( ) in the VUI.
        Vector(
            name: "x265-3.5-main-320x240-hrd",
            vps: bytes("40010c01ffff01600000030090000003000003003c959809"),
            sps: bytes("42010101600000030090000003000003003ca00a080f165959a4932bc05a020000030002000003003cc0292cdc00124f800249f1"),
            pps: bytes("4401c172b46240"), width: 320, height: 240, profile: .main, bitDepth: 8, fps: 30),
        // -preset ultrafast -tune zerolatency.
        Vector(
            name: "x265-3.5-main-320x240-ultrafast-zerolatency",
            vps: bytes("40010c01ffff01600000030090000003000003003cba0240"),
            sps: bytes("42010101600000030090000003000003003ca00a080f165ba4a4c2f0168080000003008000000f04"),
            pps: bytes("4401c0718312"), width: 320, height: 240, profile: .main, bitDepth: 8, fps: 30),
    ]

    static func bytes(_ hex: String) -> [UInt8] { ForeignParameterSets.bytes(hex) }

    /// Encodes `frames` frames of testsrc2 with libx265 into a raw .h265 file in a fresh temporary directory.
    /// Callers `defer { stream.remove() }`.
    static func x265(
        size: String = "160x120", rate: String = "30", frames: Int = 3, pixelFormat: String = "yuv420p",
        params: String = "", _ options: [String] = []
    ) throws -> SyntaxFixtures.EncodedStream {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rtenc-hevc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("x265.h265").path
        do {
            _ = try SyntaxFixtures.run(
                SyntaxFixtures.ffmpegPath,
                ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate)",
                 "-frames:v", "\(frames)", "-pix_fmt", pixelFormat, "-c:v", "libx265",
                 "-x265-params", "log-level=error" + (params.isEmpty ? "" : ":" + params)] + options
                    + ["-f", "hevc", path],
                timeout: 60)
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            return SyntaxFixtures.EncodedStream(bytes: bytes, path: path, directory: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    static func nalType(_ nal: ArraySlice<UInt8>) -> HEVC.NALUnitType {
        HEVC.NALUnitHeader(nal).map(\.nalUnitType) ?? HEVC.NALUnitType(rawValue: 63)
    }

    static func first(_ type: HEVC.NALUnitType, in bytes: [UInt8]) throws -> ArraySlice<UInt8> {
        guard let nal = SyntaxFixtures.nalUnits(annexB: bytes).first(where: { nalType($0) == type }) else {
            throw ToolError("no \(type) in the stream")
        }
        return nal
    }
}
