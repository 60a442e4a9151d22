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

    /// NAL unit types by the codec's header: the same bytes are H.264 type 1 (0x41 & 0x1F) and H.265 type 32
    /// ((0x41 >> 1) & 0x3F); a one-byte NAL unit cannot hold H.265's two-byte header.
    @Test(arguments: [
        ([0, 0, 0, 1, 0x40, 0x01, 0xAA, 0, 0, 1, 0x42, 0x01, 0xBB, 0, 0, 1, 0x26, 0x01, 0xCC] as [UInt8], VideoCodec.hevc,
         [32, 33, 19] as [UInt8]?),  // VPS, SPS, IDR_W_RADL
        ([0, 0, 0, 1, 0x0E, 0x01, 0xDD] as [UInt8], .hevc, [7] as [UInt8]?),  // RADL_R: type 7 in H.265, not an SPS
        ([0, 0, 0, 1, 0x67, 0x42, 0, 0, 1, 0x68, 0xCE, 0, 0, 1, 0x65, 0x88] as [UInt8], .h264, [7, 8, 5] as [UInt8]?),
        ([0, 0, 0, 1, 0x40, 0x01, 0, 0, 1, 0x26] as [UInt8], .hevc, nil),  // a 1-byte NAL unit
    ])
    func nalUnitTypesFollowTheCodec(annexB: [UInt8], codec: VideoCodec, types: [UInt8]?) {
        do {
            let units = try FrameAnalyzer.nalUnits(of: annexB, codec: codec)
            #expect(units.map(\.type) == types)
        } catch {
            #expect(types == nil)
            #expect(error.code == .malformedOutput)
        }
    }

    /// The H.264 SPS flag patch never touches HEVC output: an HEVC access unit whose NAL unit type is 7 (RADL_R, the
    /// number of H.264's SPS) keeps its bytes.
    @Test func theH264PatchLeavesHEVCAlone() throws {
        var configuration = HEVCSessionTests.smallRealTime()
        configuration.encoder = .software
        let engine = try EncoderEngine(configuration: configuration, factory: LibAVBackendFactory())
        let original: [UInt8] = [0, 0, 0, 1, 0x0E, 0x01, 0x12, 0x34, 0x56]
        var bytes = original
        engine.patchParameterSets(in: &bytes, nalUnits: try FrameAnalyzer.nalUnits(of: bytes, codec: .hevc))
        #expect(bytes == original)
        var h264 = original
        let h264Engine = try EncoderEngine(configuration: smallRealTime(), factory: LibAVBackendFactory())
        h264Engine.patchParameterSets(in: &h264, nalUnits: [.init(type: 7, range: 4..<9)])
        #expect(h264 != original, "the patch did not run for H.264 either: the test proves nothing")
    }
}
