import Bitstream
import Foundation
import TestSupport
import Testing

/// `rtenc inspect` on what other encoders and containers make (issue 12): OpenH264 through GStreamer, MP4 and
/// Matroska from ffmpeg, and an SPS whose VUI is cut short — each compared with ffprobe on the same file.
@Suite struct InspectForeignTests {
    /// Whether GStreamer's openh264enc is installed (gstreamer1.0-plugins-bad with libopenh264, scripts/deps.sh).
    static let openH264Available: Bool = {
        guard let result = try? Tool.run("/usr/bin/gst-inspect-1.0", ["openh264enc"], timeout: 30) else { return false }
        return !result.timedOut && result.status == 0
    }()

    struct OpenH264Case: CustomTestStringConvertible, Sendable {
        var size: String
        var settings: [String] = []
        var frames = 12
        var testDescription: String { ([size] + settings).joined(separator: " ") }
    }

    static let openH264Cases: [OpenH264Case] = [
        OpenH264Case(size: "100x60"),
        OpenH264Case(size: "160x120", settings: ["gop-size=5"]),
        OpenH264Case(size: "352x288", settings: ["usage-type=screen"]),
        OpenH264Case(size: "640x480", settings: ["rate-control=bitrate", "bitrate=2000000", "slice-mode=n-slices",
                                                 "num-slices=2"]),
        OpenH264Case(size: "1280x720", settings: ["gop-size=4", "complexity=high"], frames: 8),
    ]

    /// The stream: every OpenH264 SPS has log2_max_mv_length_* = 16, which inspect refused.
    @Test(.enabled(if: openH264Available), arguments: openH264Cases)
    func openH264AgreesWithFFprobe(_ testCase: OpenH264Case) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("openh264.h264").path
        let parts = testCase.size.split(separator: "x")
        _ = try Tool.output("/usr/bin/gst-launch-1.0", [
            "-q", "videotestsrc", "num-buffers=\(testCase.frames)", "!",
            "video/x-raw,width=\(parts[0]),height=\(parts[1]),framerate=30/1", "!", "openh264enc",
        ] + testCase.settings + ["!", "h264parse", "!", "filesink", "location=\(file)"], timeout: 60)

        let ours = try Self.compareWithFFprobe(file, frames: testCase.frames)
        let warnings = try #require(ours["warnings"] as? [[String: Any]])
        #expect(warnings.contains { $0["syntax_element"] as? String == "log2_max_mv_length_horizontal" })
        #expect(warnings.allSatisfy { $0["structure"] as? String == "sps" && $0["code"] as? String == "outOfRange" })

        let summary = try CLIRunner.rtenc(["inspect", "--summary", file])
        #expect(summary.status == 0, "\(summary.stderrText)")
        #expect(summary.stdoutText.contains("H.264 constrained-baseline @ "))
        #expect(summary.stdoutText.contains(", \(testCase.size), "))
        #expect(summary.stdoutText.contains("warning: NAL unit "))
        #expect(summary.stdoutText.contains("log2_max_mv_length_horizontal: 16 exceeds 15"))
    }

    /// inspect reads containers itself, as ffprobe does: MP4 and Matroska (AVCC samples), MPEG-TS (Annex-B).
    @Test(arguments: ["mp4", "mkv", "ts"])
    func containerAgreesWithFFprobe(_ container: String) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("clip.\(container)").path
        try LavfiMedia.testsrc2(file, size: "320x180", frames: 14, rate: 25, arguments: [
            "-c:v", "libx264", "-preset", "ultrafast", "-profile:v", "main", "-g", "6", "-bf", "2",
            "-x264-params", "scenecut=0",
        ])
        let ours = try Self.compareWithFFprobe(file, frames: 14)
        #expect((ours["container"] as? String)?.isEmpty == false)
        #expect(ours["container"] as? String != "annexb")

        let summary = try CLIRunner.rtenc(["inspect", "--summary", file])
        #expect(summary.status == 0, "\(summary.stderrText)")
        #expect(summary.stdoutText.hasPrefix("\(file) (from "))
        #expect(summary.stdoutText.contains("H.264 main @ "))
        #expect(summary.stdoutText.contains(", 320x180, 25 fps"))
    }

    /// A file that is neither Annex-B nor a container with H.264: one line, status 1.
    @Test func noH264TrackIsOneLine() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("clip.mkv").path
        try LavfiMedia.testsrc2(file, size: "160x120", frames: 2, arguments: ["-c:v", "mpeg4"])
        let result = try CLIRunner.rtenc(["inspect", file])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
        #expect(result.stderrText.contains("not H.264"), "\(result.stderrText)")
    }

    /// An x264 stream whose SPS loses its last bytes (the end of the VUI and the stop bit): FFmpeg warns
    /// "Overread VUI" and decodes; inspect keeps the size, marks the VUI truncated and warns.
    @Test(arguments: [1, 3, 6])
    func vuiCutShortAgreesWithFFprobe(_ bytesCut: Int) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("x264.h264").path
        try LavfiMedia.testsrc2(source, size: "200x120", frames: 6, arguments: [
            "-c:v", "libx264", "-preset", "ultrafast", "-f", "h264",
        ])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        // The SPS runs from its header byte to the next start code (x264 writes 00 00 00 01 before the PPS).
        let spsStart = try #require(Self.find([0, 0, 0, 1, 0x67], in: bytes)) + 4
        let spsEnd = try #require(Self.find([0, 0, 0, 1], in: bytes, from: spsStart))
        bytes.removeSubrange((spsEnd - bytesCut)..<spsEnd)
        let file = dir.appendingPathComponent("cut.h264").path
        try Data(bytes).write(to: URL(fileURLWithPath: file))

        let ours = try Self.compareWithFFprobe(file, frames: 6)
        let sps = try #require((ours["sps"] as? [[String: Any]])?.first)
        let vui = try #require(sps["vui_parameters"] as? [String: Any])
        #expect(vui["truncated"] as? Bool == true)
        let warnings = try #require(ours["warnings"] as? [[String: Any]])
        #expect(warnings.contains { $0["code"] as? String == "truncated" && $0["syntax_element"] as? String == "vui_parameters" })

        let summary = try CLIRunner.rtenc(["inspect", "--summary", file])
        #expect(summary.stdoutText.contains("200x120"))
        #expect(summary.stdoutText.contains("VUI truncated"))
    }

    /// `--summary` spells the profile as `--profile` takes it: each value encoded by rtenc and read back.
    @Test(arguments: ["baseline", "constrained-baseline", "main", "high", "constrained-high"])
    func summarySpellsTheProfileAsTheFlag(_ profile: String) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("out.h264").path
        let encoded = try CLIRunner.rtenc([
            "encode", "testsrc", "--frames", "3", "--size", "160x120", "--profile", profile, "-o", file, "--quiet",
        ], timeout: 60)
        try #require(encoded.status == 0, "\(encoded.stderrText)")
        let summary = try CLIRunner.rtenc(["inspect", "--summary", file])
        #expect(summary.status == 0, "\(summary.stderrText)")
        #expect(summary.stdoutText.contains("H.264 \(profile) @ "), "\(summary.stdoutText)")
    }

    /// Every collected SPS (OpenH264, mediacommon, libwebrtc: `ForeignParameterSets`) in a stream with a PPS and an
    /// IDR slice header, whole and with its last one or two bytes cut off (a VUI cut short): where ffprobe reports
    /// the stream, `rtenc inspect` reports the same size, profile and level; whole, also the fixture's warnings.
    @Test(arguments: ForeignParameterSets.fixtures)
    func everyFixtureAgreesWithFFprobe(_ fixture: ForeignParameterSets.Fixture) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for cut in 0...2 {
            let bytes = Array(fixture.bytes.dropLast(cut))
            // Only cuts that leave the picture size readable (the parser refuses the others, as it must).
            guard let sps = try? H264.SequenceParameterSet(nalUnit: bytes[...]) else { continue }
            if let vui = sps.vuiParameters, vui.aspectRatioInfoPresentFlag, vui.aspectRatioIdc == nil {
                continue  // cut inside aspect_ratio_idc: FFmpeg 5.1 reads garbage there and refuses the SPS
            }
            let file = dir.appendingPathComponent("\(fixture.name)-cut\(cut).h264").path
            let syntax = ForeignParameterSets.SliceSyntax(
                separateColourPlane: sps.separateColourPlaneFlag, log2MaxFrameNum: sps.log2MaxFrameNum,
                frameMbsOnly: sps.frameMbsOnlyFlag, picOrderCntType: sps.picOrderCntType,
                log2MaxPicOrderCntLsb: sps.log2MaxPicOrderCntLsb,
                deltaPicOrderAlwaysZero: sps.deltaPicOrderAlwaysZeroFlag ?? false)
            try Data(ForeignParameterSets.stream(sps: bytes, slice: syntax)).write(to: URL(fileURLWithPath: file))

            let inspected = try CLIRunner.rtenc(["inspect", file])
            try #require(inspected.status == 0, "cut \(cut): \(inspected.stderrText)")
            let ours = try #require(try JSONSerialization.jsonObject(with: inspected.stdout) as? [String: Any])
            let ourSPS = try #require((ours["sps"] as? [[String: Any]])?.first)
            let probed = try CLIRunner.run("/usr/bin/ffprobe", [
                "-loglevel", "error", "-select_streams", "v:0", "-show_streams", "-of", "json", file,
            ])
            let stream = try #require(
                ((try JSONSerialization.jsonObject(with: probed.stdout) as? [String: Any])?["streams"] as? [[String: Any]])?.first)
            #expect(ourSPS["width"] as? Int == stream["width"] as? Int, "cut \(cut)")
            #expect(ourSPS["height"] as? Int == stream["height"] as? Int, "cut \(cut)")
            #expect(ourSPS["profile"] as? String == stream["profile"] as? String, "cut \(cut)")
            #expect(ourSPS["level_idc"] as? Int == stream["level"] as? Int, "cut \(cut)")
            #expect(ourSPS["width"] as? Int == fixture.width && ourSPS["height"] as? Int == fixture.height)
            let codes = (ours["warnings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            if cut == 0 {
                #expect(codes == fixture.warnings)
            } else {
                #expect(codes.contains("truncated"), "cut \(cut): \(codes)")
            }
        }
    }

    // MARK: Helpers

    static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int = 0) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        return (start...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// Runs `rtenc inspect` and ffprobe on `file` and checks they agree: size, profile, level, one access unit per
    /// packet, the same keyframes. Returns rtenc's JSON.
    static func compareWithFFprobe(_ file: String, frames: Int) throws -> [String: Any] {
        let inspected = try CLIRunner.rtenc(["inspect", file], timeout: 60)
        try #require(inspected.status == 0, "rtenc inspect failed: \(inspected.stderrText)")
        let ours = try #require(try JSONSerialization.jsonObject(with: inspected.stdout) as? [String: Any])

        let probed = try CLIRunner.run("/usr/bin/ffprobe", [
            "-loglevel", "error", "-select_streams", "v:0", "-show_streams", "-show_packets", "-of", "json", file,
        ], timeout: 60)
        try #require(probed.status == 0, "ffprobe failed: \(probed.stderrText)")
        let theirs = try #require(try JSONSerialization.jsonObject(with: probed.stdout) as? [String: Any])
        let stream = try #require((theirs["streams"] as? [[String: Any]])?.first)
        let packets = try #require(theirs["packets"] as? [[String: Any]])

        let sps = try #require((ours["sps"] as? [[String: Any]])?.first)
        #expect(sps["width"] as? Int == stream["width"] as? Int)
        #expect(sps["height"] as? Int == stream["height"] as? Int)
        #expect(sps["level_idc"] as? Int == stream["level"] as? Int)
        #expect(sps["profile"] as? String == stream["profile"] as? String)

        let accessUnits = try #require(ours["access_units"] as? [[String: Any]])
        #expect(accessUnits.count == frames)
        #expect(accessUnits.count == packets.count)
        // ffprobe lists packets in file (decode) order, as inspect lists access units.
        let ourKeyframes = accessUnits.enumerated().filter { $0.element["idr"] as? Bool == true }.map(\.offset)
        let theirKeyframes = packets.enumerated()
            .filter { ($0.element["flags"] as? String)?.hasPrefix("K") == true }.map(\.offset)
        #expect(ourKeyframes == theirKeyframes)
        #expect(ourKeyframes.first == 0)
        return ours
    }
}
