import MediaCore

/// An exact rational number, always reduced, denominator positive: the timeline's times, speeds and frame rates.
///
/// Floats are how editors lose frames (Shotcut #783: a speed set back to 1.0 no longer restores the duration;
/// Cabbage's `Int64(Float(value) / speed)`), so every time on the composition's path is a fraction until a frame
/// index or a `MediaTime` comes out of it. Terms are 128-bit: the parser bounds every input (`TimelineLimits`), so
/// the sums and products the planner forms (a few terms of at most ~10^18) stay far below 2^127.
public struct Fraction: Sendable, Hashable, Comparable, CustomStringConvertible {
    // Stored as 64-bit halves: a stored Int128 makes the type 16-byte aligned, and values of such types boxed in
    // existentials or test arguments corrupted the heap with this toolchain on Linux (Swift 6.3, measured here).
    private let numeratorHigh: Int64, numeratorLow: UInt64
    private let denominatorHigh: Int64, denominatorLow: UInt64

    public var numerator: Int128 { Int128(numeratorHigh) << 64 | Int128(numeratorLow) }
    /// Always positive.
    public var denominator: Int128 { Int128(denominatorHigh) << 64 | Int128(denominatorLow) }

    public init(_ numerator: Int128, _ denominator: Int128 = 1) {
        precondition(denominator != 0, "Fraction with a zero denominator")
        let sign: Int128 = denominator < 0 ? -1 : 1
        let divisor = Self.gcd(numerator.magnitude, denominator.magnitude)
        let reducedNumerator = sign * numerator / Int128(divisor)
        let reducedDenominator = sign * denominator / Int128(divisor)
        numeratorHigh = Int64(truncatingIfNeeded: reducedNumerator >> 64)
        numeratorLow = UInt64(truncatingIfNeeded: reducedNumerator)
        denominatorHigh = Int64(truncatingIfNeeded: reducedDenominator >> 64)
        denominatorLow = UInt64(truncatingIfNeeded: reducedDenominator)
    }

    public init(_ rational: Rational) {
        self.init(Int128(rational.numerator), Int128(rational.denominator))
    }

    public static let zero = Fraction(0)
    public static let one = Fraction(1)

    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    /// The largest integer not above this value.
    public var floor: Int128 {
        numerator >= 0 ? numerator / denominator : -((-numerator + denominator - 1) / denominator)
    }

    /// The smallest integer not below this value.
    public var ceiling: Int128 { -Fraction(-numerator, denominator).floor }

    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }

    public static func + (lhs: Fraction, rhs: Fraction) -> Fraction {
        Fraction(lhs.numerator * rhs.denominator + rhs.numerator * lhs.denominator, lhs.denominator * rhs.denominator)
    }

    public static func - (lhs: Fraction, rhs: Fraction) -> Fraction {
        Fraction(lhs.numerator * rhs.denominator - rhs.numerator * lhs.denominator, lhs.denominator * rhs.denominator)
    }

    public static func * (lhs: Fraction, rhs: Fraction) -> Fraction {
        Fraction(lhs.numerator * rhs.numerator, lhs.denominator * rhs.denominator)
    }

    /// Division by a non-zero fraction (the planner divides only by speeds and rates the parser checked positive).
    public static func / (lhs: Fraction, rhs: Fraction) -> Fraction {
        Fraction(lhs.numerator * rhs.denominator, lhs.denominator * rhs.numerator)
    }

    public static func < (lhs: Fraction, rhs: Fraction) -> Bool {
        lhs.numerator * rhs.denominator < rhs.numerator * lhs.denominator
    }

    /// This time as a `MediaTime` in its own denominator when that fits in 64 bits, else rounded to `fallback` ticks.
    public func mediaTime(fallbackTimescale fallback: Int64 = 90_000) -> MediaTime {
        if let value = Int64(exactly: numerator), let scale = Int64(exactly: denominator) {
            return MediaTime(value: value, timescale: scale)
        }
        let scaled = Fraction(numerator * Int128(fallback), denominator)
        let rounded = (scaled + Fraction(1, 2)).floor
        return MediaTime(value: Int64(clamping: rounded), timescale: fallback)
    }

    private static func gcd(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return max(a, 1)
    }
}
