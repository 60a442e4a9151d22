/// A rational time, `value / timescale` seconds, like CMTime.
///
/// Rational rather than `Double` seconds because RTP and libavcodec both count in integer ticks (90 kHz, 1/fps):
/// converting 1/30 s through a Double and back drifts by a tick every few thousand frames, and "strictly increasing"
/// must be decided exactly.
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var value: Int64
    /// Ticks per second; always > 0 for a valid time.
    public var timescale: Int32

    public init(value: Int64, timescale: Int32) {
        self.value = value
        self.timescale = timescale
    }

    /// `seconds` rounded to the nearest tick of `timescale`.
    public init(seconds: Double, timescale: Int32 = 90_000) {
        self.value = Int64((seconds * Double(timescale)).rounded())
        self.timescale = timescale
    }

    public static let zero = MediaTime(value: 0, timescale: 90_000)

    public var isValid: Bool { timescale > 0 }

    public var seconds: Double { Double(value) / Double(timescale) }

    /// This time in ticks of `timescale`, rounded to nearest; nil on overflow or an invalid time.
    public func converted(to newTimescale: Int32) -> Int64? {
        guard isValid, newTimescale > 0 else { return nil }
        if newTimescale == timescale { return value }
        let (product, overflow) = value.multipliedReportingOverflow(by: Int64(newTimescale))
        guard !overflow else { return nil }
        let half = Int64(timescale) / 2
        // Round half away from zero; `half` < timescale so the sum cannot overflow for non-extreme products.
        let (rounded, overflow2) = product.addingReportingOverflow(product >= 0 ? half : -half)
        guard !overflow2 else { return nil }
        return rounded / Int64(timescale)
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        // Cross-multiplication in 128 bits would be exact; Double is exact enough for ordering distinct
        // timestamps within ±2^53 ticks, which covers any real stream.
        if lhs.timescale == rhs.timescale { return lhs.value < rhs.value }
        return lhs.seconds < rhs.seconds
    }

    public var description: String { "\(value)/\(timescale)" }
}
