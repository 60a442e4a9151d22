import CongestionControl
import MediaCore
import Testing

/// AIMD against the numbers libwebrtc's own tests assert (modules/remote_bitrate_estimator/
/// aimd_rate_control_unittest.cc, test names in each case), on the same simulated clock (123456 ms at start).
@Suite struct AimdRateControlTests {
    static let start = Instant(nanoseconds: 123_456 * 1_000_000)

    @Test(arguments: [
        // (estimate b/s, RTT ms or nil for the 200 ms default, expected b/s per second)
        (30_000, nil, 4000.0),  // MinNearMaxIncreaseRateOnLowBandwith
        (90_000, nil, 5000.0),  // NearMaxIncreaseRateIs5kbpsOn90kbpsAnd200msRtt
        (60_000, 100, 5000.0),  // NearMaxIncreaseRateIs5kbpsOn60kbpsAnd100msRtt
    ] as [(Int, Int?, Double)])
    func nearMaxIncreaseRate(bitrate: Int, rttMilliseconds: Int?, expected: Double) {
        var aimd = AimdRateControl()
        aimd.setEstimate(Double(bitrate), at: Self.start)
        if let rttMilliseconds { aimd.setRTT(.milliseconds(rttMilliseconds)) }
        #expect(aimd.nearMaxIncreaseRatePerSecond == expected)
    }

    @Test func aNegativeRTTCountsAsZero() {
        // −100 ms would make the response time 2 × (RTT + 100 ms) zero and the increase rate infinite.
        var aimd = AimdRateControl()
        aimd.setEstimate(90_000, at: Self.start)
        aimd.setRTT(.milliseconds(-100))
        #expect(aimd.rtt == .zero)
        #expect(aimd.nearMaxIncreaseRatePerSecond == 15_000)  // 3000 bits per 2 × 100 ms
    }

    @Test func increaseRateAndBandwidthPeriodAfterOveruse() {
        // GetIncreaseRateAndBandwidthPeriod: the throughput equals the estimate, so no decrease is recorded and
        // the period stays the 3 s default.
        var aimd = AimdRateControl()
        aimd.setEstimate(300_000, at: Self.start)
        aimd.update(usage: .overusing, estimatedThroughput: 300_000, at: Self.start)
        #expect(abs(aimd.nearMaxIncreaseRatePerSecond - 14_000) <= 1000)
        #expect(aimd.expectedBandwidthPeriod == .seconds(3))
        #expect(aimd.latestEstimate == 255_000)  // β 0.85 × 300 kb/s
    }

    /// Starts at `acknowledged` and updates "normal" with it every 100 ms for 20 s; returns the time after.
    static func twentySecondsOfNormal(_ aimd: inout AimdRateControl, acknowledged: Double) -> Instant {
        aimd.setEstimate(acknowledged, at: start)
        var now = start
        while now - start < .seconds(20) {
            aimd.update(usage: .normal, estimatedThroughput: acknowledged, at: now)
            now += .milliseconds(100)
        }
        return now
    }

    @Test func limitedByAcknowledgedBitrate() {
        // BweLimitedByAckedBitrate: 20 s of "normal" at 10 kb/s acknowledged ends exactly at 1.5 × 10 + 10 kb/s.
        var aimd = AimdRateControl()
        _ = Self.twentySecondsOfNormal(&aimd, acknowledged: 10_000)
        #expect(aimd.isInitialized)
        #expect(aimd.latestEstimate == 1.5 * 10_000 + 10_000)
    }

    @Test func notLimitedByDecreasingAcknowledgedBitrate() {
        // BweNotLimitedByDecreasingAckedBitrate: a falling throughput does not pull the estimate down, nor up.
        var aimd = AimdRateControl()
        let now = Self.twentySecondsOfNormal(&aimd, acknowledged: 100_000)
        let previous = aimd.latestEstimate
        aimd.update(usage: .normal, estimatedThroughput: 50_000, at: now)
        #expect(abs(aimd.latestEstimate - (1.5 * 100_000 + 10_000)) <= 2000)
        #expect(aimd.latestEstimate == previous)
    }

    @Test func defaultPeriodUntilFirstOveruse() {
        var aimd = AimdRateControl()
        aimd.setStartBitrate(300_000)
        #expect(aimd.expectedBandwidthPeriod == .seconds(3))
        aimd.update(usage: .overusing, estimatedThroughput: 280_000, at: Self.start + .milliseconds(100))
        #expect(aimd.expectedBandwidthPeriod != .seconds(3))
    }

    @Test(arguments: [
        // (initial b/s, acknowledged b/s at the overuse, expected period ms, expected near-max rate or nil)
        (110_000, Int(Double(110_000 - 20_000) / 0.85), 4000, 5000.0),  // ExpectedPeriodAfter20kbpsDropAnd5kbpsIncrease
        (10_000, 10_000 - 1, 2000, nil),  // BandwidthPeriodIsNotBelowMin
        (10_010_000, Int(10_000 / 0.85), 50_000, nil),  // BandwidthPeriodIsNotAboveMaxNoSmoothingExp
    ] as [(Int, Int, Int64, Double?)])
    func bandwidthPeriodAfterADecrease(initial: Int, acknowledged: Int, periodMilliseconds: Int64, nearMax: Double?) {
        var aimd = AimdRateControl()
        aimd.setEstimate(Double(initial), at: Self.start)
        aimd.update(usage: .overusing, estimatedThroughput: Double(acknowledged), at: Self.start + .milliseconds(100))
        if let nearMax { #expect(aimd.nearMaxIncreaseRatePerSecond == nearMax) }
        #expect(aimd.expectedBandwidthPeriod == .milliseconds(periodMilliseconds))
    }

    @Test func boundedWhenThroughputIsNotEstimated() {
        // SendingRateBoundedWhenThroughputNotEstimated: without a start rate, the first throughput after 5 s
        // initialises the estimate, and increases stay under 1.5 × it + 10 kb/s.
        var aimd = AimdRateControl()
        var now = Self.start
        aimd.update(usage: .normal, estimatedThroughput: 123_000, at: now)
        #expect(!aimd.isInitialized)
        now += .milliseconds(5001)
        aimd.update(usage: .normal, estimatedThroughput: 123_000, at: now)
        #expect(aimd.isInitialized)
        for _ in 0..<100 {
            aimd.update(usage: .normal, estimatedThroughput: nil, at: now)
            now += .milliseconds(100)
        }
        #expect(aimd.latestEstimate <= 123_000 * 1.5 + 10_000)
    }

    @Test func multiplicativeThenAdditiveIncrease() {
        // Hand-computed: far from any known capacity the rate grows 8 % per second; after an overuse gives a
        // capacity estimate, it grows by the near-max rate (one packet per 2 × (RTT + 100 ms)).
        var aimd = AimdRateControl()
        aimd.setEstimate(500_000, at: Self.start)
        aimd.update(usage: .normal, estimatedThroughput: 500_000, at: Self.start)  // hold → increase, + the 1 kb/s minimum
        #expect(aimd.latestEstimate == 501_000)
        aimd.update(usage: .normal, estimatedThroughput: 500_000, at: Self.start + .seconds(1))
        #expect(aimd.latestEstimate == 501_000 * 1.08)
        // An overuse with 500 kb/s acknowledged: 425 kb/s, and the link capacity is now 500 kb/s.
        aimd.update(usage: .overusing, estimatedThroughput: 500_000, at: Self.start + .milliseconds(1100))
        #expect(aimd.latestEstimate == 425_000)
        #expect(aimd.linkCapacity.estimate == 500_000)
        aimd.update(usage: .normal, estimatedThroughput: 425_000, at: Self.start + .milliseconds(1200))  // hold → increase
        let rate = aimd.nearMaxIncreaseRatePerSecond
        aimd.update(usage: .normal, estimatedThroughput: 425_000, at: Self.start + .milliseconds(1700))
        #expect(aimd.latestEstimate == 425_000 + (rate * 0.5).rounded())
    }

    @Test func multiplicativeFactor() {
        #expect(abs(AimdRateControl.multiplicativeFactor(afterSeconds: 1) - 1.08) < 1e-15)
        #expect(abs(AimdRateControl.multiplicativeFactor(afterSeconds: 0.5) - 1.08.squareRoot()) < 1e-15)
        #expect(AimdRateControl.multiplicativeFactor(afterSeconds: 0) == 1)
    }

    @Test func linkCapacityVarianceBand() {
        // LinkCapacityEstimator: first sample is the estimate, deviation at its 0.4 floor: σ = √(0.4 × 500) kb/s.
        var capacity = LinkCapacityEstimator()
        #expect(capacity.upperBound == .infinity && capacity.lowerBound == 0)
        capacity.onOveruseDetected(acknowledgedRate: 500_000)
        let sigma = (0.4 * 500.0).squareRoot() * 1000
        #expect(abs(capacity.upperBound - (500_000 + 3 * sigma)) < 1e-6)
        #expect(abs(capacity.lowerBound - (500_000 - 3 * sigma)) < 1e-6)
        // A sample far off moves the estimate 5 % of the way and widens the band (normalised variance ≤ 2.5).
        capacity.onOveruseDetected(acknowledgedRate: 300_000)
        #expect(abs((capacity.estimate ?? 0) - 490_000) < 1e-6)
        let deviation = min(2.5, 0.95 * 0.4 + 0.05 * 190.0 * 190.0 / 490.0)
        #expect(abs(capacity.upperBound - (490_000 + 3 * (deviation * 490).squareRoot() * 1000)) < 1e-6)
    }
}
