/// RTP timestamps from presentation times.
public enum RTPClock {
    public static let h264ClockRate: Int64 = 90_000

    /// `pts × timeBase × clockRate + offset`, modulo 2^32 (RFC 3550 §5.1: a random offset, then wrap).
    /// Exact for any Int64 pts: the product is formed in 128 bits.
    public static func timestamp(pts: Int64, timeBaseNumerator: Int64, timeBaseDenominator: Int64,
                                 clockRate: Int64 = h264ClockRate, offset: UInt32 = 0) -> UInt32 {
        guard timeBaseDenominator > 0 else { return offset }
        let product = pts.multipliedFullWidth(by: timeBaseNumerator &* clockRate)
        // |numerator × clockRate| stays far below 2^63 for real time bases; the quotient is taken modulo 2^32 anyway.
        let (quotient, _) = timeBaseDenominator.dividingFullWidth(product)
        return UInt32(truncatingIfNeeded: quotient) &+ offset
    }
}
