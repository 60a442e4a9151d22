import Bitstream
import Foundation
import Testing
@testable import RTP
@testable import RTPOut

/// An HEVC NAL unit of `size` bytes (≥ 2) with the 2-byte header of `type`, LayerId `layer` and TID+1 `tid`, then a
/// counting pattern from 2.
func hevcNAL(_ type: UInt8, size: Int, layer: UInt8 = 0, tid: UInt8 = 1, forbidden: Bool = false) -> ArraySlice<UInt8> {
    let header = HEVC.NALUnitHeader(
        forbiddenZeroBit: forbidden, nalUnitType: HEVC.NALUnitType(rawValue: type), nuhLayerId: layer, nuhTemporalIdPlus1: tid
    ).bytes
    var bytes = [header.0, header.1]
    for i in 2 ..< max(size, 2) { bytes.append(UInt8(truncatingIfNeeded: i)) }
    return bytes[...]
}

extension TestAnnexB {
    /// HEVC Annex-B → access units with Bitstream's splitter and grouping (§7.4.2.4.4), as for H.264.
    static func hevcAccessUnits(_ bytes: [UInt8]) throws -> [[ArraySlice<UInt8>]] {
        var nalUnits: [ArraySlice<UInt8>] = []
        try AnnexB.forEachNALUnit(in: bytes[...]) { nalUnits.append($0) }
        return HEVC.accessUnits(of: nalUnits).map(\.nalUnits)
    }
}

extension Fixtures {
    /// x265 Annex-B made by ffmpeg at test time (ultrafast, zerolatency: no B-frames, VPS/SPS/PPS before every IRAP).
    static func x265(size: String = "320x240", frames: Int = 30, gop: Int = 7200, parameters: String = "", in directory: URL) throws -> [UInt8] {
        let path = directory.appendingPathComponent("x265-\(size)-\(frames).h265").path
        let (status, output) = try runTool(ffmpeg, [
            "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30",
            "-frames:v", "\(frames)", "-c:v", "libx265", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "\(gop)",
            "-x265-params", "log-level=error" + (parameters.isEmpty ? "" : ":" + parameters), "-f", "hevc", path,
        ], timeout: 120)
        guard status == 0 else { throw FixtureError(message: "ffmpeg failed: \(output)") }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
