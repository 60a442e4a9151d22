import Bitstream
import Foundation
import TestSupport
import Testing

/// `rtenc annexb` on H.265 MP4s from ffmpeg/libx265 must decode to the frames `ffmpeg -bsf:v hevc_mp4toannexb`
/// gives, with VPS/SPS/PPS in front of every IRAP picture (ffmpeg also repeats the hvcC's SEI there; rtenc does not).
@Suite struct AnnexBHEVCCommandTests {
    static let cases: [(name: String, arguments: [String])] = [
        ("hev1, IDR every 8 frames", ["-x265-params", "log-level=error:keyint=8:open-gop=0"]),
        ("hvc1, open GOP with B-frames", ["-tag:v", "hvc1", "-x265-params", "log-level=error:keyint=10:bframes=3"]),
    ]

    static func frameHashes(_ path: String) throws -> [Substring] {
        let result = try CLIRunner.run("ffmpeg", ["-loglevel", "error", "-i", path, "-f", "framemd5", "-"], timeout: 60)
        try #require(result.status == 0, "\(result.stderrText)")
        return result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }
    }

    @Test(arguments: cases.indices)
    func decodesLikeFFmpegs(_ index: Int) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mp4 = dir.appendingPathComponent("in.mp4").path
        let ours = dir.appendingPathComponent("ours.h265").path
        let theirs = dir.appendingPathComponent("theirs.h265").path
        try LavfiMedia.testsrc2(mp4, size: "320x240", frames: 30,
                               arguments: ["-c:v", "libx265", "-preset", "ultrafast"] + Self.cases[index].arguments)
        let converted = try CLIRunner.rtenc(["annexb", mp4, "-o", ours])
        try #require(converted.status == 0, "\(converted.stderrText)")
        let reference = try CLIRunner.run("ffmpeg", [
            "-loglevel", "error", "-y", "-i", mp4, "-c", "copy", "-bsf:v", "hevc_mp4toannexb", "-f", "hevc", theirs,
        ], timeout: 60)
        try #require(reference.status == 0, "\(reference.stderrText)")

        let ourFrames = try Self.frameHashes(ours)
        #expect(ourFrames.count == 30)
        #expect(ourFrames == (try Self.frameHashes(theirs)))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ours)))
        let units = HEVC.accessUnits(of: try AnnexB.split(bytes[...]))
        #expect(units.count == 30)
        let irap = units.filter(\.isIRAP)
        #expect(irap.count >= 3)
        for unit in irap {
            #expect(Array(unit.nalUnitTypes.filter(\.isParameterSet)) == [.vps, .sps, .pps])
        }
    }
}
