import CongestionControl
import MediaCore
import Testing

/// The ALR detector against libwebrtc's alr_detector_unittest.cc (`AlrDetection`, `ShortSpike`): traffic at a
/// percentage of a 300 kb/s estimate, one send every 10 ms, and the state it asserts after each phase; plus the
/// opt-in periodic ALR probe.
@Suite struct AlrDetectorTests {
    static let estimate = 300_000.0

    struct Traffic {
        var detector = AlrDetector()
        var ms: Int64 = 1000

        init() { detector.setEstimatedBitrate(AlrDetectorTests.estimate) }

        /// libwebrtc's SimulateOutgoingTrafficIn(...).ForTimeMs(duration).AtPercentOfEstimatedBitrate(percent).
        mutating func send(for duration: Int64, atPercent percent: Double) {
            detector.onBytesSent(0, at: Instant(nanoseconds: ms * 1_000_000))
            for _ in stride(from: 0, to: duration, by: 10) {
                let bytes = Int(AlrDetectorTests.estimate * percent * 10 / (8 * 100 * 1000))
                detector.onBytesSent(bytes, at: Instant(nanoseconds: ms * 1_000_000))
                ms += 10
            }
        }
    }

    @Test func alrDetection() {
        var traffic = Traffic()
        #expect(!traffic.detector.inALR)
        traffic.send(for: 1000, atPercent: 90)  // close to 100 %: not application-limited
        #expect(!traffic.detector.inALR)
        traffic.send(for: 1500, atPercent: 20)  // below 20 %: ALR
        #expect(traffic.detector.inALR)
        traffic.send(for: 4000, atPercent: 100)  // above 65 %: ALR ends
        #expect(!traffic.detector.inALR)
    }

    @Test func shortSpike() {
        var traffic = Traffic()
        traffic.send(for: 1000, atPercent: 20)
        #expect(traffic.detector.inALR)
        traffic.send(for: 100, atPercent: 150)  // a short spike does not end ALR
        #expect(traffic.detector.inALR)
        traffic.send(for: 3000, atPercent: 100)
        #expect(!traffic.detector.inALR)
    }

    @Test func periodicALRProbeEveryFiveSeconds() {
        var controller = ProbeController(startBitrate: 300_000, maxBitrate: 10_000_000, periodicALRProbing: true)
        let start = Instant(nanoseconds: 0)
        _ = controller.onNetworkAvailable(at: start)
        _ = controller.setEstimatedBitrate(500_000, at: start + .milliseconds(500))
        controller.process(at: start + .milliseconds(1600))  // no result for 1 s: probing complete
        #expect(controller.state == .probingComplete)
        #expect(controller.process(at: start + .seconds(3)).isEmpty)  // not application-limited
        controller.alrStartTime = start + .seconds(3)
        #expect(controller.process(at: start + .milliseconds(7999)).isEmpty)
        #expect(controller.process(at: start + .seconds(8)).map(\.bitrate) == [1_000_000])
        var off = ProbeController(startBitrate: 300_000, maxBitrate: 10_000_000)
        _ = off.onNetworkAvailable(at: start)
        off.process(at: start + .seconds(2))
        off.alrStartTime = start + .seconds(2)
        #expect(off.process(at: start + .seconds(20)).isEmpty)
    }
}
