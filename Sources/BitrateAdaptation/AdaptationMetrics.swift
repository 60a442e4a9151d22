/// How well a run followed its scenario. Every number is derived from the frame records alone, so a test can build
/// records by hand and know the answer.
///
/// Definitions (W = `window`, 1 s by default; frames are Δ = 1/fps apart; a frame stands for Δ of time):
/// - **Rate of a window**: bytes × 8 / W.
/// - **Sliding windows** end at each frame: frames with t − W < tᵢ ≤ t. Full once t ≥ t₀ + W − Δ; only full
///   windows enter the mean absolute error and the overshoot.
/// - **Mean absolute error**: mean over full sliding windows of |rate − τ| / τ, where τ is the mean of the frames'
///   targets in that window (so a window across a change is judged against the mix it spans).
/// - **Overshoot**: the largest full sliding window's rate / τ, minus 1 (0 when never above).
/// - **Convergence after a change** at c, whose target holds until e: windows [s, s + W) starting at each frame
///   time s with c ≤ s and s + W ≤ e. It converged at the first such s from which every later one is within
///   ±`tolerance` of the new target; the convergence time is s − c (0 when the first window is already within).
///   nil when the last window is still outside. Evaluated only when e − c ≥ 2W, so at least W of settling can be
///   seen; shorter segments (ramps, traces) are judged by the mean absolute error instead.
/// - **Cap violations**: the session's hard limit is `capFactor` × target per `capWindow` (VideoToolbox-style
///   DataRateLimits, which start over when they change): the window ending at each frame, counting only frames at
///   or after the last change of target, must hold ≤ capFactor × target(t) × capWindow / 8 bytes. Each frame whose
///   window holds more counts once.
public struct AdaptationMetrics: Sendable, Hashable, Codable {
    public struct Parameters: Sendable, Hashable, Codable {
        public var window: Double = 1
        public var tolerance: Double = 0.10
        public var capFactor: Double = 1.5
        public var capWindow: Double = 1
        /// Nominal frame interval Δ, seconds.
        public var frameInterval: Double

        public init(frameRate: Double) {
            frameInterval = 1 / frameRate
        }
    }

    /// The response to one change of target (the start of the run counts as change 0).
    public struct ChangeResponse: Sendable, Hashable, Codable {
        public var time: Double
        public var fromBitRate: Int?
        public var toBitRate: Int
        /// Whether the segment was long enough (≥ 2W) to judge convergence.
        public var evaluated: Bool
        /// Seconds from the change until every later full window is within tolerance; nil when not evaluated or
        /// never converged.
        public var convergenceSeconds: Double?
        /// Rate of the window [c, c + W) over the new target (the first second's response).
        public var firstWindowRatio: Double?
        /// Largest window [s, s + W) in the segment over the new target.
        public var peakRatio: Double?
    }

    public var parameters: Parameters
    public var frames: Int
    public var droppedFrames: Int
    public var keyFrames: Int
    /// All bytes × 8 / scenario duration.
    public var meanBitRate: Double
    public var meanAbsoluteError: Double
    public var overshoot: Double
    public var capViolations: Int
    /// Largest (bytes since the last change in the cap window) / cap; ≤ 1 means no violation.
    public var worstCapRatio: Double
    public var responses: [ChangeResponse]

    /// Changes after the start whose convergence could be judged.
    public var stepResponses: [ChangeResponse] { responses.dropFirst().filter(\.evaluated) }
    /// The slowest convergence over `stepResponses`; nil when none was judged; +∞ when one never converged.
    public var worstStepResponseSeconds: Double? {
        let judged = stepResponses
        guard !judged.isEmpty else { return nil }
        return judged.map { $0.convergenceSeconds ?? .infinity }.max()
    }

    public init(frames records: [FrameRecord], scenario: Scenario, parameters: Parameters) {
        self.parameters = parameters
        let timeline = FrameTimeline(records)
        let window = parameters.window
        frames = records.count
        droppedFrames = records.count(where: \.isDropped)
        keyFrames = records.count(where: \.isKeyFrame)
        let totalBytes = records.reduce(0) { $0 + $1.bytes }
        meanBitRate = Double(totalBytes) * 8 / scenario.duration

        // Sliding windows ending at each frame: error, overshoot, cap.
        var errorSum = 0.0, fullWindows = 0, worstRatio = 0.0
        var violations = 0, worstCap = 0.0
        var targetSum = 0.0, windowStart = 0
        let firstTime = records.first?.time ?? 0
        for (index, record) in records.enumerated() {
            targetSum += Double(record.target)
            while records[windowStart].time <= record.time - window + FrameTimeline.slack {
                targetSum -= Double(records[windowStart].target)
                windowStart += 1
            }
            if record.time >= firstTime + window - parameters.frameInterval - FrameTimeline.slack {
                let rate = Double(timeline.bytes(after: record.time - window, through: record.time)) * 8 / window
                let meanTarget = targetSum / Double(index - windowStart + 1)
                errorSum += abs(rate - meanTarget) / meanTarget
                worstRatio = max(worstRatio, rate / meanTarget)
                fullWindows += 1
            }
            let change = scenario.changes[scenario.changeIndex(at: record.time)]
            let capStart = max(record.time - parameters.capWindow, change.time - FrameTimeline.slack * 2)
            let capBytes = Double(timeline.bytes(after: capStart, through: record.time))
            let cap = parameters.capFactor * Double(change.bitRate) * parameters.capWindow / 8
            if capBytes > cap { violations += 1 }
            worstCap = max(worstCap, capBytes / cap)
        }
        meanAbsoluteError = fullWindows > 0 ? errorSum / Double(fullWindows) : 0
        overshoot = max(0, worstRatio - 1)
        capViolations = violations
        worstCapRatio = worstCap

        responses = scenario.changes.indices.map { index in
            Self.response(to: index, scenario: scenario, timeline: timeline, parameters: parameters)
        }
    }

    static func response(
        to index: Int, scenario: Scenario, timeline: FrameTimeline, parameters: Parameters
    ) -> ChangeResponse {
        let change = scenario.changes[index]
        let end = scenario.segmentEnd(index)
        let window = parameters.window
        let target = Double(change.bitRate)
        var response = ChangeResponse(
            time: change.time, fromBitRate: index > 0 ? scenario.changes[index - 1].bitRate : nil,
            toBitRate: change.bitRate, evaluated: end - change.time >= 2 * window - FrameTimeline.slack)
        // Window starts: frame times in [c, e − W].
        let first = timeline.firstIndex(atOrAfter: change.time)
        let last = timeline.firstIndex(after: end - window)
        guard first < last else { return response }
        var settledFrom: Double?
        var peak = 0.0
        for start in timeline.times[first..<last] {
            let ratio = Double(timeline.bytes(from: start, before: start + window)) * 8 / window / target
            if response.firstWindowRatio == nil { response.firstWindowRatio = ratio }
            peak = max(peak, ratio)
            if abs(ratio - 1) <= parameters.tolerance {
                if settledFrom == nil { settledFrom = start }
            } else {
                settledFrom = nil
            }
        }
        response.peakRatio = peak
        if response.evaluated, let settledFrom { response.convergenceSeconds = max(0, settledFrom - change.time) }
        return response
    }
}
