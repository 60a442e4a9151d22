import MediaCore

/// Whether the sender is application-limited: sending well under its target, so feedback cannot show the path's
/// capacity. libwebrtc's `AlrDetector` (modules/congestion_controller/goog_cc/alr_detector.cc) over an
/// `IntervalBudget` (modules/pacing/interval_budget.cc): a 500 ms budget refilled at 65 % of the target
/// (`bandwidth_usage_ratio`) and drained by every byte sent; ALR starts when more than 80 % of the budget is left
/// unused (`start_budget_level_ratio`) and ends below 50 % (`stop_budget_level_ratio`). libwebrtc stamps the start
/// with its wall clock; here it is the send time of the packet that started it.
public struct AlrDetector: Sendable {
    public static let bandwidthUsageRatio = 0.65
    public static let startBudgetLevelRatio = 0.80
    public static let stopBudgetLevelRatio = 0.50
    /// `IntervalBudget`'s `kWindowMs`.
    public static let window: Duration = .milliseconds(500)

    /// When the current application-limited region began (nil: not in one).
    public private(set) var startTime: Instant?
    private var targetRateKbps = 0.0
    private var maxBytesInBudget = 0.0
    private var bytesRemaining = 0.0
    private var lastSendTime: Instant?

    public init() {}

    public var inALR: Bool { startTime != nil }

    /// The target the sender is allowed, bits/s.
    public mutating func setEstimatedBitrate(_ bitsPerSecond: Double) {
        targetRateKbps = bitsPerSecond * Self.bandwidthUsageRatio / 1000
        maxBytesInBudget = Self.window.gccMilliseconds * targetRateKbps / 8
        bytesRemaining = min(max(-maxBytesInBudget, bytesRemaining), maxBytesInBudget)
    }

    /// `bytes` left at `sendTime`.
    public mutating func onBytesSent(_ bytes: Int, at sendTime: Instant) {
        guard let last = lastSendTime else {
            // The time the first bytes took is unknown: nothing to account yet.
            lastSendTime = sendTime
            return
        }
        let elapsed = max(0, (sendTime - last).gccMilliseconds)
        lastSendTime = max(last, sendTime)
        bytesRemaining = max(bytesRemaining - Double(bytes), -maxBytesInBudget)
        // The budget may build up underuse (`can_build_up_underuse`).
        bytesRemaining = min(bytesRemaining + targetRateKbps * elapsed / 8, maxBytesInBudget)
        let ratio = maxBytesInBudget == 0 ? 0 : bytesRemaining / maxBytesInBudget
        if ratio > Self.startBudgetLevelRatio && startTime == nil {
            startTime = sendTime
        } else if ratio < Self.stopBudgetLevelRatio && startTime != nil {
            startTime = nil
        }
    }
}
