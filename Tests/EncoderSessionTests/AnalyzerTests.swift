import Bitstream
import Foundation
import Testing

@testable import EncoderSession

/// The session's QP comes from the slice header it parsed; check it against FFmpeg's own parser (trace_headers).
@Suite struct AnalyzerTests {
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
