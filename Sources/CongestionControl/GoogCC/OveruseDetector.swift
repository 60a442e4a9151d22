/// What the delay-based detector concludes about the path: libwebrtc's `BandwidthUsage`
/// (api/transport/bandwidth_usage.h).
public enum BandwidthUsage: Sendable, Hashable {
    /// Delay is steady: the rate may grow.
    case normal
    /// Delay is growing: a queue is building; back off.
    case overusing
    /// Delay is shrinking: a queue is draining; hold.
    case underusing
}

/// The adaptive-threshold overuse detector: compares the trendline's modified trend `m` against a threshold `γ` that
/// follows `|m|` — rising slowly while `|m| ≥ γ` (`k_up` 0.0087 per ms), falling fast while `|m| < γ` (`k_down`
/// 0.039 per ms), clamped to 6–600 ms, and not adapted at all when `|m|` exceeds `γ` by more than 15 ms (a capacity
/// drop's spike must not raise the bar). Overuse is signalled once `m > γ` has lasted more than 10 ms of send time
/// over more than one sample and the trend is not falling. libwebrtc keeps this inside `TrendlineEstimator::Detect`
/// and `UpdateThreshold` (modules/congestion_controller/goog_cc/trendline_estimator.cc: `kMaxAdaptOffsetMs` 15,
/// `kOverUsingTimeThreshold` 10, `threshold_(12.5)`, `k_up_(0.0087)`, `k_down_(0.039)`, `kMaxTimeDeltaMs` 100);
/// it is its own type here so the threshold can be tested alone.
public struct OveruseDetector: Sendable {
    /// libwebrtc's initial `threshold_`, ms.
    public static let initialThreshold = 12.5
    /// libwebrtc's `k_up_`: the threshold's gain per ms while `|m|` is above it.
    public static let kUp = 0.0087
    /// libwebrtc's `k_down_`: the threshold's gain per ms while `|m|` is below it.
    public static let kDown = 0.039
    /// libwebrtc's `kMaxAdaptOffsetMs`: no adaptation when `|m| > γ + 15`.
    public static let maxAdaptOffset = 15.0
    /// libwebrtc's `kOverUsingTimeThreshold`, ms.
    public static let overusingTimeThreshold = 10.0
    /// The clamp on the threshold, ms (`SafeClamp(threshold_, 6.f, 600.f)`).
    public static let thresholdRange = 6.0...600.0
    /// libwebrtc's `kMaxTimeDeltaMs`: a long gap adapts the threshold as if 100 ms had passed.
    public static let maxTimeDelta = 100.0

    /// γ, ms.
    public private(set) var threshold = OveruseDetector.initialThreshold
    public private(set) var state: BandwidthUsage = .normal
    /// -1 (libwebrtc's "not over-using"): nil.
    private var timeOverUsing: Double?
    private var overuseCounter = 0
    private var previousTrend = 0.0
    private var lastUpdate: Double?

    public init() {}

    /// One sample: the modified trend `m` (ms), the raw trend it came from, the send delta of the group (ms) and
    /// the time (ms, the arrival clock libwebrtc uses). Returns the new state.
    @discardableResult
    public mutating func detect(modifiedTrend: Double, trend: Double, sendDelta: Double, now: Double) -> BandwidthUsage {
        if modifiedTrend > threshold {
            // Assume over-use for half the time since the previous sample when it starts.
            timeOverUsing = timeOverUsing.map { $0 + sendDelta } ?? sendDelta / 2
            overuseCounter += 1
            if let time = timeOverUsing, time > Self.overusingTimeThreshold, overuseCounter > 1, trend >= previousTrend {
                timeOverUsing = 0
                overuseCounter = 0
                state = .overusing
            }
        } else if modifiedTrend < -threshold {
            timeOverUsing = nil
            overuseCounter = 0
            state = .underusing
        } else {
            timeOverUsing = nil
            overuseCounter = 0
            state = .normal
        }
        previousTrend = trend
        updateThreshold(modifiedTrend: modifiedTrend, now: now)
        return state
    }

    /// Before the estimator has two deltas libwebrtc reports normal without touching the threshold.
    public mutating func resetToNormal() { state = .normal }

    private mutating func updateThreshold(modifiedTrend: Double, now: Double) {
        let last = lastUpdate ?? now
        lastUpdate = now
        let magnitude = abs(modifiedTrend)
        if magnitude > threshold + Self.maxAdaptOffset { return }
        let k = magnitude < threshold ? Self.kDown : Self.kUp
        let timeDelta = min(now - last, Self.maxTimeDelta)
        threshold += k * (magnitude - threshold) * timeDelta
        threshold = min(max(threshold, Self.thresholdRange.lowerBound), Self.thresholdRange.upperBound)
    }
}
