/// A point on a monotonic clock: nanoseconds since that clock's origin (for `MonotonicMediaClock`, the system's
/// monotonic epoch, usually boot; for a `ManualClock`, wherever the test starts it).
///
/// Only differences and order mean something, and only between instants of the same clock. Wall time (RTCP's NTP
/// timestamps) is a different quantity and keeps its own type; pacing, timeouts and frame deadlines use this one, so
/// a step of the system's wall clock never moves them. Plain `Int64` nanoseconds: covers ±292 years, costs one word,
/// and sans-IO code can be handed it (`now`) instead of reading a clock.
public struct Instant: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The origin of the clock.
    public static let zero = Instant(nanoseconds: 0)

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    // Wrapping arithmetic: instants and durations in any media use stay within ±292 years of the origin.
    public static func + (lhs: Instant, rhs: Duration) -> Instant {
        Instant(nanoseconds: lhs.nanoseconds &+ rhs.nanoseconds)
    }

    public static func - (lhs: Instant, rhs: Duration) -> Instant {
        Instant(nanoseconds: lhs.nanoseconds &- rhs.nanoseconds)
    }

    public static func += (lhs: inout Instant, rhs: Duration) { lhs = lhs + rhs }

    /// The time from `rhs` to `lhs` (negative when `lhs` is earlier).
    public static func - (lhs: Instant, rhs: Instant) -> Duration {
        .nanoseconds(lhs.nanoseconds &- rhs.nanoseconds)
    }

    /// The time from this instant to `other`.
    public func duration(to other: Instant) -> Duration { other - self }

    public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}

extension Duration {
    /// Whole nanoseconds, truncated toward zero (wrapping far outside any media use: ±292 years). The one definition
    /// for the package; RTPOut and NetworkEmulator used to carry a copy each.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
