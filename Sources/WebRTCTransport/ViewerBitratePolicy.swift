/// The encoder target for several viewers of one encoder, from their REMB (issue 16's phase-1 policy,
/// design/webrtc.md §6.4). Pure: the limits and rates in, a target out.
///
/// REMB follows the rate a receiver gets, so it is a cap, never the target: an easy picture would otherwise ratchet
/// the encoder down to what it needs now. The target is lowered only on congestion — some viewer's REMB below 0.85 ×
/// what we measured sending it — and then at once to 0.85 × that REMB (multiplicative decrease); otherwise it rises
/// towards min(ceiling, the lowest REMB). Never below `floor`, never above `ceiling`.
public struct ViewerBitratePolicy: Sendable, Equatable {
    /// One viewer's numbers: its latest REMB (nil before the first) and the rate we sent it over the last second.
    public struct Viewer: Sendable, Equatable {
        public var peerLimit: UInt64?
        public var sendRate: UInt64

        public init(peerLimit: UInt64?, sendRate: UInt64) {
            self.peerLimit = peerLimit
            self.sendRate = sendRate
        }
    }

    /// REMB below this fraction of the send rate is congestion (and the decrease goes to this fraction of REMB).
    public static let congestionRatio = 0.85

    public let ceiling: UInt64
    public let floor: UInt64
    public private(set) var target: UInt64
    /// True after an update that had to stop at the floor (worth a log line: the picture will suffer).
    public private(set) var atFloor = false

    public init(ceiling: UInt64, floor: UInt64 = 150_000) {
        self.ceiling = max(ceiling, 1)
        self.floor = min(floor, self.ceiling)
        target = self.ceiling
    }

    /// The new target for these viewers (no viewers: the ceiling, for whoever comes next).
    @discardableResult
    public mutating func update(_ viewers: [Viewer]) -> UInt64 {
        let limits = viewers.compactMap(\.peerLimit)
        guard let lowest = limits.min() else {
            target = ceiling
            atFloor = false
            return target
        }
        let congested = viewers.compactMap { viewer -> UInt64? in
            guard let limit = viewer.peerLimit, Double(limit) < Self.congestionRatio * Double(viewer.sendRate) else { return nil }
            return limit
        }.min()
        let wanted: UInt64 = if let congested {
            min(target, UInt64(Self.congestionRatio * Double(congested)))
        } else {
            max(target, min(ceiling, lowest))
        }
        target = min(ceiling, max(floor, wanted))
        atFloor = target == floor && wanted < floor
        return target
    }
}
