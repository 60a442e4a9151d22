/// Spreads packets out in time instead of sending a large IDR as one burst (which overflows switch and socket
/// buffers and the receiver's jitter estimate). Pure: the owner asks `nextSendTime(now:)`, waits, sends, and
/// reports with `didSend(bytes:now:)`.
///
/// A leaky bucket: every byte sent adds to `debt`, which drains at the pacing rate; a packet may leave while the debt
/// is within `burst` worth of bytes (at most `maxBurstBytes`). libwebrtc paces at 2.5× the target bitrate, so a keyframe several times the
/// average frame size still leaves within a few frame intervals.
package struct Pacer: Sendable {
    package static let defaultPacingFactor = RTPSendSession.Pacing.defaultFactor
    /// A packet may leave while the debt is below ~5 ms at the pacing rate, or one full packet at low rates.
    package static let defaultBurst: Duration = .milliseconds(5)
    package static let minBurstBytes = 1500.0
    /// libwebrtc's send burst interval (`PacingController::kDefaultBurstInterval`): a packet may leave while the debt
    /// is below 40 ms at the pacing rate, so a frame up to that size leaves at once when the queue was idle — at
    /// 2.5 × 2 Mb/s a whole 25 kB frame — while a larger one (a keyframe) is still spread out.
    package static let libWebRTCBurst: Duration = .milliseconds(40)
    /// The most a burst may hold however long `burst` is (libwebrtc's `kMaxBurstSize`, 63 kB: 50 ms at 10 Mb/s), so a
    /// long burst at a high rate does not overfill the socket's send buffer.
    package static let maxBurstBytes = 63_000.0

    /// nil = unpaced: everything may go at once (file-to-file work, benchmarks).
    package private(set) var pacingRate: Double?
    package let pacingFactor: Double
    package let burst: Duration
    private var debt = 0.0
    private var lastUpdate: RTPInstant?

    /// Paced at `pacingFactor` × `targetBitrate` (bits per second).
    package init(targetBitrate: UInt64, pacingFactor: Double = defaultPacingFactor, burst: Duration = defaultBurst) {
        self.pacingFactor = pacingFactor
        self.burst = burst
        setTargetBitrate(targetBitrate)
    }

    private init() {
        pacingRate = nil
        pacingFactor = Self.defaultPacingFactor
        burst = Self.defaultBurst
    }

    package static let unpaced = Pacer()

    /// Applies from the next packet; for REMB/TMMBR changes.
    package mutating func setTargetBitrate(_ bitsPerSecond: UInt64) {
        pacingRate = max(1, Double(bitsPerSecond) * pacingFactor / 8)
    }

    /// A zero `burst` allows none: every packet waits until the one before it has drained at the pacing rate, so a
    /// frame's packets are spread over its whole sending time (the floor of one packet applies only to a burst).
    private var burstBytes: Double {
        guard let rate = pacingRate else { return .infinity }
        guard burst > .zero else { return 0 }
        return max(Self.minBurstBytes, min(Self.maxBurstBytes, rate * burst.seconds))
    }

    /// Drains the debt to `now`. With a burst, what drains below zero is idle time and is not banked (the burst
    /// allowance already lets a packet go at once). Without one, a packet sent late — the driver's timer has whole
    /// milliseconds (poll, epoll_wait) and wakes up late besides — keeps its lateness, up to one packet of
    /// `bytes`: the next one is then due as if it had left on time, so the rate holds (a 3.07 ms interval waited as
    /// 4 ms would otherwise pace 2.5 Mb/s at 2.4). A longer gap is idle time and banks nothing, so no two packets of
    /// a frame leave back to back after a pause.
    private mutating func drain(to now: RTPInstant, carryingUpTo bytes: Double = 0) {
        guard let rate = pacingRate else { return }
        if let last = lastUpdate, now > last {
            let drained = debt - rate * (now - last).seconds
            let lateness = burst == .zero && drained > -bytes  // less than one packet's time past due
            debt = drained >= 0 || lateness ? drained : 0
        }
        lastUpdate = now  // also after a backwards step of the clock, so pacing resumes from here
    }

    /// When the next packet may leave: `now` or later.
    package func nextSendTime(now: RTPInstant) -> RTPInstant {
        // The wall clock went backwards: let one packet go; `didSend` then restarts the bucket's time from `now`.
        guard let rate = pacingRate, let last = lastUpdate, now >= last else { return now }
        let elapsed = (now - last).seconds
        let current = max(0, debt - rate * elapsed)
        guard current > burstBytes else { return now }
        // Leave when the debt has drained to the burst allowance (+1 ns: the check is strict, `current > burstBytes`).
        return now + .nanoseconds(Int64((current - burstBytes) / rate * 1e9) + 1)
    }

    package mutating func didSend(bytes: Int, now: RTPInstant) {
        drain(to: now, carryingUpTo: Double(bytes))
        debt += Double(bytes)
    }
}
