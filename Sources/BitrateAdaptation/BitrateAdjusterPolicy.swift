import EncoderSession

/// libwebrtc's BitrateAdjuster (common_video/bitrate_adjuster.cc, used by its VideoToolbox H.264 encoder with
/// clamps 0.5 and 0.95), rewritten from its documented behaviour: the encoder gets the target scaled by a factor
/// learnt from how much the encoder actually produced.
///
/// - A new target more than `tolerance` (10%) away from the previous one, or from the target of the last
///   adjustment, resets the adjusted bitrate to the target itself at once (a big bandwidth change wants a quick
///   response, and the old penalty no longer applies).
/// - At most once per `updateInterval` (1 s) *and* `updateFrames` (30 delivered frames), the output rate over the last
///   `measurementWindow` (1.5 s) is compared with the target. If it overshot at all, or undershot by more than the
///   tolerance, the adjusted bitrate becomes target + ½ (target − measured), clamped to
///   [`minimumFactor`, `maximumFactor`] × target.
/// - The session gets `realTimeCommunication(averageBitRate: adjusted)`: average and the 1.5×/1 s hard cap both
///   follow the adjusted value, as the VideoToolbox encoder does with `SetBitrateBps(adjusted)`.
///
/// Dropped frames are not reported to the adjuster (libwebrtc's callback returns before `Update` for them).
public struct BitrateAdjusterPolicy: BitratePolicy {
    public let name = "adjuster"
    public var summary: String {
        "libwebrtc BitrateAdjuster: average = target × [\(minimumFactor), \(maximumFactor)], re-evaluated every "
            + "\(updateInterval) s and \(updateFrames) frames"
    }

    public var minimumFactor = 0.5
    public var maximumFactor = 0.95
    public var tolerance = 0.1
    public var updateInterval = 1.0
    public var updateFrames = 30
    public var measurementWindow = 1.5

    /// The network's target, bits/s (0 before the first call).
    public private(set) var target = 0
    /// What the encoder is given, bits/s.
    public private(set) var adjustedBitRate = 0
    /// Times (s) at which the adjustment was re-evaluated, for tests and plots.
    public private(set) var evaluationTimes: [Double] = []
    private var lastAdjustedTarget = 0
    private var lastUpdateTime = 0.0
    private var framesSinceUpdate = 0
    /// Delivered frames (time, bytes) of the last `measurementWindow`.
    private var recent: [(time: Double, bytes: Int)] = []
    private var firstSampleTime: Double?

    public init() {}

    public mutating func properties(forTarget target: Int, at time: Double) -> CompressionSession.LiveProperties {
        if target != self.target { setTarget(target) }
        return .realTimeCommunication(averageBitRate: max(1, adjustedBitRate))
    }

    public mutating func observe(_ frame: FrameRecord) {
        guard !frame.isDropped else { return }
        recent.append((frame.time, frame.bytes))
        if firstSampleTime == nil { firstSampleTime = frame.time }
        framesSinceUpdate += 1
        update(at: frame.time)
    }

    mutating func setTarget(_ newTarget: Int) {
        if !isWithinTolerance(newTarget, of: target) || !isWithinTolerance(newTarget, of: lastAdjustedTarget) {
            adjustedBitRate = newTarget
            lastAdjustedTarget = newTarget
        }
        target = newTarget
    }

    private func isWithinTolerance(_ value: Int, of reference: Int) -> Bool {
        guard reference > 0 else { return false }
        return abs(Double(value - reference)) / Double(reference) < tolerance
    }

    /// The output rate over the last `measurementWindow` (or since the first frame, if that is shorter).
    func measuredBitRate(at time: Double) -> Double? {
        guard let firstSampleTime else { return nil }
        let bytes = recent.reduce(0) { $0 + $1.bytes }
        // libwebrtc's RateStatistics counts whole milliseconds, the current one included: a span of at least 1 ms.
        let span = min(measurementWindow, time - firstSampleTime + 0.001)
        return Double(bytes) * 8 / span
    }

    private mutating func update(at time: Double) {
        recent.removeAll { $0.time <= time - measurementWindow }
        // Both conditions: at 60 fps the cadence is 1 s, at 15 fps it is 30 frames (2 s).
        guard time - lastUpdateTime >= updateInterval - 1e-9, framesSinceUpdate >= updateFrames else { return }
        evaluationTimes.append(time)
        let target = Double(self.target)
        let measured = measuredBitRate(at: time) ?? target
        let error = target - measured
        if measured > target || error > tolerance * target {
            let adjusted = min(max(target + 0.5 * error, minimumFactor * target), maximumFactor * target)
            adjustedBitRate = Int(adjusted)
        }
        lastUpdateTime = time
        framesSinceUpdate = 0
        lastAdjustedTarget = self.target
    }
}
