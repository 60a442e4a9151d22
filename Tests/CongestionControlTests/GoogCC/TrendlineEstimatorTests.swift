import CongestionControl
import Testing

/// The trendline estimator and its adaptive threshold. The series are libwebrtc's
/// (modules/congestion_controller/goog_cc/trendline_estimator_unittest.cc: 25 packets of 1200 bytes sent 20 ms
/// apart, delivered at the same pace, 10 % slower, 15 % faster — `Normal`, `Overusing`, `Underusing`), with the
/// detector states they assert; the threshold cases are hand-computed from `UpdateThreshold`.
@Suite struct TrendlineEstimatorTests {
    struct Series: Sendable, CustomTestStringConvertible {
        let name: String
        /// Receive spacing, ms, for a 20 ms send spacing.
        let receiveSpacing: Double
        /// The distinct states the detector goes through, in order (libwebrtc's `expected_detector_state`).
        let states: [BandwidthUsage]
        var testDescription: String { name }
    }

    static let series: [Series] = [
        Series(name: "Normal: delivered at the same pace", receiveSpacing: 20, states: [.normal]),
        Series(name: "Overusing: 10 % slower delivery", receiveSpacing: 1.1 * 20, states: [.normal, .overusing]),
        Series(name: "Underusing: 15 % faster delivery", receiveSpacing: 0.85 * 20, states: [.normal, .underusing]),
    ]

    @Test(arguments: series)
    func libwebrtcSeries(_ series: Series) {
        var estimator = TrendlineEstimator()
        let packetCount = 25
        // libwebrtc's PacketTimeGenerator: initial clock + i × spacing, truncated to whole ms.
        let send = (0..<packetCount).map { Double(Int64(123_456_789 + Double($0) * 20)) }
        let receive = (0..<packetCount).map { Double(Int64(987_654_321 + Double($0) * series.receiveSpacing)) }
        var states: [BandwidthUsage] = [estimator.state]
        for i in 1..<packetCount {
            let state = estimator.update(arrivalDelta: receive[i] - receive[i - 1], sendDelta: send[i] - send[i - 1],
                                         arrivalTime: receive[i])
            if state != states.last { states.append(state) }
        }
        #expect(states == series.states)
    }

    @Test func slopeOfAPerfectLine() {
        // libwebrtc's older PerfectLineSlopeOneHalf without smoothing and gain 1: the modified trend is
        // min(n, 60) × slope once the window is full.
        var estimator = TrendlineEstimator(windowSize: 20, smoothingCoefficient: 0, thresholdGain: 1)
        for i in 1...40 {
            // Latency grows by half of each 10 ms send spacing: delay slope 0.5 / (1 + 0.5) against arrival.
            estimator.update(arrivalDelta: 15, sendDelta: 10, arrivalTime: Double(i) * 15)
            if i >= 20 {
                let expected = Double(min(i, 60)) * (5.0 / 15.0)
                #expect(abs((estimator.modifiedTrend ?? .nan) - expected) < 1e-9, "delta \(i)")
            } else if i >= 2 {
                #expect(estimator.modifiedTrend == 0, "delta \(i): no slope before the window is full")
            }
        }
    }

    /// Steps through the detector alone: (m, trend, send delta ms, now ms) → expected state and threshold.
    struct Step: Sendable {
        var m: Double
        var trend: Double
        var sendDelta = 5.0
        var now: Double
        var state: BandwidthUsage
        var threshold: Double
    }

    struct DetectorCase: Sendable, CustomTestStringConvertible {
        let name: String
        let steps: [Step]
        var testDescription: String { name }
    }

    static let detectorCases: [DetectorCase] = [
        DetectorCase(name: "overuse after more than 10 ms over the threshold and more than one sample", steps: [
            // First sample: counted as half its send delta (2.5 ms); the threshold's clock starts.
            Step(m: 20, trend: 0.1, now: 0, state: .normal, threshold: 12.5),
            // 7.5 ms over; the threshold rises by k_up × (20 − 12.5) × 100 ms.
            Step(m: 20, trend: 0.1, now: 100, state: .normal, threshold: 12.5 + 0.0087 * 7.5 * 100),
            // 12.5 ms over, three samples, trend not falling: overuse.
            Step(m: 20, trend: 0.1, now: 110, state: .overusing,
                 threshold: 19.025 + 0.0087 * (20 - 19.025) * 10),
        ]),
        DetectorCase(name: "a falling trend holds off overuse", steps: [
            Step(m: 20, trend: 0.3, now: 0, state: .normal, threshold: 12.5),
            Step(m: 20, trend: 0.2, sendDelta: 20, now: 0, state: .normal, threshold: 12.5),
            Step(m: 20, trend: 0.2, sendDelta: 20, now: 0, state: .overusing, threshold: 12.5),
        ]),
        DetectorCase(name: "below −threshold is underuse; the threshold falls fast toward |m| (k_down)", steps: [
            Step(m: -13, trend: -0.1, now: 0, state: .underusing, threshold: 12.5),
            Step(m: -12, trend: -0.1, now: 10, state: .normal, threshold: 12.5 + 0.039 * (12 - 12.5) * 10),
        ]),
        DetectorCase(name: "a spike more than 15 ms above the threshold does not move it", steps: [
            Step(m: 0, trend: 0, now: 0, state: .normal, threshold: 12.5),
            Step(m: 28, trend: 0.5, now: 50, state: .normal, threshold: 12.5),
            Step(m: 27, trend: 0.5, sendDelta: 20, now: 60, state: .overusing, threshold: 12.5 + 0.0087 * (27 - 12.5) * 10),
        ]),
        DetectorCase(name: "a gap longer than 100 ms adapts as 100 ms", steps: [
            Step(m: 12, trend: 0, now: 0, state: .normal, threshold: 12.5),
            Step(m: 12, trend: 0, now: 1000, state: .normal, threshold: 12.5 + 0.039 * (12 - 12.5) * 100),
        ]),
        DetectorCase(name: "the threshold is clamped to 6…600 ms", steps: [
            Step(m: 0, trend: 0, now: 0, state: .normal, threshold: 12.5),
            Step(m: 0, trend: 0, now: 100, state: .normal, threshold: 6),
        ]),
    ]

    @Test(arguments: detectorCases)
    func detector(_ test: DetectorCase) {
        var detector = OveruseDetector()
        for (index, step) in test.steps.enumerated() {
            let state = detector.detect(modifiedTrend: step.m, trend: step.trend, sendDelta: step.sendDelta, now: step.now)
            #expect(state == step.state, "step \(index)")
            #expect(abs(detector.threshold - step.threshold) < 1e-9, "step \(index): threshold \(detector.threshold)")
        }
    }
}
