import Bitstream
import Testing

@testable import EncoderSession

/// `RateControl.encoderVBV`: the encoder's own ABR + VBV, every change passed straight through, nothing enforced.
@Suite(.serialized) struct EncoderRateControlTests {
    static let width = 640, height = 360

    /// The settings a plain libavcodec user would give x264, for the limit cases the controller knows.
    @Test(arguments: [
        // (average, limits, expected maxrate, expected buffer)
        (2_000_000, [DataRateLimit(bytes: 375_000, seconds: 1)], 3_000_000, 3_000_000),  // WebRTC's 1.5 × / 1 s
        (2_000_000, [DataRateLimit(bytes: 750_000, seconds: 2)], 3_000_000, 6_000_000),  // a 2 s window
        (2_000_000, [], 3_000_000, 3_000_000),  // no limit: 1.5 × target, 1 s
        (2_000_000, [DataRateLimit(bytes: 200_000, seconds: 1)], 2_100_000, 2_100_000),  // limit under the target
    ])
    func encoderSettings(average: Int, limits: [DataRateLimit], maxRate: Int, buffer: Int) {
        let live = LiveProperties(averageBitRate: average, dataRateLimits: limits)
        var controller = RateController(live: live, mode: .encoderVBV)
        #expect(controller.abrBitRate == average)
        #expect(!controller.enforcesLimits)
        let settings = controller.settings(before: 0)
        #expect(settings == RateSettings(averageBitRate: average, maxBitRate: maxRate, bufferSize: buffer))
        // A change is passed through as is, from the very next frame: no hold, no loop.
        controller.update(LiveProperties(averageBitRate: average / 4, dataRateLimits: limits), at: 1)
        #expect(controller.settings(before: 1).averageBitRate == average / 4)
    }

    /// A limit tighter than any VBV can promise (600 bytes per 20 ms, less than the first IDR): `.session` drops
    /// frames to hold it (`DataRateLimitTests.perFrameLimitDropsReportsAndRecovers`); `.encoderVBV` drops nothing and
    /// leaves the windows to x264's VBV — the limit only shaped it. Every context comes back either way, and the stats
    /// report the VBV maxrate the encoder was given.
    @Test func encoderVBVNeverDropsWhereTheSessionWould() throws {
        let limit = DataRateLimit(bytes: 600, seconds: 0.02)
        var dropped: [RateControl: Int] = [:]
        var overflowing: [RateControl: Int] = [:]
        for mode in [RateControl.encoderVBV, .session] {
            var configuration = smallRealTime(averageBitRate: 100_000)
            configuration.live.dataRateLimits = [limit]
            configuration.rateControl = mode
            let outputs = try runSession(configuration, count: 90)
            #expect(outputs.compactMap { $0.context as? Int } == Array(0..<90))
            dropped[mode] = outputs.filter { $0.infoFlags.contains(.frameDropped) }.count
            let frames = outputs.filter { $0.frame != nil }.map { (time: $0.presentationTime.seconds, bytes: $0.stats.bytes) }
            overflowing[mode] = windowTotals(frames, length: limit.seconds).filter { $0.bytes > limit.bytes }.count
            if mode == .encoderVBV {
                // 600 bytes / 20 ms = 240 kb/s, above the 100 kb/s target: that is the maxrate, with a 20 ms buffer.
                #expect(outputs.allSatisfy { $0.stats.encoderMaxBitRate == 240_000 })
            }
        }
        print("limit 600 B / 20 ms: dropped \(dropped), windows over the limit \(overflowing)")
        #expect(dropped[.encoderVBV] == 0)
        #expect((dropped[.session] ?? 0) > 0)
    }

    /// 2 Mb/s → 500 kb/s on testsrc2: passed straight to x264, the output does not settle within ±10 % of the new
    /// target in the first seconds (x264 keeps its opening ABR target; the VBV at 1.5 × the new target binds),
    /// where the session's controller settles within 1 s (`RateTests.stepResponse`). This is what the `vbv`
    /// policy of `rtenc bench adapt` shows; the test pins that the mode really bypasses the controller.
    @Test func encoderVBVStepDownIsNotSteered() throws {
        _ = TestMedia.quiet
        let collector = OutputCollector()
        var configuration = Configuration.realTimeCommunication(
            width: Self.width, height: Self.height, averageBitRate: 2_000_000, encoder: .software)
        configuration.preset = .ultrafast
        configuration.rateControl = .encoderVBV
        let session = try CompressionSession(configuration: configuration, outputHandler: collector.handler)
        let source = try FFmpegFrameSource(
            graph: "testsrc2=size=\(Self.width)x\(Self.height):rate=30", width: Self.width, height: Self.height,
            frames: 150)
        var index = 0
        while let frame = source.next() {
            if index == 60 { try session.update { $0 = .realTimeCommunication(averageBitRate: 500_000) } }
            try session.encode(frame, presentationTime: TestMedia.time(index), context: index)
            index += 1
        }
        let outputs = collector.outputs
        #expect(outputs.count == 150)
        #expect(outputs.allSatisfy { $0.frame != nil })
        #expect(outputs[59].stats.encoderMaxBitRate == 3_000_000)
        #expect(outputs[60].stats.encoderMaxBitRate == 750_000)
        #expect(outputs.filter { $0.stats.reopenedEncoder }.count == 1, "only the first frame opens the encoder")
        // The second after the change (frames 60…89) and the one after that, as multiples of the new target.
        let ratios = [60, 90].map { start in
            Double(outputs[start..<start + 30].reduce(0) { $0 + $1.stats.bytes } * 8) / 500_000
        }
        print("encoderVBV step 2 M → 500 k: 1 s windows after the change at \(ratios) × the new target")
        #expect(ratios.contains { abs($0 - 1) > 0.10 }, "x264 alone settled as fast as the session's controller")
    }
}
