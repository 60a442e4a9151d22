import MediaCore
import RTP

/// The loss-based half of goog_cc and the place the estimates meet: libwebrtc's classic
/// `SendSideBandwidthEstimation` (modules/congestion_controller/goog_cc/send_side_bandwidth_estimation.cc), without
/// LossBasedBweV2 (a field trial's inherent-loss estimator) and without the RTT back-off.
///
/// Loss reports (at least 20 packets each, `kLimitNumPackets`) give a fraction lost; on every update:
/// - loss ≤ 2 % (`kDefaultLowLossThreshold`): + 8 % of the lowest rate of the last second (`kBweIncreaseInterval`
///   1 s) + 1 kb/s;
/// - 2–10 %: hold;
/// - > 10 % (`kDefaultHighLossThreshold`): × (1 − loss/2) (`(512 − fraction_lost_q8)/512`), at most once per
///   300 ms + RTT (`kBweDecreaseInterval`) and once per report.
/// During the first 2 s with no loss (`kStartPhase`) the rate follows the delay-based estimate up. The result never
/// exceeds the delay-based estimate nor the configured maximum, and never goes below the minimum. The peer's
/// REMB/TMMBR is applied by `GoogCCPolicy` as a cap on the output only (libwebrtc's
/// `WebRTC-Bwe-ReceiverLimitCapsOnly` behaviour), so lifting it restores the estimate at once.
/// With `lossBasedControl` (libwebrtc's `WebRTC-Bwe-LossBasedControl` trial) a `LossBasedBandwidthEstimation`
/// decides instead of the 2 %/10 % rule once it has a report.
public struct SendSideBandwidthEstimation: Sendable {
    public static let lowLossThreshold = 0.02
    public static let highLossThreshold = 0.1
    public static let increaseInterval: Duration = .seconds(1)
    public static let decreaseInterval: Duration = .milliseconds(300)
    public static let startPhase: Duration = .seconds(2)
    /// `kLimitNumPackets`: fewer packets than this are accumulated into the next report.
    public static let limitNumPackets = 20
    /// `kMaxRtcpFeedbackInterval` 5 s × 1.2: an older loss report no longer moves the rate.
    public static let lossReportTimeout: Duration = .milliseconds(6000)

    public private(set) var currentTarget: Double
    public private(set) var minBitrate: Double
    public private(set) var maxBitrate: Double
    /// The delay-based estimate, bits/s (infinite before the first).
    public private(set) var delayBasedLimit = Double.infinity
    /// The last report's fraction lost, in 1/256 (RFC 3550's `fraction lost`).
    public private(set) var lastFractionLoss = 0
    private var lastRoundTripTime: Duration = .zero
    private var lostSinceLastUpdate = 0
    private var expectedSinceLastUpdate = 0
    private var hasDecreasedSinceLastFractionLoss = false
    private var firstReportTime: Instant?
    private var lastLossPacketReport: Instant?
    private var timeLastDecrease: Instant?
    /// (time, target) with increasing targets: the front is the minimum of the last second.
    private var minBitrateHistory: [(time: Instant, bitrate: Double)] = []
    /// The trial's loss-based estimator; nil: the classic rule.
    public private(set) var lossBasedControl: LossBasedBandwidthEstimation?

    public init(startBitrate: Double, minBitrate: Double, maxBitrate: Double, lossBasedControl: Bool = false) {
        self.lossBasedControl = lossBasedControl ? LossBasedBandwidthEstimation() : nil
        self.minBitrate = minBitrate
        self.maxBitrate = maxBitrate
        currentTarget = min(max(startBitrate, minBitrate), maxBitrate)
    }

    public mutating func setBounds(minBitrate: Double, maxBitrate: Double, at now: Instant) {
        self.minBitrate = minBitrate
        self.maxBitrate = maxBitrate
        updateTarget(currentTarget, at: now)
    }

    public mutating func updateRTT(_ rtt: Duration) { lastRoundTripTime = rtt }

    /// A probe's result or a forced rate: the target jumps to it (no longer held under the old delay estimate).
    public mutating func setSendBitrate(_ bitrate: Double, at now: Instant) {
        delayBasedLimit = .infinity
        updateTarget(bitrate, at: now)
        minBitrateHistory.removeAll()
    }

    public mutating func updateDelayBasedEstimate(_ bitrate: Double, at now: Instant) {
        delayBasedLimit = bitrate == 0 ? .infinity : bitrate
        updateTarget(currentTarget, at: now)
    }

    /// A transport feedback report's packets, for the loss-based control trial (ignored by the classic rule).
    public mutating func updateLossBasedEstimator(_ packets: [PacketResult], at now: Instant) {
        lossBasedControl?.updateLossStatistics(packets, at: now)
    }

    /// The acknowledged throughput, for the loss-based control trial.
    public mutating func setAcknowledgedRate(_ bitrate: Double, at now: Instant) {
        lossBasedControl?.updateAcknowledgedBitrate(bitrate, at: now)
    }

    /// `lost` of `expected` packets since the last call (transport feedback, or an RTCP receiver report).
    public mutating func updatePacketsLost(_ lost: Int, of expected: Int, at now: Instant) {
        if firstReportTime == nil { firstReportTime = now }
        guard expected > 0 else { return }
        let total = expectedSinceLastUpdate + expected
        lostSinceLastUpdate += lost
        if total < Self.limitNumPackets {
            expectedSinceLastUpdate = total
            return
        }
        hasDecreasedSinceLastFractionLoss = false
        lastFractionLoss = min((max(lostSinceLastUpdate, 0) << 8) / total, 255)
        lostSinceLastUpdate = 0
        expectedSinceLastUpdate = 0
        lastLossPacketReport = now
        updateEstimate(at: now)
    }

    /// The periodic update (libwebrtc runs it every 25 ms and after each loss report).
    public mutating func updateEstimate(at now: Instant) {
        if lastFractionLoss == 0 && isInStartPhase(now) {
            var bitrate = currentTarget
            if delayBasedLimit.isFinite { bitrate = max(delayBasedLimit, bitrate) }
            lossBasedControl?.initialize(bitrate)
            if bitrate != currentTarget {
                minBitrateHistory.removeAll()
                minBitrateHistory.append((now, currentTarget))
                updateTarget(bitrate, at: now)
                return
            }
        }
        updateMinHistory(now)
        guard let lastReport = lastLossPacketReport else {
            updateTarget(currentTarget, at: now)
            return
        }
        if var control = lossBasedControl, control.inUse {
            let bitrate = control.update(at: now, minBitrate: minBitrateHistory.first?.bitrate ?? currentTarget,
                                         wantedBitrate: delayBasedLimit, rtt: lastRoundTripTime)
            lossBasedControl = control
            updateTarget(bitrate, at: now)
            return
        }
        if now - lastReport < Self.lossReportTimeout {
            let loss = Double(lastFractionLoss) / 256
            if loss <= Self.lowLossThreshold {
                // + 8 % of the least the rate was over the last second, rounded as libwebrtc's `+ 0.5`.
                let base = minBitrateHistory.first?.bitrate ?? currentTarget
                updateTarget((base * 1.08 + 0.5).rounded(.down) + 1000, at: now)
                return
            }
            if loss > Self.highLossThreshold, !hasDecreasedSinceLastFractionLoss,
               timeLastDecrease.map({ now - $0 >= Self.decreaseInterval + lastRoundTripTime }) ?? true {
                timeLastDecrease = now
                hasDecreasedSinceLastFractionLoss = true
                updateTarget((currentTarget * Double(512 - lastFractionLoss) / 512).rounded(.down), at: now)
                return
            }
        }
        updateTarget(currentTarget, at: now)
    }

    private func isInStartPhase(_ now: Instant) -> Bool {
        guard let firstReportTime else { return true }
        return now - firstReportTime < Self.startPhase
    }

    private mutating func updateMinHistory(_ now: Instant) {
        // Keep one second (minus a millisecond, as libwebrtc) of history, increasing from the front.
        while let first = minBitrateHistory.first, now - first.time + .milliseconds(1) > Self.increaseInterval {
            minBitrateHistory.removeFirst()
        }
        while let last = minBitrateHistory.last, currentTarget <= last.bitrate {
            minBitrateHistory.removeLast()
        }
        minBitrateHistory.append((now, currentTarget))
    }

    private mutating func updateTarget(_ bitrate: Double, at now: Instant) {
        let capped = min(bitrate, delayBasedLimit, maxBitrate)
        currentTarget = max(capped, minBitrate)
    }
}
