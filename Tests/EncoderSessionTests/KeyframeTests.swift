import Bitstream
import Testing

@testable import EncoderSession

/// Where IDRs land, read from the NAL unit types of the output (and cross-checked with ffprobe once).
@Suite struct KeyframeTests {
    /// Indices (contexts) of the frames whose output is an IDR access unit.
    func idrFrames(_ outputs: [EncoderOutput]) -> [Int] {
        outputs.compactMap { output in
            guard let frame = output.frame, frame.nalUnits.contains(where: { $0.type == 5 }) else { return nil }
            return output.context as? Int
        }
    }

    @Test func realTimeDefaultsGiveOneIDRIn300Frames() throws {
        let outputs = try runSession(smallRealTime(), count: 300)
        #expect(outputs.count == 300)
        #expect(idrFrames(outputs) == [0])
        #expect(outputs.filter { $0.frame?.isKeyFrame == true }.count == 1)
        // Independent check: ffprobe decodes 300 frames, one I (key) frame, the rest P.
        let types = try ffprobePictureTypes(annexBStream(outputs.compactMap(\.frame)))
        #expect(types.count == 300)
        #expect(types.filter { $0.hasPrefix("1,") }.count == 1)
        #expect(types.allSatisfy { $0.contains("I") || $0.contains("P") })
    }

    @Test func maxKeyFrameIntervalSixtyGivesIDRsAtMultiplesOfSixty() throws {
        var configuration = smallRealTime()
        configuration.live.maxKeyFrameInterval = 60
        let outputs = try runSession(configuration, count: 300)
        #expect(idrFrames(outputs) == [0, 60, 120, 180, 240])
    }

    @Test func durationLimitForcesIDRAfter240Seconds() throws {
        // Frames 10 s apart: frame 24 is the first at ≥ 240 s after the IDR at 0, frame 48 the next.
        let outputs = try runSession(
            smallRealTime(), count: 50, time: { MediaTime(value: Int64($0) * 10, timescale: 1) })
        #expect(idrFrames(outputs) == [0, 24, 48])
    }

    @Test func intervalChangedLiveAppliesFromTheNextFrame() throws {
        // 1000 frames allowed at first; at frame 100 the limit becomes 30, counted from the IDR at 0.
        var configuration = smallRealTime()
        configuration.live.maxKeyFrameInterval = 1000
        let outputs = try runSession(
            configuration, count: 160,
            beforeFrame: { index, session in
                if index == 100 { try session.update { $0.maxKeyFrameInterval = 30 } }
            })
        #expect(idrFrames(outputs) == [0, 100, 130])
    }

    @Test func forcedKeyFrameIsThatVeryFrameWithParameterSetsInFront() throws {
        let outputs = try runSession(smallRealTime(), count: 60, options: { FrameOptions(forceKeyFrame: $0 == 37) })
        #expect(idrFrames(outputs) == [0, 37])
        let forced = try #require(outputs.first { $0.context as? Int == 37 }?.frame)
        let types = nalTypes(forced)
        let firstIDR = try #require(types.firstIndex(of: 5))
        #expect(types.prefix(firstIDR).contains(7))
        #expect(types.prefix(firstIDR).contains(8))
        #expect(forced.isKeyFrame)
        // Parameter sets are only reported when they change: x264 repeats identical ones at frame 37.
        #expect(outputs.first?.frame?.parameterSets != nil)
        #expect(forced.parameterSets == nil)
    }

    @Test func contextsComeBackInOrderNoneLost() throws {
        let outputs = try runSession(smallRealTime(), count: 90)
        #expect(outputs.map { $0.context as? Int } == Array(0..<90))
        #expect(outputs.allSatisfy { $0.frame != nil && !$0.infoFlags.contains(.frameDropped) })
    }
}
