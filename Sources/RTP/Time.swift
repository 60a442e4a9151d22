import MediaCore

/// Time as the pure parts of RTPOut see it: always passed in, never read from a clock.
///
/// `RTPInstant` is wall-clock time in nanoseconds since the Unix epoch. The RTCP logic needs wall time (SR NTP
/// timestamps) and the pacer only differences, so one type serves both; the I/O edge reads the clock once per event.
public struct RTPInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var nanosecondsSinceEpoch: Int64

    public init(nanosecondsSinceEpoch: Int64) { self.nanosecondsSinceEpoch = nanosecondsSinceEpoch }
    public init(secondsSinceEpoch: Double) { nanosecondsSinceEpoch = Int64(secondsSinceEpoch * 1e9) }

    public static func < (a: Self, b: Self) -> Bool { a.nanosecondsSinceEpoch < b.nanosecondsSinceEpoch }
    public static func + (a: Self, d: Duration) -> Self { Self(nanosecondsSinceEpoch: a.nanosecondsSinceEpoch + d.nanoseconds) }
    public static func - (a: Self, d: Duration) -> Self { Self(nanosecondsSinceEpoch: a.nanosecondsSinceEpoch - d.nanoseconds) }
    public static func - (a: Self, b: Self) -> Duration { .nanoseconds(a.nanosecondsSinceEpoch - b.nanosecondsSinceEpoch) }

    public var secondsSinceEpoch: Double { Double(nanosecondsSinceEpoch) / 1e9 }
    public var description: String { "\(secondsSinceEpoch)s" }
}

extension Instant {
    /// The same time on MediaCore's clock type (nanoseconds since the Unix epoch), as the feedback vocabulary
    /// (`SentPacket`, `PacketResult`) carries it.
    public init(_ instant: RTPInstant) { self.init(nanoseconds: instant.nanosecondsSinceEpoch) }
}

extension Duration {
    // `nanoseconds` comes from MediaCore.
    var seconds: Double { Double(nanoseconds) / 1e9 }
}

/// A 64-bit NTP timestamp (RFC 5905 §6): seconds since 1900-01-01 and a 32-bit binary fraction.
public struct NTPTime: Sendable, Hashable, CustomStringConvertible {
    /// Seconds from 1900-01-01 to 1970-01-01.
    public static let unixEpochOffset: UInt64 = 2_208_988_800

    public var seconds: UInt32
    public var fraction: UInt32

    public init(seconds: UInt32, fraction: UInt32) {
        self.seconds = seconds
        self.fraction = fraction
    }

    public init(_ value: UInt64) {
        seconds = UInt32(truncatingIfNeeded: value >> 32)
        fraction = UInt32(truncatingIfNeeded: value)
    }

    /// NTP seconds wrap in 2036 (era 1); truncating keeps the wire value right across the wrap.
    public init(_ instant: RTPInstant) {
        let ns = instant.nanosecondsSinceEpoch
        let wholeSeconds = ns >= 0 ? ns / 1_000_000_000 : (ns - 999_999_999) / 1_000_000_000
        let remainder = UInt64(ns - wholeSeconds * 1_000_000_000)  // 0 ..< 1e9
        seconds = UInt32(truncatingIfNeeded: UInt64(bitPattern: wholeSeconds) &+ Self.unixEpochOffset)
        // remainder < 1e9 < 2^30, so remainder << 32 < 2^62: no overflow.
        fraction = UInt32(truncatingIfNeeded: (remainder << 32) / 1_000_000_000)
    }

    public var value: UInt64 { UInt64(seconds) << 32 | UInt64(fraction) }

    /// The middle 32 bits, as carried in LSR (RFC 3550 §6.4.1): units of 1/65536 s.
    public var middle32: UInt32 { UInt32(truncatingIfNeeded: value >> 16) }

    public var description: String { "NTP(\(seconds).\(fraction))" }
}
