import Bitstream
import Foundation
import TestSupport
import Testing

/// `rtenc annexb` must give the NAL units `ffmpeg -c copy -bsf:v h264_mp4toannexb` gives for the same MP4.
@Suite struct AnnexBCommandTests {
    static let cases: [(name: String, arguments: [String])] = [
        ("baseline, IDR every 15 frames", ["-profile:v", "baseline", "-g", "15"]),
        ("high with B-frames, 2 slices", ["-profile:v", "high", "-bf", "2", "-g", "12", "-x264-params", "slices=2"]),
    ]

    @Test(arguments: cases.indices)
    func sameNALUnitsAsFFmpeg(_ index: Int) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mp4 = dir.appendingPathComponent("in.mp4").path
        let ours = dir.appendingPathComponent("ours.h264").path
        let theirs = dir.appendingPathComponent("theirs.h264").path
        try LavfiMedia.testsrc2(mp4, size: "320x240", frames: 40,
                               arguments: ["-c:v", "libx264", "-preset", "ultrafast"] + Self.cases[index].arguments)
        let converted = try CLIRunner.rtenc(["annexb", mp4, "-o", ours])
        try #require(converted.status == 0, "\(converted.stderrText)")
        let reference = try CLIRunner.run("ffmpeg", [
            "-loglevel", "error", "-y", "-i", mp4, "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264", theirs,
        ], timeout: 60)
        try #require(reference.status == 0, "\(reference.stderrText)")

        let ourBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ours)))
        let theirBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: theirs)))
        let ourNALs = try AnnexB.split(ourBytes[...]).map { Array($0) }
        let theirNALs = try AnnexB.split(theirBytes[...]).map { Array($0) }
        #expect(ourNALs.count == theirNALs.count)
        #expect(ourNALs == theirNALs)
        // Parameter sets were put in front of every IDR, not only the first.
        let idrs = ourNALs.indices.filter { ourNALs[$0].first.map { $0 & 0x1F } == 5 }
        #expect(idrs.count >= 3)
        for idr in idrs where idr > 0 {
            let before = ourNALs[..<idr].last.map { $0[0] & 0x1F }
            #expect(before == 8 || before == 5, "IDR at NAL \(idr) lacks a PPS in front")
        }
    }

    @Test func badInputsFailInOneLineAndLeaveNoOutput() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let garbage = dir.appendingPathComponent("garbage.mp4")
        try Data("definitely not an mp4 file".utf8).write(to: garbage)
        let annexB = dir.appendingPathComponent("raw.h264")
        try LavfiMedia.testsrc2(annexB.path, size: "160x120", frames: 5, arguments: ["-c:v", "libx264", "-f", "h264"])
        for input in [dir.appendingPathComponent("missing.mp4").path, garbage.path, annexB.path] {
            let output = dir.appendingPathComponent("out.h264").path
            let result = try CLIRunner.rtenc(["annexb", input, "-o", output])
            #expect(result.status == 1, "\(input)")
            #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
            #expect(result.stderrText.hasPrefix("rtenc: annexb: "))
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }
}
