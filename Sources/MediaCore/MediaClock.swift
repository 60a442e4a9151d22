import Synchronization

/// Something that tells the time as an `Instant`: the real monotonic clock at the edges, a `ManualClock` in tests
/// and simulations. Named so it does not clash with the standard library's `Clock` (which also sleeps; a media clock
/// only answers "now", and whoever owns the loop decides how to wait).
public protocol MediaClock: Sendable {
    /// The current instant. Never earlier than an instant this clock returned before.
    var now: Instant { get }
}

/// The system's monotonic clock (the standard library's `SuspendingClock`: CLOCK_MONOTONIC on Linux, which does not
/// jump with the wall clock and does not advance while the machine sleeps), as nanoseconds since its epoch.
///
/// Reading it is a vDSO call, no system call: cheap enough for several reads per frame or per pacing turn.
public struct MonotonicMediaClock: MediaClock {
    public init() {}

    public var now: Instant {
        let clock = SuspendingClock()
        return Instant(nanoseconds: clock.systemEpoch.duration(to: clock.now).nanoseconds)
    }
}

/// A clock that moves only when told to: for tests and simulations in virtual time (seconds of traffic run in
/// microseconds, and the same inputs give the same outputs every run).
///
/// A reference type, so the code under test and the test share one clock; `Sendable` (the time is an atomic), so a
/// driver thread may read it while the test advances it.
public final class ManualClock: MediaClock {
    private let time: Atomic<Int64>

    public init(start: Instant = .zero) {
        time = Atomic(start.nanoseconds)
    }

    public var now: Instant { Instant(nanoseconds: time.load(ordering: .acquiring)) }

    /// Moves the clock forward by `duration`, which must not be negative: a monotonic clock never goes back.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "ManualClock.advance(by: \(duration)): a monotonic clock never goes back")
        time.wrappingAdd(duration.nanoseconds, ordering: .acquiringAndReleasing)
    }

    /// Moves the clock forward to `instant`; an instant at or before `now` leaves it where it is (returns false).
    @discardableResult
    public func advance(to instant: Instant) -> Bool {
        var current = time.load(ordering: .acquiring)
        while current < instant.nanoseconds {
            let (exchanged, original) = time.compareExchange(
                expected: current, desired: instant.nanoseconds, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }
}
