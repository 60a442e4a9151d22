import Foundation
import RTPOut
import TestSupport
import Testing

/// What `rtenc` maps at start-up: neither full Foundation (with ICU's 38 MB library) nor any libav*/libva library.
/// libavcodec alone pulled in ~96 libraries at every start; each libav library is now opened on first use
/// (`rtenc_libraries.h`), so commands that need none — `send` of an Annex-B file, `annexb` of a plain MP4 — run
/// even where they are missing or broken, and the ones that need them fail with one clear line.
@Suite struct StartupLibrariesTests {
    /// The libraries rtenc opens on demand, as the dynamic loader names them on this machine ("libavcodec.so.59").
    static let onDemand = ["libavcodec", "libavutil", "libswscale", "libavformat", "libva", "libva-drm"]

    @Test func noLibavLibraryIsNeededAtStartUp() throws {
        let elf = try CLIRunner.run("/usr/bin/readelf", ["-d", CLIRunner.rtencPath], timeout: 30)
        #expect(elf.status == 0, "\(elf.stderrText)")
        // " 0x…01 (NEEDED)  Shared library: [libavcodec.so.59]": the name in brackets.
        let needed = elf.stdoutText.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            .compactMap { $0.split(separator: "[").last?.split(separator: "]").first.map(String.init) }
        #expect(needed.contains("libFoundationEssentials.so"), "DT_NEEDED: \(needed)")
        for library in Self.onDemand {
            #expect(!needed.contains { $0.hasPrefix(library + ".so") }, "\(library) is in DT_NEEDED: \(needed)")
        }
        let ldd = try CLIRunner.run("/usr/bin/ldd", [CLIRunner.rtencPath], timeout: 30)
        #expect(ldd.status == 0, "\(ldd.stderrText)")
        let loaded = ldd.stdoutText.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!loaded.contains(library), "\(library) is loaded at start-up")
        }
        for library in Self.onDemand + ["libx264"] {
            #expect(!loaded.contains { $0.hasPrefix(library + ".so") }, "\(library) is loaded at start-up: \(loaded)")
        }
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

    /// A directory first on LD_LIBRARY_PATH whose libavcodec, libavutil, libswscale and libavformat are not
    /// libraries at all (as a broken installation would have them): what needs no codec still works, what does
    /// fails with one line naming the library and the loader's reason, and nothing crashes.
    @Test func brokenLibavOnlyStopsTheCommandsThatNeedIt() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let broken = directory.appendingPathComponent("broken-libav")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        // The sonames as the loader knows them here ("libavcodec.so.59 (libc6,x86-64) => /usr/lib/…").
        let cache = try CLIRunner.run("/sbin/ldconfig", ["-p"], timeout: 30).stdoutText
        var sonames: [String: String] = [:]
        for line in cache.split(separator: "\n") {
            guard let name = line.split(separator: " ").first.map({ String($0).trimmingCharacters(in: .whitespaces) })
            else { continue }
            for library in ["libavcodec", "libavutil", "libswscale", "libavformat"]
            where name.hasPrefix(library + ".so.") && sonames[library] == nil {
                sonames[library] = name
            }
        }
        try #require(sonames.count == 4, "sonames found: \(sonames)")
        for soname in sonames.values {
            try Data("not a shared library\n".utf8).write(to: broken.appendingPathComponent(soname))
        }
        let environment = ProcessInfo.processInfo.environment.merging(["LD_LIBRARY_PATH": broken.path]) { $1 }
        func rtenc(_ arguments: [String]) throws -> ProcessResult {
            try Tool.run(CLIRunner.rtencPath, arguments, timeout: 60, environment: environment)
        }

        let h264 = directory.appendingPathComponent("in.h264").path
        let mp4 = directory.appendingPathComponent("in.mp4").path
        try LavfiMedia.testsrc2(h264, size: "320x240", frames: 30,
                                arguments: ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency"])
        try LavfiMedia.testsrc2(mp4, size: "320x240", frames: 30,
                                arguments: ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency"])

        // No codec needed: send of Annex-B to a bound port nobody reads, and annexb of a plain MP4.
        let sink = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: TestPorts.next()))
        let sent = try rtenc(["send", h264, "--no-pacing", "--to", "127.0.0.1:\(sink.localAddress.port)", "--bye-delay", "0",
                              "--sdp", directory.appendingPathComponent("s.sdp").path, "--quiet"])
        #expect(sent.status == 0, "\(sent.stderrText)")
        let converted = directory.appendingPathComponent("out.h264").path
        let annexb = try rtenc(["annexb", mp4, "-o", converted])
        #expect(annexb.status == 0, "\(annexb.stderrText)")
        let reference = try CLIRunner.rtenc(["annexb", mp4, "-o", directory.appendingPathComponent("ref.h264").path])
        #expect(reference.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: converted))
                == Data(contentsOf: directory.appendingPathComponent("ref.h264")))

        // Codec needed: one line, status 1, the library named with the loader's reason.
        for arguments in [["encode", "testsrc", "--frames", "2", "--size", "160x120", "--encoder", "software",
                           "-o", directory.appendingPathComponent("x.h264").path],
                          ["probe", "--dri-directory", directory.path]] {
            let failed = try rtenc(arguments)
            #expect(failed.status == 1, "\(arguments[0]): \(failed.stderrText)")
            let lines = failed.stderrText.split(separator: "\n")
            #expect(lines.count == 1 && lines.first?.hasPrefix("rtenc: ") == true, "\(arguments[0]): \(failed.stderrText)")
            #expect(failed.stderrText.contains(sonames["libavcodec"]!), "\(arguments[0]): \(failed.stderrText)")
            #expect(failed.stderrText.contains("invalid ELF header") || failed.stderrText.contains("too short"),
                    "\(arguments[0]): \(failed.stderrText)")
        }
    }
}
