#if canImport(Glibc)
import Glibc
#endif

/// The small rate controller the session wraps around the encoder's own (x264 ABR + VBV).
///
/// 1. **VBV from open.** x264 accepts live bitrate changes only if VBV was on at open. In steady state the VBV is
///    sized so that its own bound (bits in a window ≤ buffer + maxrate × window) equals the tightest data-rate
///    limit: maxrate 85% of the limit's rate, the rest as buffer. Without limits: 1.5 × average over 1 s.
/// 2. **Steps.** After a bitrate change x264's ABR keeps its old rate factor and spends well above a lowered
///    target for seconds (NOTES-libav.md; measured here 1.28× at 6 s). So for `holdSeconds` after a change
///    maxrate = new target with a small buffer (x264 keeps its VBV fill across a reconfig — with a 0.5 s buffer it
///    spent five more frames at the old size), then an integrating loop scales maxrate by
///    (target / measured)^gain per frame, the measured rate being the last `measureSeconds` of output since the
///    change. Whenever x264 wants more than the VBV allows it spends at maxrate, so maxrate is the actuator that
///    acts at once; when x264 wants less, the loop rests at the steady ceiling.
/// 3. **The hard cap.** VBV is not a hard cap. Before each frame the controller predicts its size and refuses it if
///    a window would overflow; after encoding the session re-checks with the real size (`fits`).
///
/// The effective target is the average bitrate, but never above the steady maxrate: a limit tighter than the
/// average wins (VideoToolbox: "hard limits").
struct RateController {
    private(set) var target: Int
    private(set) var limits: [DataRateLimit]
    private var window: DataRateWindow
    private(set) var current: RateSettings
    /// Presentation time (s) of the last bitrate change, until the loop has run for `transitionSeconds`.
    private var transitionStart: Double?
    private var firstFrameTime: Double?
    /// When the limits last changed: a new limit governs the windows after its change, so bytes sent under the old
    /// limit do not count against it (otherwise lowering a limit would drop every frame for a window's length).
    private var limitsSince = -Double.infinity
    private var lastSizes = (idr: 0, nonIDR: 0, previousNonIDR: 0)

    /// Share of the tightest limit's rate given to the VBV as maxrate in steady state; the rest is buffer.
    static let steadyMaxRateShare = 0.85
    /// After a change, maxrate is held at the target this long before the loop starts.
    static let holdSeconds = 0.5
    /// Buffer while holding, seconds of the new target.
    static let holdBufferSeconds = 0.1
    /// Buffer while the loop runs after a change, seconds of maxrate.
    static let transitionBufferSeconds = 0.5
    /// How long after a change the transition buffer is kept (afterwards the steady buffer, scaled).
    static let transitionSeconds = 3.0
    /// Output measured over this much of the recent past.
    static let measureSeconds = 0.5
    /// Exponent of the per-frame correction (target / measured)^gain. An integrator with delay τ is stable for
    /// gain × fps × τ < π/2; with τ ≈ 0.25 s at 30 fps, 1/16 gives ≈ 0.47 — well damped. (1/8 with a 1 s
    /// measurement oscillated ±20% with a 4 s period.)
    static let gain = 1.0 / 16
    /// Largest per-frame change of maxrate by the loop.
    static let maxStep = 1.02
    /// The loop never sets maxrate below this fraction of the target.
    static let floorFraction = 0.5
    /// Safety factor on predicted frame sizes when deciding a pre-encode drop.
    static let predictionMargin = 1.1

    init(live: LiveProperties) {
        target = live.averageBitRate
        limits = live.dataRateLimits
        window = DataRateWindow(horizon: max(1, live.dataRateLimits.map(\.seconds).max() ?? 1))
        current = RateSettings(averageBitRate: 0, maxBitRate: 0, bufferSize: 0)
        current = steadySettings()
    }

    /// The tightest data-rate limit as bits/s and the length of its window.
    private var tightestLimit: (rate: Double, seconds: Double)? {
        limits.min { $0.bitsPerSecond < $1.bitsPerSecond }.map { ($0.bitsPerSecond, $0.seconds) }
    }

    /// The average bitrate actually aimed at: `target`, unless a hard limit is tighter.
    var effectiveTarget: Int {
        guard let (rate, _) = tightestLimit else { return target }
        return min(target, Int(rate * Self.steadyMaxRateShare))
    }

    /// VBV for steady state.
    func steadySettings() -> RateSettings {
        let aim = effectiveTarget
        if let (rate, seconds) = tightestLimit {
            let maxRate = max(aim, Int(rate * Self.steadyMaxRateShare))
            // Two frames' worth at least, so a P-frame always fits the buffer.
            let buffer = max(Int((rate - Double(maxRate)) * seconds), maxRate / 15)
            return RateSettings(averageBitRate: aim, maxBitRate: maxRate, bufferSize: buffer)
        }
        let maxRate = aim * 3 / 2
        return RateSettings(averageBitRate: aim, maxBitRate: maxRate, bufferSize: maxRate)
    }

    private func holdSettings() -> RateSettings {
        let aim = effectiveTarget
        return RateSettings(averageBitRate: aim, maxBitRate: aim, bufferSize: Int(Double(aim) * Self.holdBufferSeconds))
    }

    /// A live-property change at `time` (the presentation time of the first frame it applies to).
    mutating func update(_ live: LiveProperties, at time: Double?) {
        let changed = live.averageBitRate != target || live.dataRateLimits != limits
        target = live.averageBitRate
        if live.dataRateLimits != limits, let time { limitsSince = time }
        limits = live.dataRateLimits
        window.horizon = max(1, limits.map(\.seconds).max() ?? 1)
        if changed {
            transitionStart = time ?? transitionStart ?? 0
            current = holdSettings()
        }
    }

    /// Called before each frame at `time`: returns the settings for the encoder (see the type's documentation).
    mutating func settings(before time: Double) -> RateSettings {
        if firstFrameTime == nil { firstFrameTime = time }
        let since = transitionStart ?? firstFrameTime ?? time
        let elapsed = time - since
        if transitionStart != nil, elapsed < Self.holdSeconds {
            current = holdSettings()
            return current
        }
        if let start = transitionStart, time - start >= Self.transitionSeconds + Self.holdSeconds {
            transitionStart = nil
        }
        let span = min(Self.measureSeconds, elapsed)
        // Measured over the window ending at the last delivered frame: (last − span, last] holds span × fps
        // frames, each standing for 1/fps of time. Ending it at `time` would count one frame too few and bias the
        // loop high by fps·span / (fps·span − 1) — 7% at 0.5 s and 30 fps.
        guard span >= Self.holdSeconds / 2, let last = window.lastTime else { return current }
        let measured = Double(window.bytes(inWindowOf: span, endingAt: last, notBefore: since)) * 8 / span
        guard measured > 0 else { return current }
        let aim = Double(effectiveTarget)
        let ceiling = steadySettings()
        let factor = min(max(pow(aim / measured, Self.gain), 1 / Self.maxStep), Self.maxStep)
        let maxRate = min(Double(ceiling.maxBitRate), max(aim * Self.floorFraction, Double(current.maxBitRate) * factor))
        let buffer = transitionStart != nil
            ? maxRate * Self.transitionBufferSeconds
            : Double(ceiling.bufferSize) * maxRate / Double(ceiling.maxBitRate)
        current = RateSettings(averageBitRate: Int(aim), maxBitRate: Int(maxRate), bufferSize: Int(buffer))
        return current
    }

    // MARK: Hard limits

    /// Bytes a new frame is expected to take, from the last frames of its kind (0 when none seen yet).
    func predictedBytes(isIDR: Bool) -> Int {
        let basis = isIDR ? lastSizes.idr : max(lastSizes.nonIDR, lastSizes.previousNonIDR)
        var predicted = Int(Double(basis) * Self.predictionMargin)
        // A frame bigger than a whole window can never fit; try it once the window is empty rather than refuse
        // every frame forever (the real size decides after encoding).
        if let smallest = limits.map(\.bytes).min() { predicted = min(predicted, smallest) }
        return predicted
    }

    /// Whether `bytes` more at `time` keep every window within its limit.
    func fits(bytes: Int, at time: Double) -> Bool {
        for limit in limits {
            let used = window.bytes(inWindowOf: limit.seconds, endingAt: time, notBefore: limitsSince)
            if used + bytes > limit.bytes { return false }
        }
        return true
    }

    /// Records a delivered frame.
    mutating func record(bytes: Int, isIDR: Bool, at time: Double) {
        window.record(bytes: bytes, at: time)
        if isIDR {
            lastSizes.idr = bytes
        } else {
            lastSizes.previousNonIDR = lastSizes.nonIDR
            lastSizes.nonIDR = bytes
        }
    }
}
