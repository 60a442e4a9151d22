import MediaCore

/// The encoder target for several viewers of one encoder, from their REMB (issue 16's phase-1 policy,
/// design/webrtc.md §6.4). Pure: the limits, the rates and the time in, a target out.
///
/// REMB follows the rate a receiver gets, so it is a cap, never the target: an easy picture would otherwise ratchet
/// the encoder down to what it needs now. The target is lowered only on congestion — some viewer's REMB below 0.85 ×
/// what we measured sending it — and then at once to 0.85 × that REMB (multiplicative decrease). Otherwise it rises
/// towards min(ceiling, the lowest REMB), by at most 8 % per second (libwebrtc's AIMD increase; Chromium's REMB
/// itself grew ~8 %/s with room to spare): a REMB that leaps (aiortc's jumped from 500 kb/s to 7.6 Mb/s in one report
/// behind an 800 kb/s link) must not send the encoder back to the ceiling at once, into a full queue. Never below
/// `floor`, never above `ceiling`.
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
    /// The most the target grows per second when REMB allows more (libwebrtc AimdRateControl's multiplicative
    /// increase, 1.08 per second).
    public static let increasePerSecond = 0.08
    /// The longest gap between updates that counts toward an increase: after a silence the target resumes its climb
    /// instead of leaping by the whole gap's worth.
    public static let longestIncreaseStep: Duration = .seconds(1)

    public let ceiling: UInt64
    public let floor: UInt64
    public private(set) var target: UInt64
    /// True after an update that had to stop at the floor (worth a log line: the picture will suffer).
    public private(set) var atFloor = false
    /// The previous update's time: increases are paced by the time between updates.
    private var lastUpdate: Instant?

    public init(ceiling: UInt64, floor: UInt64 = 150_000) {
        self.ceiling = max(ceiling, 1)
        self.floor = min(floor, self.ceiling)
        target = self.ceiling
    }

    /// The new target for these viewers at `now` (no viewers: the ceiling, for whoever comes next).
    @discardableResult
    public mutating func update(_ viewers: [Viewer], at now: Instant) -> UInt64 {
        let elapsed = lastUpdate.map { min(max(.zero, now - $0), Self.longestIncreaseStep) } ?? .zero
        lastUpdate = now
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
        let wanted: UInt64
        if let congested {
            wanted = min(target, UInt64(Self.congestionRatio * Double(congested)))
        } else {
            let cap = min(ceiling, lowest)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            // At least 1 kb/s per second of climb, so a target near zero still moves.
            let step = max(UInt64(Double(target) * Self.increasePerSecond * seconds), UInt64(1000 * seconds))
            wanted = target >= cap ? target : min(cap, target + step)
        }
        target = min(ceiling, max(floor, wanted))
        atFloor = target == floor && wanted < floor
        return target
    }
}
