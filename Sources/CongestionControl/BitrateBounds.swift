/// The range the stream's rate stays in: the ceiling the application configured (`--bitrate`, the encoder's
/// initial average) and a floor under which no peer's limit takes the encoder.
public struct BitrateBounds: Sendable, Hashable, CustomStringConvertible {
    /// 10 kb/s: a REMB of a few hundred bits/s (libwebrtc's estimate right after heavy loss, or a receiver's
    /// "0 = pause") would otherwise ask x264 for a rate it cannot approach and the session to drop nearly every
    /// frame to hold its cap; at 10 kb/s a picture still gets through, and the receiver's next estimate lifts it.
    public static let defaultFloor = 10_000

    /// The most the stream may use, bits/s: never exceeded, whatever the peer allows.
    public let ceiling: Int
    /// The least a peer's limit can bring it to, bits/s (a ceiling below the floor wins: see `clamp`).
    public let floor: Int

    /// - Throws: `.invalidArgument` for a ceiling or floor that is not positive.
    public init(ceiling: Int, floor: Int = BitrateBounds.defaultFloor) throws(CongestionControlError) {
        guard ceiling > 0 else { throw .make(.invalidArgument, "a bit rate ceiling of \(ceiling) b/s; it must be more than 0") }
        guard floor > 0 else { throw .make(.invalidArgument, "a bit rate floor of \(floor) b/s; it must be more than 0") }
        self.ceiling = ceiling
        self.floor = floor
    }

    /// `min(ceiling, max(bitsPerSecond, floor))`: the rate kept within the bounds, the ceiling winning over the
    /// floor (an application that asked for 5 kb/s gets 5 kb/s, not the floor). Computed in UInt64, so a REMB's
    /// largest value (an 18-bit mantissa shifted by up to 63) cannot overflow.
    public func clamp(_ bitsPerSecond: UInt64) -> Int {
        Int(min(UInt64(ceiling), max(bitsPerSecond, UInt64(floor))))
    }

    public var description: String { "\(floor)…\(ceiling) b/s" }
}
