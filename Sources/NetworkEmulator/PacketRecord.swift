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

    /// What a relayed packet is, for an analyser that counts media apart from probes and reports.
    public enum Kind: String, Sendable, Hashable {
        /// RTP with a payload (media, or a retransmission).
        case media
        /// Padding-only RTP (RFC 3550 §5.1 P bit, no payload): a congestion controller's probe.
        case padding
        /// RTCP.
        case rtcp
    }

    /// When the packet reached the link (the link's clock).
    public var arrival: Duration
    public var bytes: Int
    /// The RTP sequence number, for RTP packets.
    public var rtpSequenceNumber: UInt16?
    public var fate: Fate
    /// nil when the link was not told (a caller that relays something other than RTP).
    public var kind: Kind?

    public init(arrival: Duration, bytes: Int, rtpSequenceNumber: UInt16?, fate: Fate, kind: Kind? = nil) {
        self.arrival = arrival
        self.bytes = bytes
        self.rtpSequenceNumber = rtpSequenceNumber
        self.fate = fate
        self.kind = kind
    }

    /// Time from arrival until the last bit left the bottleneck (queuing plus transmission); nil when dropped.
    public var queueDelay: Duration? {
        if case .forwarded(let departure, _) = fate { return departure - arrival }
        return nil
    }

    /// The CSV header of `csvLine`.
    public static let csvHeader = "arrival_ms,direction,bytes,rtp_seq,fate,queue_delay_ms,delivery_ms,kind"

    /// One line of the relay's `--packet-log`: times in milliseconds on the relay's clock (3 decimals), `fate`
    /// `forwarded` or the drop reason, the delays empty for a drop, `kind` media, padding or rtcp (empty: unknown).
    public func csvLine(direction: String) -> String {
        func ms(_ d: Duration) -> String {
            let micro = d.nanoseconds / 1_000
            let sign = micro < 0 ? "-" : ""
            let magnitude = micro.magnitude
            let fraction = String(magnitude % 1_000)
            return "\(sign)\(magnitude / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
        }
        let sequence = rtpSequenceNumber.map(String.init) ?? ""
        let kind = kind?.rawValue ?? ""
        switch fate {
        case .forwarded(let departure, let delivery):
            return "\(ms(arrival)),\(direction),\(bytes),\(sequence),forwarded,\(ms(departure - arrival)),\(ms(delivery)),\(kind)"
        case .dropped(let reason):
            return "\(ms(arrival)),\(direction),\(bytes),\(sequence),\(reason.rawValue),,,\(kind)"
        }
    }
}
