import MediaCore

/// The rate the delay-based estimator allows: libwebrtc's `AimdRateControl`
/// (modules/remote_bitrate_estimator/aimd_rate_control.cc, used send-side by goog_cc's `DelayBasedBwe`).
///
/// A three-state machine driven by the detector: normal → increase, overusing → decrease (once, then hold until the
/// pipes clear), underusing → hold. Increase is multiplicative (× 1.08 per second, at least 1 kb/s) until the link
/// capacity is known, then additive near it (about one average packet per response time 2 × (RTT + 100 ms), at
/// least 4 kb/s per second); never above 1.5 × the acknowledged throughput + 10 kb/s. Decrease goes to β = 0.85 ×
/// the acknowledged throughput (or 0.85 × the link capacity if that would be an increase), and records the
/// throughput as a link-capacity sample.
public struct AimdRateControl: Sendable {
    /// libwebrtc's `kDefaultBackoffFactor`.
    public static let beta = 0.85
    /// libwebrtc's `kDefaultRtt`.
    public static let defaultRTT: Duration = .milliseconds(200)
    /// Multiplicative increase per second (`alpha = 1.08`).
    public static let multiplicativeIncreaseFactor = 1.08
    /// `kMinIncreaseRateBpsPerSecond`.
    public static let minNearMaxIncreaseRate = 4000.0
    /// `kInitializationTime`: without a start rate, the first estimate is the throughput after 5 s.
    public static let initializationTime: Duration = .seconds(5)
    /// libwebrtc's `kCongestionControllerMinBitrate` (5 kb/s).
    public static let defaultMinBitrate = 5000.0

    public enum State: Sendable, Hashable { case hold, increase, decrease }

    public var minBitrate: Double
    public var maxBitrate: Double
    /// The current estimate, bits/s (`LatestEstimate`).
    public private(set) var currentBitrate: Double
    public private(set) var state: State = .hold
    public private(set) var linkCapacity = LinkCapacityEstimator()
    public private(set) var isInitialized = false
    public private(set) var rtt = AimdRateControl.defaultRTT
    /// The last decrease in bits/s (nil before the first; 0 when an overuse did not lower the rate).
    public private(set) var lastDecrease: Double?
    private var latestEstimatedThroughput: Double
    private var timeLastBitrateChange: Instant?
    private var timeFirstThroughputEstimate: Instant?

    public init(minBitrate: Double = AimdRateControl.defaultMinBitrate, maxBitrate: Double = 30_000_000) {
        self.minBitrate = minBitrate
        self.maxBitrate = maxBitrate
        currentBitrate = maxBitrate
        latestEstimatedThroughput = maxBitrate
    }

    public var latestEstimate: Double { currentBitrate }

    public mutating func setStartBitrate(_ bitrate: Double) {
        currentBitrate = bitrate
        latestEstimatedThroughput = bitrate
        isInitialized = true
    }

    /// A negative RTT (feedback stamped before its packets left: a broken clock) counts as 0, so the response time
    /// 2 × (RTT + 100 ms) stays positive.
    public mutating func setRTT(_ rtt: Duration) { self.rtt = max(rtt, .zero) }

    /// Forces the estimate (a probe's result, or halving before any throughput is known).
    public mutating func setEstimate(_ bitrate: Double, at now: Instant) {
        isInitialized = true
        currentBitrate = clamp(bitrate)
        timeLastBitrateChange = now
    }

    /// Whether an overuse now should lower the rate again: an RTT (10–200 ms) since the last change, or the
    /// throughput fell below half the estimate.
    public func timeToReduceFurther(at now: Instant, estimatedThroughput: Double) -> Bool {
        let interval = min(max(rtt, .milliseconds(10)), .milliseconds(200))
        if let last = timeLastBitrateChange, now - last < interval {
            return isInitialized && estimatedThroughput < 0.5 * currentBitrate
        }
        return true
    }

    /// `InitialTimeToReduceFurther`: before any throughput is known.
    public func initialTimeToReduceFurther(at now: Instant) -> Bool {
        isInitialized && timeToReduceFurther(at: now, estimatedThroughput: currentBitrate / 2 - 1)
    }

    /// The detector's state and the acknowledged throughput (nil when not known yet) at `now`; returns the estimate.
    @discardableResult
    public mutating func update(usage: BandwidthUsage, estimatedThroughput: Double?, at now: Instant) -> Double {
        if !isInitialized {
            if timeFirstThroughputEstimate == nil {
                if estimatedThroughput != nil { timeFirstThroughputEstimate = now }
            } else if let first = timeFirstThroughputEstimate, now - first > Self.initializationTime,
                      let throughput = estimatedThroughput {
                currentBitrate = throughput
                isInitialized = true
            }
        }
        changeBitrate(usage: usage, estimatedThroughput: estimatedThroughput, at: now)
        return currentBitrate
    }

    /// bits/s per second of additive increase: one average packet (of a 30 fps frame in ≤ 1200-byte packets) per
    /// response time, 2 × (RTT + 100 ms), at least 4 kb/s per second (`GetNearMaxIncreaseRateBpsPerSecond`).
    public var nearMaxIncreaseRatePerSecond: Double {
        let frameBits = currentBitrate / 30
        let packetsPerFrame = (frameBits / (1200 * 8)).rounded(.up)
        let averagePacketBits = frameBits / max(packetsPerFrame, 1)
        let responseTime = 2 * (rtt + .milliseconds(100)).gccSeconds
        return max(Self.minNearMaxIncreaseRate, (averagePacketBits / responseTime).rounded())
    }

    /// How long recovering the last decrease takes at the additive rate, 2–50 s (3 s before any decrease):
    /// `GetExpectedBandwidthPeriod`.
    public var expectedBandwidthPeriod: Duration {
        guard let lastDecrease else { return .seconds(3) }
        let seconds = lastDecrease / nearMaxIncreaseRatePerSecond
        return .milliseconds(Int64((min(max(seconds, 2), 50) * 1000).rounded()))
    }

    private mutating func changeBitrate(usage: BandwidthUsage, estimatedThroughput input: Double?, at now: Instant) {
        let throughput = input ?? latestEstimatedThroughput
        if let input { latestEstimatedThroughput = input }
        // An overuse always acts, even before the first estimate: acting on it gives one.
        guard isInitialized || usage == .overusing else { return }
        changeState(usage: usage, at: now)

        var newBitrate: Double?
        switch state {
        case .hold:
            break
        case .increase:
            if throughput > linkCapacity.upperBound { linkCapacity.reset() }
            // More lag allowed at low rates so an uneven encoder does not get stuck.
            let increaseLimit = 1.5 * throughput + 10_000
            if currentBitrate < increaseLimit {
                let increased: Double
                if linkCapacity.hasEstimate {
                    increased = currentBitrate + additiveIncrease(at: now)
                } else {
                    increased = currentBitrate + multiplicativeIncrease(at: now)
                }
                newBitrate = min(increased, increaseLimit)
            }
            timeLastBitrateChange = now
        case .decrease:
            // Slightly below the measured throughput, to drain the queue this sender built.
            var decreased = (throughput * Self.beta).rounded()
            if decreased > currentBitrate, let capacity = linkCapacity.estimate {
                decreased = (Self.beta * capacity).rounded()
            }
            if decreased < currentBitrate { newBitrate = decreased }
            if isInitialized && throughput < currentBitrate {
                lastDecrease = newBitrate.map { currentBitrate - $0 } ?? 0
            }
            if throughput < linkCapacity.lowerBound {
                // Far from the capacity estimate: start it over from this sample.
                linkCapacity.reset()
            }
            isInitialized = true
            linkCapacity.onOveruseDetected(acknowledgedRate: throughput)
            // Hold until the pipes are cleared.
            state = .hold
            timeLastBitrateChange = now
        }
        currentBitrate = clamp(newBitrate ?? currentBitrate)
    }

    private mutating func changeState(usage: BandwidthUsage, at now: Instant) {
        switch usage {
        case .normal:
            if state == .hold {
                timeLastBitrateChange = now
                state = .increase
            }
        case .overusing:
            state = .decrease
        case .underusing:
            state = .hold
        }
    }

    private func multiplicativeIncrease(at now: Instant) -> Double {
        var alpha = Self.multiplicativeIncreaseFactor
        if let last = timeLastBitrateChange {
            alpha = Self.multiplicativeFactor(afterSeconds: min((now - last).gccSeconds, 1.0))
        }
        return max((currentBitrate * (alpha - 1)).rounded(), 1000)
    }

    /// 1.08^t for t in 0…1 s, as exp(t · ln 1.08) by its Taylor series: the standard library has no `pow`, and
    /// CongestionControl imports no libc. |t · ln 1.08| ≤ 0.077, so 8 terms are exact to well below 1e-15.
    package static func multiplicativeFactor(afterSeconds t: Double) -> Double {
        let x = t * 0.076_961_041_136_128_32  // ln 1.08
        var term = 1.0
        var sum = 1.0
        for n in 1...8 {
            term *= x / Double(n)
            sum += term
        }
        return sum
    }

    private func additiveIncrease(at now: Instant) -> Double {
        guard let last = timeLastBitrateChange else { return 0 }
        return (nearMaxIncreaseRatePerSecond * (now - last).gccSeconds).rounded()
    }

    private func clamp(_ bitrate: Double) -> Double { min(max(bitrate, minBitrate), maxBitrate) }
}
