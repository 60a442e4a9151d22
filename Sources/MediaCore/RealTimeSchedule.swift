/// When each frame of a stream is due on the wall, played out in real time by its presentation time — and which
/// frames are too late to bother encoding. What `rtenc stream` does to a file or a test pattern, for an embedder's
/// own loop.
///
/// Sans-IO: it reads no clock and never sleeps. The caller hands in `now` and waits itself (see `RealTimeFramePacer`
/// in MediaIO for a driver that sleeps):
///
///     var schedule = RealTimeSchedule()
///     while let time = try source.nextFrame(into: &buffer) {
///         switch schedule.decide(time, now: clock.now) {
///         case .wait(let until): sleep(until); encode(buffer, time)
///         case .due: encode(buffer, time)
///         case .late: continue   // behind real time: skip rather than let latency grow
///         }
///     }
///
/// The first frame anchors the timeline (it is due at once); frame k is due at anchor + (pts_k − pts_0). A frame
/// more than `maxLateness` past its due time is `.late`: an encoder slower than real time, or an input that stalled,
/// sheds frames until it has caught up instead of falling further and further behind. Shorter hiccups are absorbed
/// by sending the next frames as soon as they are ready.
public struct RealTimeSchedule: Sendable {
    public enum Decision: Sendable, Hashable {
        /// Not yet: the frame is due at this instant.
        case wait(until: Instant)
        /// Due now (or late by less than `maxLateness`).
        case due
        /// More than `maxLateness` behind its due time, by this much: skip it.
        case late(by: Duration)
    }

    /// How far behind its due time a frame may be and still be encoded.
    public var maxLateness: Duration
    /// The wall instant and presentation time that line up: set by the first frame, or by `restart`.
    public private(set) var anchor: (instant: Instant, presentationTime: MediaTime)?

    /// `maxLateness` defaults to half a second, or two frame intervals of `frameRate` when that is longer.
    public init(maxLateness: Duration? = nil, frameRate: Rational? = nil) {
        let twoFrames = frameRate.flatMap { rate -> Duration? in
            guard rate.numerator > 0, rate.denominator > 0 else { return nil }
            return .nanoseconds(Int64(2 * 1_000_000_000 * Double(rate.denominator) / Double(rate.numerator)))
        }
        self.maxLateness = maxLateness ?? max(.milliseconds(500), twoFrames ?? .zero)
    }

    /// Makes `presentationTime` due at `now`: the first frame, or the first after a pause or a seek.
    public mutating func restart(presentationTime: MediaTime, at now: Instant) {
        anchor = (now, presentationTime)
    }

    /// The wall instant `presentationTime` is due at; nil before the first frame.
    public func dueInstant(of presentationTime: MediaTime) -> Instant? {
        guard let anchor else { return nil }
        let offset = presentationTime.converted(to: 1_000_000_000).value
            &- anchor.presentationTime.converted(to: 1_000_000_000).value
        return anchor.instant + .nanoseconds(offset)
    }

    /// Where the frame with `presentationTime` stands at `now`.
    public mutating func decide(_ presentationTime: MediaTime, now: Instant) -> Decision {
        guard let due = dueInstant(of: presentationTime) else {
            restart(presentationTime: presentationTime, at: now)
            return .due
        }
        if now < due { return .wait(until: due) }
        let behind = now - due
        return behind > maxLateness ? .late(by: behind) : .due
    }
}
