import CongestionControl
import MediaCore
import RTP

/// A policy that ignores the network: the encoder and the pacer at one rate, clamped to the bounds. The simulator's
/// control case (its utilisation and queue follow from arithmetic) and the open-loop baseline.
public struct FixedRatePolicy: BitrateControlPolicy {
    public var name: String { "fixed" }
    public let bitsPerSecond: Int

    public init(bitsPerSecond: Int) { self.bitsPerSecond = bitsPerSecond }

    public mutating func observe(peerLimit bitsPerSecond: UInt64, at now: Instant) {}

    public mutating func allocation(within bounds: BitrateBounds, at now: Instant) -> BitrateAllocation {
        BitrateAllocation(bitsPerSecond: bounds.clamp(UInt64(max(0, bitsPerSecond))))
    }
}
