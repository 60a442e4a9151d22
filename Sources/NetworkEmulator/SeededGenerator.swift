/// A seeded pseudo-random generator (SplitMix64, Steele/Lea/Flood 2014): the same seed gives the same losses,
/// delays and reorderings, so an impairment run can be repeated and a unit test can assert exact outcomes.
/// Not for cryptography.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        // Wrapping arithmetic is the algorithm: the state is a Weyl sequence mod 2^64.
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `probability` (0…1).
    public mutating func chance(_ probability: Double) -> Bool {
        probability > 0 && Double.random(in: 0 ..< 1, using: &self) < probability
    }
}
