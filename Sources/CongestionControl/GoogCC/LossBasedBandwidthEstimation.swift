import MediaCore
import RTP

/// libwebrtc's first loss-based controller, `LossBasedBandwidthEstimation`
/// (modules/congestion_controller/goog_cc/loss_based_bandwidth_estimation.cc, field trial
/// `WebRTC-Bwe-LossBasedControl`), which replaces the classic 2 %/10 % rule when enabled. Instead of fixed
/// thresholds it accepts more loss at lower rates: it decreases only while the averaged loss exceeds
/// (4 kb/s ÷ rate)^0.5 and never below the rate at which that loss would be acceptable (4 kb/s × loss^−2, 400 kb/s at
/// 10 %), and increases (× 1.02–1.08 by RTT, + 1 kb/s) only while the loss peak stays under (0.5 kb/s ÷ rate)^0.5.
/// libwebrtc's own scenario test enables it for the 10 %-loss case ("Without LossBasedControl trial, bandwidth
/// drops to ~10 kbps").
public struct LossBasedBandwidthEstimation: Sendable {
    // LossBasedControlConfig's defaults.
    public static let minIncreaseFactor = 1.02
    public static let maxIncreaseFactor = 1.08
    public static let increaseLowRTT: Duration = .milliseconds(200)
    public static let increaseHighRTT: Duration = .milliseconds(800)
    public static let decreaseFactor = 0.99
    public static let lossWindow: Duration = .milliseconds(800)
    public static let lossMaxWindow: Duration = .milliseconds(800)
    public static let acknowledgedRateMaxWindow: Duration = .milliseconds(800)
    public static let increaseOffset = 1000.0
    /// bits/s: `loss_bandwidth_balance_increase`, `_decrease` (the exponent is 0.5).
    public static let lossBandwidthBalanceIncrease = 500.0
    public static let lossBandwidthBalanceDecrease = 4000.0
    public static let decreaseInterval: Duration = .milliseconds(300)
    /// 1.2 × `kMaxRtcpFeedbackInterval`.
    public static let lossReportTimeout: Duration = .milliseconds(6000)

    public private(set) var lossBasedBitrate = 0.0
    public private(set) var averageLoss = 0.0
    public private(set) var averageLossMax = 0.0
    private var lastLossRatio = 0.0
    private var lastLossPacketReport: Instant?
    private var hasDecreasedSinceLastLossReport = false
    private var timeLastDecrease: Instant?
    private var acknowledgedBitrateMax = 0.0
    private var acknowledgedBitrateLastUpdate: Instant?

    public init() {}

    /// Has a loss report: ready to decide.
    public var inUse: Bool { lastLossPacketReport != nil }

    public mutating func initialize(_ bitrate: Double) {
        lossBasedBitrate = bitrate
        averageLoss = 0
        averageLossMax = 0
    }

    /// One feedback report's packets.
    public mutating func updateLossStatistics(_ packets: [PacketResult], at now: Instant) {
        guard !packets.isEmpty else { return }
        let lost = packets.count { !$0.isReceived }
        lastLossRatio = Double(lost) / Double(packets.count)
        let elapsed = lastLossPacketReport.map { now - $0 } ?? .seconds(1)
        lastLossPacketReport = now
        hasDecreasedSinceLastLossReport = false
        averageLoss += Self.exponentialUpdate(window: Self.lossWindow, interval: elapsed) * (lastLossRatio - averageLoss)
        if averageLoss > averageLossMax {
            averageLossMax = averageLoss
        } else {
            averageLossMax += Self.exponentialUpdate(window: Self.lossMaxWindow, interval: elapsed) * (averageLoss - averageLossMax)
        }
    }

    public mutating func updateAcknowledgedBitrate(_ bitrate: Double, at now: Instant) {
        let elapsed = acknowledgedBitrateLastUpdate.map { now - $0 } ?? .seconds(1)
        acknowledgedBitrateLastUpdate = now
        if bitrate > acknowledgedBitrateMax {
            acknowledgedBitrateMax = bitrate
        } else {
            acknowledgedBitrateMax -= Self.exponentialUpdate(window: Self.acknowledgedRateMaxWindow, interval: elapsed)
                * (acknowledgedBitrateMax - bitrate)
        }
    }

    /// The loss-based rate at `now`: `minBitrate` is the lowest target of the last second, `wantedBitrate` the
    /// delay-based estimate.
    public mutating func update(at now: Instant, minBitrate: Double, wantedBitrate: Double, rtt: Duration) -> Double {
        if lossBasedBitrate == 0 { lossBasedBitrate = wantedBitrate }
        // Increase only when loss has been low for a while; decrease on the lower of the average and the last
        // report, so one spike does not count twice.
        let lossForIncrease = averageLossMax
        let lossForDecrease = min(averageLoss, lastLossRatio)
        let allowDecrease = !hasDecreasedSinceLastLossReport
            && (timeLastDecrease.map { now - $0 >= rtt + Self.decreaseInterval } ?? true)
        let reportValid = lastLossPacketReport.map { now - $0 < Self.lossReportTimeout } ?? false
        if reportValid && lossForIncrease < Self.loss(at: lossBasedBitrate, balance: Self.lossBandwidthBalanceIncrease) {
            var increased = minBitrate * Self.increaseFactor(rtt: rtt) + Self.increaseOffset
            increased = min(increased, Self.bitrate(atLoss: lossForIncrease, balance: Self.lossBandwidthBalanceIncrease))
            lossBasedBitrate = max(increased, lossBasedBitrate)
        } else if lossForDecrease > Self.loss(at: lossBasedBitrate, balance: Self.lossBandwidthBalanceDecrease) && allowDecrease {
            let floor = Self.bitrate(atLoss: lossForDecrease, balance: Self.lossBandwidthBalanceDecrease)
            let decreased = max(Self.decreaseFactor * acknowledgedBitrateMax, floor)
            if decreased < lossBasedBitrate {
                timeLastDecrease = now
                hasDecreasedSinceLastLossReport = true
                lossBasedBitrate = decreased
            }
        }
        return lossBasedBitrate
    }

    /// `LossFromBitrate` with exponent 0.5: (balance ÷ rate)^0.5, 1 at or below the balance.
    package static func loss(at bitrate: Double, balance: Double) -> Double {
        balance >= bitrate ? 1 : (balance / bitrate).squareRoot()
    }

    /// `BitrateFromLoss` with exponent 0.5: balance × loss^−2 (infinite for no loss).
    package static func bitrate(atLoss loss: Double, balance: Double) -> Double {
        loss < 1e-5 ? .infinity : balance / (loss * loss)
    }

    /// 1.08 at an RTT of 200 ms or less, 1.02 at 800 ms or more, linear between (`GetIncreaseFactor`).
    package static func increaseFactor(rtt: Duration) -> Double {
        let clamped = min(max(rtt, increaseLowRTT), increaseHighRTT)
        let relative = (clamped - increaseLowRTT) / (increaseHighRTT - increaseLowRTT)
        return minIncreaseFactor + (1 - relative) * (maxIncreaseFactor - minIncreaseFactor)
    }

    /// 1 − e^(−interval/window) (`ExponentialUpdate`).
    package static func exponentialUpdate(window: Duration, interval: Duration) -> Double {
        guard window > .zero else { return 1 }
        return 1 - exponential(-(interval / window))
    }

    /// e^x for x ≤ 0 without libc: halve x until it is small, sum the Taylor series, square back.
    package static func exponential(_ x: Double) -> Double {
        guard x > -700 else { return 0 }
        var reduced = x
        var squarings = 0
        while reduced < -0.125 {
            reduced /= 2
            squarings += 1
        }
        var term = 1.0
        var sum = 1.0
        for n in 1...12 {
            term *= reduced / Double(n)
            sum += term
        }
        for _ in 0..<squarings { sum *= sum }
        return sum
    }
}
