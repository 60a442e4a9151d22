import Bitstream
import Foundation
import Testing
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
    /// HEVC Annex-B → access units: a new one begins (H.265 §7.4.2.4.4) at an AUD, VPS, SPS, PPS or prefix SEI, or at a
    /// slice segment with first_slice_segment_in_pic_flag, once the current one holds a slice.
    static func hevcAccessUnits(_ bytes: [UInt8]) throws -> [[ArraySlice<UInt8>]] {
        var accessUnits: [[ArraySlice<UInt8>]] = []
        var current: [ArraySlice<UInt8>] = []
        var hasSlice = false
        try AnnexB.forEachNALUnit(in: bytes[...]) { unit in
            let type = HEVC.NALUnitType(rawValue: (unit[unit.startIndex] >> 1) & 0x3F)
            let firstSlice = type.isVCL && unit.count > 2 && unit[unit.startIndex + 2] & 0x80 != 0
            let beginsAccessUnit = firstSlice || (32 ... 35).contains(type.rawValue) || type == .prefixSEI
                || (41 ... 44).contains(type.rawValue)
            if hasSlice && beginsAccessUnit {
                accessUnits.append(current)
                current = []
                hasSlice = false
            }
            current.append(unit)
            hasSlice = hasSlice || type.isVCL
        }
        if !current.isEmpty { accessUnits.append(current) }
        return accessUnits
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
