import Foundation
import TestSupport
import Testing

/// What `rtenc` maps at start-up, as the dynamic loader resolves it (`ldd`): neither full Foundation (with ICU's
/// 38 MB library) nor libavformat and the 38 libraries only it needs. libavformat is opened on first use (a .mp4 or
/// any file libavformat reads), which the encode tests of .mp4 output exercise.
@Suite struct StartupLibrariesTests {
    @Test func startUpLoadsNeitherFullFoundationNorLibavformat() throws {
        let result = try CLIRunner.run("/usr/bin/ldd", [CLIRunner.rtencPath], timeout: 30)
        #expect(result.status == 0, "\(result.stderrText)")
        // "\tlibavcodec.so.59 => /usr/lib/x86_64-linux-gnu/libavcodec.so.59 (0x…)": the first word of each line.
        let loaded = result.stdoutText.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(loaded.contains { $0.hasPrefix("libavcodec.so") }, "ldd output: \(loaded)")
        #expect(loaded.contains("libFoundationEssentials.so"), "swift-argument-parser's FoundationEssentials")
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!loaded.contains(library), "\(library) is loaded at start-up")
        }
        #expect(!loaded.contains { $0.hasPrefix("libavformat.so") }, "libavformat is loaded at start-up")
    }

    @Test func mp4OutputOpensLibavformatOnDemand() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("lazy.mp4").path
        let result = try CLIRunner.rtenc(["encode", "testsrc", "--frames", "10", "--size", "160x120", "-o", output,
                                          "--encoder", "software", "--quiet"])
        #expect(result.status == 0, "\(result.stderrText)")
        let probe = try CLIRunner.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                                                           "stream=codec_name,nb_read_frames", "-of", "csv=p=0", output])
        #expect(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "h264,10")
    }
}
