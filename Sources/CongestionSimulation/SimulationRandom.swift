/// The simulator's one source of randomness: PCG-XSH-RR 64/32 (O'Neill 2014), spelled out here so that a seed gives
/// the same run on every platform and Swift version (the standard library's `Double.random(in:using:)` and libm are
/// not pinned down). Not for cryptography.
///
/// Every draw the simulator makes (frame-size variation, jitter, random loss, TCP's idle gaps) goes through the
/// helpers below, which use only integer arithmetic and IEEE-754 `+ - × ÷` — no `log`, `sin` or `sqrt` from a C
/// library whose last bit could differ.
public struct SimulationRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    private let increment: UInt64

    /// `stream` selects one of 2^63 independent sequences for the same seed (one per flow or link).
    public init(seed: UInt64, stream: UInt64 = 0xDA3E_39CB_94B9_5BDB) {
        increment = (stream << 1) | 1
        state = 0
        _ = next32()
        state &+= seed
        _ = next32()
    }

    /// PCG's output function on a 64-bit LCG; wrapping arithmetic is the algorithm.
    public mutating func next32() -> UInt32 {
        let old = state
        state = old &* 6_364_136_223_846_793_005 &+ increment
        let xorShifted = UInt32(truncatingIfNeeded: ((old >> 18) ^ old) >> 27)
        let rotation = UInt32(truncatingIfNeeded: old >> 59)
        return xorShifted >> rotation | xorShifted << ((32 &- rotation) & 31)
    }

    public mutating func next() -> UInt64 { UInt64(next32()) << 32 | UInt64(next32()) }

    /// Uniform in [0, 1), 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in [-1, 1).
    public mutating func symmetric() -> Double { 2 * unit() - 1 }

    /// True with probability `probability` (0…1); draws nothing for 0, so a loss-free link leaves the sequence alone.
    public mutating func chance(_ probability: Double) -> Bool {
        probability > 0 && unit() < probability
    }

    /// A standard normal draw by the Irwin–Hall sum of twelve uniforms minus 6: mean 0, variance 1, bounded to ±6,
    /// exact enough for RFC 8868's jitter, which is truncated at 3 σ anyway.
    public mutating func standardNormal() -> Double {
        var sum = 0.0
        for _ in 0 ..< 12 { sum += unit() }
        return sum - 6
    }

    /// Exponentially distributed with `mean` (RFC 8868 §5.2's idle gaps of short TCP flows): −mean·ln(1 − U).
    public mutating func exponential(mean: Double) -> Double {
        -mean * Self.naturalLogarithm(1 - unit())
    }

    /// ln(x) for x > 0 by x = m·2^e (m in [1, 2)) and ln m = 2·atanh((m − 1)/(m + 1)), whose series converges within
    /// 20 terms to double precision since |t| ≤ 1/3. Returns −∞ for 0 and NaN below.
    static func naturalLogarithm(_ x: Double) -> Double {
        guard x > 0 else { return x == 0 ? -.infinity : .nan }
        guard x.isFinite else { return x }
        let m = x.significand
        let e = Double(x.exponent)
        let t = (m - 1) / (m + 1)
        let t2 = t * t
        var term = t
        var sum = 0.0
        var k = 1.0
        for _ in 0 ..< 24 {
            sum += term / k
            term *= t2
            k += 2
        }
        return 2 * sum + e * 0.693_147_180_559_945_309_417_232
    }
}
