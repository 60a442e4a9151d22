/// SplitMix64 (Steele, Lea, Flood 2014) for tests: a seeded generator, so every random choice a test hands in (STUN
/// transaction IDs, ICE credentials and tie-breakers, consent intervals) is the same on every run. Not for
/// cryptography. (NetworkEmulator's `SeededGenerator` is the same algorithm for the library; test targets that do not
/// link NetworkEmulator use this one.)
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        // Wrapping arithmetic is the algorithm: the state is a Weyl sequence mod 2^64.
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
