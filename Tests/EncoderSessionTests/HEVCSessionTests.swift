import Bitstream
import Foundation
import Testing

@testable import EncoderSession

/// HEVC through libx265: delay, keyframes, parameter sets and profiles, read from the NAL unit types of the output
/// and cross-checked with ffprobe/ffmpeg (`-f hevc`).
@Suite struct HEVCSessionTests {
    /// The small real-time HEVC configuration: 160×120, libx265 ultrafast, WebRTC's settings.
    static func smallRealTime(averageBitRate: Int = 300_000, format: PixelFormat = .nv12) -> Configuration {
        var configuration = Configuration.realTimeCommunication(
            width: 160, height: 120, averageBitRate: averageBitRate, pixelFormat: format, encoder: .software,
            codec: .hevc)
        configuration.preset = .ultrafast
        return configuration
    }

    /// Indices (contexts) of the frames whose output holds an IDR picture (IDR_W_RADL or IDR_N_LP).
    static func idrFrames(_ outputs: [EncoderOutput]) -> [Int] {
        outputs.compactMap { output in
            guard let frame = output.frame,
                frame.nalUnits.contains(where: { HEVC.NALUnitType(rawValue: $0.type).isIDR })
            else { return nil }
            return output.context as? Int
        }
    }

    @Test(arguments: [PixelFormat.nv12, .i420], [1, 2])
    func realTimeDeliversEachFrameBeforeEncodeReturns(format: PixelFormat, threads: Int) throws {
        _ = TestMedia.quiet
        var configuration = Self.smallRealTime(format: format)
        configuration.threadCount = threads
        let collector = OutputCollector()
        let session = try CompressionSession(configuration: configuration, outputHandler: collector.handler)
        #expect(session.encoderInUse.name == "libx265")
        for index in 0..<45 {
            try session.encode(
                TestMedia.pattern(format: format, width: 160, height: 120, index: index),
                presentationTime: TestMedia.time(index), context: index)
            // Delay 0: this frame's output, and nothing else, arrived during this call.
            #expect(collector.count == index + 1)
            #expect(collector.outputs.last?.context as? Int == index)
        }
        let outputs = collector.outputs
        #expect(outputs.allSatisfy { $0.infoFlags.isEmpty && $0.frame != nil })
        #expect(outputs.allSatisfy { $0.frame?.accessUnit.codec == .hevc })
        #expect(outputs.allSatisfy { $0.frame?.decodeTime == $0.frame?.presentationTime })
        // The first access unit: VPS, SPS, PPS, then the IDR's slice(s), typed by H.265's header.
        let first = try #require(outputs.first?.frame)
        let types = first.nalUnits.map { HEVC.NALUnitType(rawValue: $0.type) }
        #expect(Array(types.prefix(3)) == [.vps, .sps, .pps])
        #expect(types.dropFirst(3).allSatisfy { $0.isIDR })
        #expect(first.isKeyFrame)
        let sets = try #require(first.parameterSets)
        #expect(sets.videoParameterSets.count == 1 && sets.sequenceParameterSets.count == 1)
        #expect(sets.pictureParameterSets.count == 1 && sets.avcC == nil)
        #expect(outputs.dropFirst().allSatisfy { $0.frame?.isKeyFrame == false })
        // No B-frames, every frame decodes (ffprobe, independently of the session's parser).
        let types2 = try ffprobePictureTypes(annexBStream(outputs.compactMap(\.frame)), format: "hevc")
        #expect(types2.count == 45)
        #expect(!types2.contains { $0.contains("B") })
        try session.completeFrames()
        #expect(collector.count == 45)
    }

    @Test func forcedKeyFrameIsThatVeryFrameWithParameterSetsInFront() throws {
        let outputs = try runSession(Self.smallRealTime(), count: 60, options: { FrameOptions(forceKeyFrame: $0 == 37) })
        #expect(Self.idrFrames(outputs) == [0, 37])
        let forced = try #require(outputs.first { $0.context as? Int == 37 }?.frame)
        let types = forced.nalUnits.map { HEVC.NALUnitType(rawValue: $0.type) }
        let firstIDR = try #require(types.firstIndex { $0.isIDR })
        #expect(Array(types.prefix(firstIDR)) == [.vps, .sps, .pps])
        #expect(forced.isKeyFrame)
        // Repeated, identical parameter sets are not reported again.
        #expect(outputs.first?.frame?.parameterSets != nil)
        #expect(forced.parameterSets == nil)
        #expect(outputs.filter { $0.frame?.isKeyFrame == true }.compactMap { $0.context as? Int } == [0, 37])
        let decode = try ffmpegDecode(annexBStream(outputs.compactMap(\.frame)), format: "hevc")
        #expect(decode.frames == 60)
        #expect(decode.errors.isEmpty, "\(decode.errors)")
    }

    @Test func keyFrameIntervalInFramesAndSeconds() throws {
        var configuration = Self.smallRealTime()
        configuration.live.maxKeyFrameInterval = 60
        #expect(Self.idrFrames(try runSession(configuration, count: 200)) == [0, 60, 120, 180])
        // Frames 10 s apart: frame 24 is the first at ≥ 240 s after the IDR at 0 (WebRTC's 240 s limit).
        let outputs = try runSession(
            Self.smallRealTime(), count: 50, time: { MediaTime(value: Int64($0) * 10, timescale: 1) })
        #expect(Self.idrFrames(outputs) == [0, 24, 48])
        // No other keyframe: libx265 places none itself (keyint=-1, scenecut=0).
        let defaults = try runSession(Self.smallRealTime(), count: 300)
        #expect(Self.idrFrames(defaults) == [0])
        #expect(defaults.filter { $0.frame?.isKeyFrame == true }.count == 1)
    }

    @Test func contextsComeBackInOrderNoneLost() throws {
        var configuration = Self.smallRealTime()
        configuration.realTime = false
        configuration.maxFrameDelayCount = nil
        configuration.allowFrameReordering = true
        // Offline with B-frames and lookahead: outputs come from later calls, all contexts still come back.
        let outputs = try runSession(configuration, count: 60)
        #expect(outputs.map { $0.context as? Int } == Array(0..<60))
        #expect(outputs.allSatisfy { $0.frame != nil })
        #expect(outputs.contains { $0.infoFlags.contains(.asynchronous) })
    }
}
