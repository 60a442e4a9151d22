// Media time lives in the pure core so every module (sources, encoder, RTP) counts time the same way.

/// A ratio of two integers: a frame rate (30000/1001) or a time base (1/90000).
public struct Rational: Sendable, Hashable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int

    public init(_ numerator: Int, _ denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The value as a Double; 0 when the denominator is 0 (an unknown rate in libav is 0/0 or 0/1).
    public var doubleValue: Double {
        denominator == 0 ? 0 : Double(numerator) / Double(denominator)
    }

    public var description: String { "\(numerator)/\(denominator)" }
}

/// A point in time as `value / timescale` seconds — CMTime without the flags.
///
/// Sources hand out timestamps in the time base they were born in (a frame counter over the frame rate, a stream's
/// `time_base`), so nothing is rounded until a consumer rescales to its own clock (RTP's 90 kHz, a muxer's base).
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var value: Int64
    /// Ticks per second; always positive.
    public var timescale: Int64

    public init(value: Int64, timescale: Int64) {
        self.value = value
        self.timescale = timescale
    }

    /// `seconds` rounded to the nearest tick of `timescale`.
    public init(seconds: Double, timescale: Int64 = 90_000) {
        self.value = Int64((seconds * Double(timescale)).rounded())
        self.timescale = timescale
    }

    public static let zero = MediaTime(value: 0, timescale: 1)

    /// A positive timescale; times with another one come from bad input and compare as nothing else does.
    public var isValid: Bool { timescale > 0 }

    public var seconds: Double { Double(value) / Double(timescale) }

    /// This time in another timescale, rounded to the nearest tick (halves away from zero).
    /// Overflow-safe for any realistic media time: the product is formed in 128 bits.
    public func converted(to newTimescale: Int64) -> MediaTime {
        if newTimescale == timescale { return self }
        let product = Int128(value) * Int128(newTimescale)
        let divisor = Int128(timescale)
        let half = divisor / 2
        let rounded = product >= 0 ? (product + half) / divisor : (product - half) / divisor
        return MediaTime(value: Int64(clamping: rounded), timescale: newTimescale)
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        Int128(lhs.value) * Int128(rhs.timescale) < Int128(rhs.value) * Int128(lhs.timescale)
    }

    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        Int128(lhs.value) * Int128(rhs.timescale) == Int128(rhs.value) * Int128(lhs.timescale)
    }

    public func hash(into hasher: inout Hasher) {
        // Equal times in different timescales must hash alike: hash the reduced fraction.
        let divisor = Self.gcd(value.magnitude, UInt64(timescale))
        hasher.combine(value / Int64(divisor))
        hasher.combine(timescale / Int64(divisor))
    }

    public var description: String { "\(value)/\(timescale)s" }

    private static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return max(a, 1)
    }
}
