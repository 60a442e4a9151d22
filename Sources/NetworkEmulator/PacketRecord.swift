/// What the link did with one packet: the ground truth a congestion-control analyser needs (issue 17), where
/// queuing delay is read off the bottleneck, not inferred from timestamps.
public struct PacketRecord: Sendable, Hashable {
    public enum DropReason: String, Sendable, Hashable {
        /// Random or bursty loss (`--loss`).
        case loss
        /// The bottleneck's queue was full, in bytes or in time.
        case queue
        /// The debug frame filter (`--drop-frames`).
        case frameFilter = "frame-filter"
        /// The debug packet filter (`--drop-packets`).
        case packetFilter = "packet-filter"
    }

    public enum Fate: Sendable, Hashable {
        /// Left the bottleneck at `departure` (its last bit sent) and reaches the far end at `delivery` (after
        /// propagation delay, jitter and reordering).
        case forwarded(departure: Duration, delivery: Duration)
        case dropped(DropReason)
    }

    /// When the packet reached the link (the link's clock).
    public var arrival: Duration
    public var bytes: Int
    /// The RTP sequence number, for RTP packets.
    public var rtpSequenceNumber: UInt16?
    public var fate: Fate

    public init(arrival: Duration, bytes: Int, rtpSequenceNumber: UInt16?, fate: Fate) {
        self.arrival = arrival
        self.bytes = bytes
        self.rtpSequenceNumber = rtpSequenceNumber
        self.fate = fate
    }

    /// Time from arrival until the last bit left the bottleneck (queuing plus transmission); nil when dropped.
    public var queueDelay: Duration? {
        if case .forwarded(let departure, _) = fate { return departure - arrival }
        return nil
    }

    /// The CSV header of `csvLine`.
    public static let csvHeader = "arrival_ms,direction,bytes,rtp_seq,fate,queue_delay_ms,delivery_ms"

    /// One line of the relay's `--packet-log`: times in milliseconds on the relay's clock (3 decimals), `fate`
    /// `forwarded` or the drop reason, the delays empty for a drop.
    public func csvLine(direction: String) -> String {
        func ms(_ d: Duration) -> String {
            let micro = d.nanoseconds / 1_000
            let sign = micro < 0 ? "-" : ""
            let magnitude = micro.magnitude
            let fraction = String(magnitude % 1_000)
            return "\(sign)\(magnitude / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
        }
        let sequence = rtpSequenceNumber.map(String.init) ?? ""
        switch fate {
        case .forwarded(let departure, let delivery):
            return "\(ms(arrival)),\(direction),\(bytes),\(sequence),forwarded,\(ms(departure - arrival)),\(ms(delivery))"
        case .dropped(let reason):
            return "\(ms(arrival)),\(direction),\(bytes),\(sequence),\(reason.rawValue),,"
        }
    }
}
