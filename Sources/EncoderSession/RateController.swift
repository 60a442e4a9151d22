#if canImport(Glibc)
    import Glibc
#endif

/// The small rate controller the session wraps around the encoder's own (x264 ABR + VBV).
///
/// What x264 does with live changes decides the design. libavcodec passes bit_rate, rc_max_rate and
/// rc_buffer_size to x264_encoder_reconfig between frames (only if VBV was on at open), but x264 applies only the
/// VBV part: its ABR target is fixed at open (ratecontrol.c: "We don't support changing the ABR bitrate right
/// now"). Measured: after 2 Mb/s → 500 kb/s the output sits at whatever the VBV allows (1.28× with maxrate at
/// 0.85 × the 1.5× cap, for 6 s and more); after 500 kb/s → 2 Mb/s it stays at 500 kb/s for 9 s and more.
///
/// So the VBV maxrate is the actuator:
/// 1. x264 is opened with its ABR target at `abrHeadroom` × the target (see `X264Backend`), so it always
///    wants more than the VBV allows and spends at maxrate; a target above `abrHeadroom / 2` × the opening one needs
///    a reopen (`EncoderEngine` does it; the next frame is an IDR).
/// 2. For `holdSeconds` after the first frame and after every change: maxrate = target, buffer `holdBufferSeconds`
///    (x264 keeps its VBV fill across a reconfig; with a 0.5 s buffer it spent five more frames at the old size).
/// 3. Then an integrating loop scales maxrate by (target / measured)^gain per frame, measuring the last
///    `measureSeconds` of output since the change, within [floorFraction × target, steady ceiling], while the
///    buffer grows back to the steady one over `transitionSeconds`.
/// 4. Steady ceiling: buffer + maxrate × window = the tightest data-rate limit (maxrate 85% of its rate), so the
///    VBV's own bound already respects it; without limits 1.5 × target over 1 s.
/// 5. The hard cap: VBV is not one. Before each frame the session asks `fits` with a predicted size and refuses the
///    frame if a window would overflow; after encoding it asks again with the real size.
///
/// The effective target is the average bitrate, but never above the steady maxrate: a limit tighter than the
/// average wins (VideoToolbox: "hard limits").
///
/// With `RateControl.encoderVBV` none of this runs: x264 is opened at the target itself, the VBV is set from the
/// limits as a plain libavcodec user would (`encoderSettings`), every change is handed straight to the encoder and
/// nothing is dropped (`enforcesLimits` is false). The window still records every frame, for the statistics.
struct RateController {
    let mode: RateControl
    private(set) var target: Int
    private(set) var limits: [DataRateLimit]
    private var window: DataRateWindow
    private(set) var current: RateSettings
    /// Presentation time (s) the current transition started at (first frame, or the first frame after a change).
    private var transitionStart: Double?
    private var transitionPending = true
    /// When the limits last changed: a new limit governs the windows after its change, so bytes sent under the old
    /// limit do not count against it (otherwise lowering a limit would drop every frame for a window's length).
    private var limitsSince = -Double.infinity
    /// The limit regimes in force before `limitsSince`, oldest first, each from its `since` to the next one's (the
    /// last to `limitsSince`); pruned once they end before any window can reach them. A window that spans changes may
    /// hold up to the largest allowance of the regimes it overlaps (bytes were sent under those limits), never their
    /// sum. One previous regime is not enough: after 1.9 M → 580 k → 500 k within a second, the window at the second
    /// change still holds bytes sent under the 1.9 M limit, and judging them by 580 k dropped frames no limit required.
    private var earlierRegimes: [(since: Double, limits: [DataRateLimit])] = []
    private var lastSizes = (idr: 0, nonIDR: 0, previousNonIDR: 0)

    /// x264's ABR target as a multiple of the target it was opened for.
    static let abrHeadroom = 8
    /// Share of the tightest limit's rate given to the VBV as maxrate in steady state; the rest is buffer.
    static let steadyMaxRateShare = 0.85
    /// After a change, maxrate is held at the target this long before the loop starts.
    static let holdSeconds = 0.5
    /// Buffer while holding, seconds of the target.
    static let holdBufferSeconds = 0.1
    /// How long after the hold the buffer takes to grow back to the steady one. (A jump from 0.1 s to 0.5 s right
    /// after the hold was spent at once: windows at 1.14×.)
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

    init(live: LiveProperties, mode: RateControl = .session) {
        self.mode = mode
        target = live.averageBitRate
        limits = live.dataRateLimits
        window = DataRateWindow(horizon: max(1, live.dataRateLimits.map(\.seconds).max() ?? 1))
        current = RateSettings(averageBitRate: 0, maxBitRate: 0, bufferSize: 0)
        current = mode == .session ? steadySettings() : encoderSettings()
    }

    /// Whether frames are held to `limits` (dropped rather than overflow a window).
    var enforcesLimits: Bool { mode == .session && !limits.isEmpty }

    /// The tightest data-rate limit as bits/s and the length of its window.
    private var tightestLimit: (rate: Double, seconds: Double)? {
        limits.min { $0.bitsPerSecond < $1.bitsPerSecond }.map { ($0.bitsPerSecond, $0.seconds) }
    }

    /// The average bitrate actually aimed at: `target`, unless a hard limit is tighter.
    var effectiveTarget: Int {
        guard let (rate, _) = tightestLimit else { return target }
        return min(target, Int(rate * Self.steadyMaxRateShare))
    }

    /// The ABR target to open a live-reconfigurable encoder (x264) with.
    var abrBitRate: Int {
        mode == .session ? min(Limits.maxBitRate, effectiveTarget * Self.abrHeadroom) : target
    }

    /// `RateControl.encoderVBV`: ABR at the target, VBV maxrate at the tightest limit's rate with that limit's
    /// window as buffer; without limits 1.5 × target and 1 s. (maxrate stays above the target, or libx264 would
    /// switch to CBR.)
    func encoderSettings() -> RateSettings {
        guard let (rate, seconds) = tightestLimit else {
            return RateSettings(averageBitRate: target, maxBitRate: target * 3 / 2, bufferSize: target * 3 / 2)
        }
        let maxRate = max(Int(rate), target + target / 20)
        return RateSettings(averageBitRate: target, maxBitRate: maxRate, bufferSize: Int(Double(maxRate) * seconds))
    }

    /// VBV for steady state (the loop's ceiling).
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

    /// What an encoder that reads its rate only at open (libx265, VA-API) is opened with and keeps: the steady VBV.
    /// The hold after a change (maxrate at the target, a 0.1 s buffer) is meant for half a second of a VBV the
    /// controller steers; frozen into such an encoder for its life it would starve every IDR. With
    /// `RateControl.encoderVBV`: the plain settings (`encoderSettings`).
    var fixedRateSettings: RateSettings { mode == .session ? steadySettings() : current }

    private func holdSettings() -> RateSettings {
        let aim = effectiveTarget
        return RateSettings(averageBitRate: aim, maxBitRate: aim, bufferSize: Int(Double(aim) * Self.holdBufferSeconds))
    }

    /// A live-property change, applied from the frame at `time`.
    mutating func update(_ live: LiveProperties, at time: Double?) {
        let changed = live.averageBitRate != target || live.dataRateLimits != limits
        target = live.averageBitRate
        if live.dataRateLimits != limits, let time {
            earlierRegimes.append((since: limitsSince, limits: limits))
            limitsSince = time
            // A regime that ended more than the longest window ago can no longer be reached by any window.
            let reach = max(1, live.dataRateLimits.map(\.seconds).max() ?? 1, limits.map(\.seconds).max() ?? 1)
            while earlierRegimes.count > 1, earlierRegimes[1].since < time - 2 * reach { earlierRegimes.removeFirst() }
        }
        limits = live.dataRateLimits
        window.horizon = max(1, limits.map(\.seconds).max() ?? 1)
        if mode == .encoderVBV {
            current = encoderSettings()
            return
        }
        if changed {
            transitionPending = true
            current = holdSettings()
        }
    }

    /// Called before each frame at `time`: returns the settings for the encoder (see the type's documentation).
    mutating func settings(before time: Double) -> RateSettings {
        if mode == .encoderVBV { return current }
        if transitionPending {
            transitionPending = false
            transitionStart = time
        }
        let since = transitionStart ?? -.infinity
        let elapsed = time - since
        if elapsed < Self.holdSeconds {
            current = holdSettings()
            return current
        }
        if elapsed >= Self.holdSeconds + Self.transitionSeconds { transitionStart = nil }
        let span = min(Self.measureSeconds, elapsed)
        // Measured over the window ending at the last delivered frame: (last − span, last] holds span × fps
        // frames, each standing for 1/fps of time. Ending it at `time` would count one frame too few and bias the
        // loop high by fps·span / (fps·span − 1) — 7% at 0.5 s and 30 fps.
        guard let last = window.lastTime else { return current }
        let measured = Double(window.bytes(inWindowOf: span, endingAt: last, notBefore: since)) * 8 / span
        guard measured > 0 else { return current }
        let aim = Double(effectiveTarget)
        let ceiling = steadySettings()
        let factor = min(max(pow(aim / measured, Self.gain), 1 / Self.maxStep), Self.maxStep)
        let maxRate = min(
            Double(ceiling.maxBitRate), max(aim * Self.floorFraction, Double(current.maxBitRate) * factor))
        let steadyBufferSeconds = Double(ceiling.bufferSize) / Double(ceiling.maxBitRate)
        let progress = min(max((elapsed - Self.holdSeconds) / Self.transitionSeconds, 0), 1)
        let bufferSeconds = Self.holdBufferSeconds + (steadyBufferSeconds - Self.holdBufferSeconds) * progress
        current = RateSettings(
            averageBitRate: Int(aim), maxBitRate: Int(maxRate), bufferSize: Int(maxRate * bufferSeconds))
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
            // A window reaching back before the last change: all of its bytes against the larger of the two limits.
            if time - limit.seconds < limitsSince, let earlier = earlierAllowance(over: limit.seconds, from: time - limit.seconds) {
                let all = window.bytes(inWindowOf: limit.seconds, endingAt: time)
                if all + bytes > max(limit.bytes, earlier) { return false }
            }
        }
        return true
    }

    /// The largest allowance, over a window of `seconds`, of the earlier regimes in force after `start` (each regime's
    /// tightest limit, scaled to that length when its window was another); nil when one of them had no limit (bytes
    /// sent then were bound by nothing, so the window cannot be judged against them) or none overlaps.
    private func earlierAllowance(over seconds: Double, from start: Double) -> Int? {
        var allowance: Int?
        for (index, regime) in earlierRegimes.enumerated() {
            let end = index + 1 < earlierRegimes.count ? earlierRegimes[index + 1].since : limitsSince
            guard end > start else { continue }
            guard let tightest = regime.limits.map({ Int(Double($0.bytes) * seconds / $0.seconds) }).min() else {
                return nil
            }
            allowance = max(allowance ?? 0, tightest)
        }
        return allowance
    }

    /// True when no window of any limit holds a byte at `time`: nothing delivered could make room.
    func windowsAreEmpty(at time: Double) -> Bool {
        limits.allSatisfy { window.bytes(inWindowOf: $0.seconds, endingAt: time, notBefore: limitsSince) == 0 }
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
