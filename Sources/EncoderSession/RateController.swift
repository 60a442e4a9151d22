#if canImport(Glibc)
import Glibc
#endif

/// The small rate controller the session wraps around the encoder's own (x264 ABR + VBV).
///
/// Three jobs:
/// 1. **VBV settings.** VBV must be on from open for x264 to accept live bitrate changes. In steady state the VBV
///    is sized so its own bound (bits in a window ≤ buffer + maxrate × window) equals the tightest data-rate limit;
///    without limits it is 1.5 × average over 1 s.
/// 2. **Transitions.** After a bitrate change x264's ABR keeps its old rate factor and, with a loose VBV, sits at
///    ~1.5× a lowered target for seconds (NOTES-libav.md). So the controller holds maxrate = new target with a
///    0.5 s buffer until the last second of output is within ±10% of the target, then relaxes towards the steady
///    ceiling step by step — and clamps back whenever the output overshoots again.
/// 3. **The hard cap.** VBV is not a hard cap (measured up to 1.16× on noise at QP 51). Before each frame the
///    controller predicts its size and refuses it if any window would overflow; after encoding it re-checks with
///    the real size. A frame refused after encoding was already a reference for the encoder, so the next frame is
///    forced to be an IDR (and frames are dropped until one fits).
struct RateController {
    private(set) var target: Int
    private(set) var limits: [DataRateLimit]
    private var window: DataRateWindow
    private(set) var current: RateSettings
    /// Presentation time (s) of the last bitrate change while a transition is running.
    private var transitionStart: Double?
    private var firstFrameTime: Double?
    private var lastPredictable = (idr: 0, nonIDR: 0, previousNonIDR: 0)
    /// When the limits last changed: a new limit governs the windows after its change, so bytes sent under the old
    /// limit do not count against it (otherwise lowering a limit would drop every frame for a window's length).
    private var limitsSince = -Double.infinity

    /// After a change, the output must stay within this fraction of the new target.
    static let settleTolerance = 0.10
    /// Buffer during a transition, seconds of the new target (measured: settles in 0.2–1.2 s).
    static let transitionBufferSeconds = 0.5
    /// How long after a change the transition's 0.5 s buffer is kept (afterwards the steady buffer, scaled).
    static let transitionWatchSeconds = 3.0
    /// Buffer while holding, seconds of the new target.
    static let holdBufferSeconds = 0.1
    /// After a change, maxrate is held at the target this long before the loop starts.
    static let holdSeconds = 0.5
    /// Output measured over this much of the recent past (the data-rate window WebRTC uses).
    static let measureSeconds = 0.5
    /// Exponent of the per-frame correction (target / measured)^gain; with a measurement lag of ~0.25 s this keeps
    /// the loop well damped (an integrator with delay τ is stable for gain × fps × τ < π/2).
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

    /// VBV for steady state: buffer + maxrate × window = the tightest limit, with 85% of it as rate.
    func steadySettings() -> RateSettings {
        if let (rate, seconds) = tightestLimit {
            let maxRate = max(target, Int(rate * 0.85))
            let buffer = max(Int(rate * seconds) - Int(Double(maxRate) * seconds), target / 4)
            return RateSettings(averageBitRate: target, maxBitRate: maxRate, bufferSize: buffer)
        }
        let maxRate = target * 3 / 2
        return RateSettings(averageBitRate: target, maxBitRate: maxRate, bufferSize: maxRate)
    }

    /// Right after a change: maxrate = target and a buffer of only `holdBufferSeconds`. x264 keeps the VBV fill
    /// it had (a full old buffer is a lot of credit), so with a large buffer it spends the old rate for several more
    /// frames — measured: five frames at the old size with a 0.5 s buffer.
    private func transitionSettings() -> RateSettings {
        RateSettings(
            averageBitRate: target, maxBitRate: target,
            bufferSize: Int(Double(target) * Self.holdBufferSeconds))
    }

    /// A live-property change; a changed bitrate starts a transition at `time`.
    mutating func update(_ live: LiveProperties, at time: Double?) {
        let changed = live.averageBitRate != target
        target = live.averageBitRate
        if live.dataRateLimits != limits, let time { limitsSince = time }
        limits = live.dataRateLimits
        window.horizon = max(1, limits.map(\.seconds).max() ?? 1)
        if changed {
            transitionStart = time ?? transitionStart ?? 0
            current = transitionSettings()
        } else if transitionStart == nil {
            current = steadySettings()
        }
    }

    /// Called before each frame at `time`: returns the settings for the encoder.
    ///
    /// For the first `holdSeconds` after a change: maxrate = target, buffer 0.5 s (what settled fastest in the
    /// measurements). After that an integrating loop on maxrate: x264 spends at maxrate whenever its ABR wants
    /// more than the VBV allows (as it does for seconds after a step down, its rate factor still tuned to the old
    /// rate), so maxrate is the one actuator that acts at once. Each frame it is scaled by (target / measured)^gain,
    /// the measured rate being the last second of output since the change; it never exceeds the steady ceiling, so
    /// when x264's own ABR wants less than the target the loop simply rests at the ceiling.
    mutating func settings(before time: Double) -> RateSettings {
        let since = transitionStart ?? firstFrameTime ?? time
        if firstFrameTime == nil { firstFrameTime = time }
        let ceiling = steadySettings()
        let elapsed = time - since
        if transitionStart != nil, elapsed < Self.holdSeconds {
            current = transitionSettings()
            return current
        }
        let span = min(Self.measureSeconds, elapsed)
        guard span >= Self.holdSeconds / 2 else { return current }
        // Measured over the window ending at the last delivered frame: (last − span, last] holds span × fps
        // frames, each standing for 1/fps of time. Ending it at `time` instead would count one frame too few and
        // bias the loop high by fps·span / (fps·span − 1) — 7% at 0.5 s and 30 fps.
        guard let last = window.lastTime else { return current }
        let measured = Double(window.bytes(inWindowOf: span, endingAt: last, notBefore: since)) * 8 / span
        guard measured > 0 else { return current }
        let factor = min(max(pow(Double(target) / measured, Self.gain), 1 / Self.maxStep), Self.maxStep)
        let maxRate = min(Double(ceiling.maxBitRate), max(Double(target) * Self.floorFraction, Double(current.maxBitRate) * factor))
        let buffer = transitionStart != nil && elapsed < Self.transitionWatchSeconds
            ? maxRate * Self.transitionBufferSeconds
            : Double(ceiling.bufferSize) * maxRate / Double(ceiling.maxBitRate)
        current = RateSettings(averageBitRate: target, maxBitRate: Int(maxRate), bufferSize: Int(buffer))
        return current
    }

    // MARK: Hard limits

    /// Bytes a new frame of `isIDR` kind is expected to take, from the last frames of that kind.
    func predictedBytes(isIDR: Bool) -> Int {
        let basis = isIDR ? lastPredictable.idr : max(lastPredictable.nonIDR, lastPredictable.previousNonIDR)
        return Int(Double(basis) * Self.predictionMargin)
    }

    /// Whether `bytes` more at `time` keep every window within its limit.
    func fits(bytes: Int, at time: Double) -> Bool {
        for limit in limits {
            let used = window.bytes(inWindowOf: limit.seconds, endingAt: time, notBefore: limitsSince)
            if used + bytes > limit.bytes { return false }
        }
        return true
    }

    /// Records a frame that was delivered.
    mutating func record(bytes: Int, isIDR: Bool, at time: Double) {
        window.record(bytes: bytes, at: time)
        if isIDR {
            lastPredictable.idr = bytes
        } else {
            lastPredictable.previousNonIDR = lastPredictable.nonIDR
            lastPredictable.nonIDR = bytes
        }
    }

    /// Bytes delivered in the window of `length` ending at `time` (for stats and tests).
    func bytes(inWindowOf length: Double, endingAt time: Double) -> Int {
        window.bytes(inWindowOf: length, endingAt: time)
    }
}
