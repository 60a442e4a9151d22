import Bitstream
import Foundation
import Testing

@testable import EncoderSession

/// The session's QP comes from the slice header it parsed; check it against FFmpeg's own parser (trace_headers).
@Suite struct AnalyzerTests {
    /// slice_qp_delta of the first slice of every access unit, and pic_init_qp_minus26, from ffmpeg trace_headers.
    func ffmpegSliceQPs(_ annexB: [UInt8]) throws -> [Int] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rtenc-\(UUID().uuidString).h264")
        try Data(annexB).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = [
            "-hide_banner", "-i", url.path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-",
        ]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var picInit = 0
        var qps: [Int] = []
        var firstSliceOfPicture = false
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let value = fields.last.flatMap({ Int($0) }) else { continue }
            if line.contains("pic_init_qp_minus26") { picInit = value }
            if line.contains("first_mb_in_slice") { firstSliceOfPicture = value == 0 }
            if line.contains("slice_qp_delta"), firstSliceOfPicture { qps.append(26 + picInit + value) }
        }
        return qps
    }

    @Test(arguments: [H264Profile.constrainedBaseline, .main, .high])
    func sliceQPMatchesFFmpeg(profile: H264Profile) throws {
        var configuration = smallRealTime()
        configuration.profileLevel = ProfileLevel(profile: profile, level: nil)
        configuration.preset = .veryfast  // weighted prediction and CABAC for Main/High: more slice header to read
        let outputs = try runSession(
            configuration, count: 40,
            beforeFrame: { index, session in
                if index == 20 { try session.setAverageBitRate(60_000) }
            })
        let ours = outputs.compactMap(\.stats.qp)
        #expect(ours.count == 40)
        let theirs = try ffmpegSliceQPs(annexBStream(outputs.compactMap(\.frame)))
        #expect(ours == theirs)
        #expect(Set(ours).count > 3)
    }

    @Test func spsSaysTheConfiguredSize() throws {
        for (width, height) in [(160, 120), (320, 180), (1280, 720), (1920, 1080)] {
            var configuration = smallRealTime()
            configuration.width = width
            configuration.height = height
            configuration.profileLevel = ProfileLevel(profile: .high, level: nil)
            let outputs = try runSession(configuration, count: 1)
            let sps = try #require(outputs.first?.frame?.parameterSets?.sequenceParameterSets.first)
            let parsed = try H264.SequenceParameterSet(nalUnit: sps[...])
            #expect(parsed.width == width && parsed.height == height)
        }
    }
}
