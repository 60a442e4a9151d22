import CongestionControl
import MediaCore
import Testing

/// The classic loss-based rule (send_side_bandwidth_estimation.cc) on hand-made loss reports. Expected values are
/// computed from its integer arithmetic: fraction lost in 1/256, decrease to (512 − fraction)/512, increase to
/// 1.08 × the last second's minimum + 1 kb/s.
@Suite struct SendSideBandwidthEstimationTests {
    static func t(_ ms: Int64) -> Instant { Instant(nanoseconds: 10_000_000_000 + ms * 1_000_000) }

    /// After the 2 s start phase with a first clean report at 0.
    static func warmedUp(start: Double = 300_000) -> SendSideBandwidthEstimation {
        var estimation = SendSideBandwidthEstimation(startBitrate: start, minBitrate: 10_000, maxBitrate: 5_000_000)
        estimation.updatePacketsLost(0, of: 100, at: t(0))  // the first report: + 8 % (start phase, no delay limit yet)
        return estimation
    }

    @Test func highLossDecreasesOncePerReport() {
        var estimation = Self.warmedUp()
        let before = estimation.currentTarget
        // 30 of 100 lost: fraction (30 << 8) / 100 = 76, rate × (512 − 76) / 512.
        estimation.updatePacketsLost(30, of: 100, at: Self.t(2500))
        #expect(estimation.lastFractionLoss == 76)
        #expect(estimation.currentTarget == (before * 436 / 512).rounded(.down))
        // The same report does not decrease twice, however often the timer runs.
        let decreased = estimation.currentTarget
        estimation.updateEstimate(at: Self.t(2600))
        estimation.updateEstimate(at: Self.t(2700))
        #expect(estimation.currentTarget == decreased)
        // A new report, but within 300 ms + RTT of the last decrease: held.
        estimation.updateRTT(.milliseconds(100))
        estimation.updatePacketsLost(30, of: 100, at: Self.t(2800))
        #expect(estimation.currentTarget == decreased)
        // 400 ms after it: decreases again.
        estimation.updatePacketsLost(30, of: 100, at: Self.t(2900))
        #expect(estimation.currentTarget == (decreased * 436 / 512).rounded(.down))
    }

    @Test func moderateLossHolds() {
        var estimation = Self.warmedUp()
        let before = estimation.currentTarget
        estimation.updatePacketsLost(5, of: 100, at: Self.t(2500))  // 5 %: between 2 % and 10 %
        estimation.updateEstimate(at: Self.t(4000))
        #expect(estimation.currentTarget == before)
    }

    @Test func lowLossIncreasesEightPercentOfTheLastSecondsMinimum() {
        var estimation = Self.warmedUp()
        let base = estimation.currentTarget
        estimation.updatePacketsLost(1, of: 100, at: Self.t(2500))  // fraction 2/256 < 2 %
        #expect(estimation.currentTarget == (base * 1.08 + 0.5).rounded(.down) + 1000)
        // Every 25 ms tick within the second still starts from the same minimum: no compounding.
        let once = estimation.currentTarget
        estimation.updateEstimate(at: Self.t(2525))
        #expect(estimation.currentTarget == once)
    }

    @Test func fewerThanTwentyPacketsAreAccumulated() {
        var estimation = Self.warmedUp()
        let before = estimation.currentTarget
        estimation.updatePacketsLost(10, of: 10, at: Self.t(2500))  // 100 % of 10: not yet a report
        #expect(estimation.currentTarget == before)
        estimation.updatePacketsLost(0, of: 10, at: Self.t(2600))  // 10 of 20 lost: 50 %
        #expect(estimation.lastFractionLoss == 128)
    }

    @Test func theDelayBasedEstimateCaps() {
        var estimation = Self.warmedUp()
        estimation.updateDelayBasedEstimate(200_000, at: Self.t(2500))
        #expect(estimation.currentTarget == 200_000)
        estimation.updatePacketsLost(0, of: 100, at: Self.t(2600))
        #expect(estimation.currentTarget == 200_000)
    }

    @Test func startPhaseFollowsTheDelayBasedEstimateUp() {
        var estimation = SendSideBandwidthEstimation(startBitrate: 300_000, minBitrate: 10_000, maxBitrate: 5_000_000)
        estimation.updatePacketsLost(0, of: 100, at: Self.t(0))
        estimation.updateDelayBasedEstimate(900_000, at: Self.t(500))
        estimation.updateEstimate(at: Self.t(525))
        #expect(estimation.currentTarget == 900_000)
    }

    @Test func boundsApply() {
        var estimation = SendSideBandwidthEstimation(startBitrate: 300_000, minBitrate: 10_000, maxBitrate: 250_000)
        #expect(estimation.currentTarget == 250_000)
        estimation.updatePacketsLost(90, of: 100, at: Self.t(0))
        for ms in stride(from: Int64(400), through: 20_000, by: 400) {
            estimation.updatePacketsLost(90, of: 100, at: Self.t(ms))
        }
        #expect(estimation.currentTarget == 10_000)
    }
}
