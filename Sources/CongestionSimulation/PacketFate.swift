/// What a packet is, for the logs and the analyser.
public enum PacketKind: String, Sendable, Hashable, CaseIterable {
    /// RTP media (first transmissions and NACK retransmissions alike: both are what the session sent).
    case media
    /// Probe padding for a probe cluster: the send session's padding-only packets on RTX (feedback on the wire), or
    /// the simulator's packets beside the session (ground truth).
    case padding
    /// RTCP of the RTP sessions (SR forward; RR, NACK, PLI back).
    case rtcp
    /// A transport feedback report: the receive session's transport-cc or RFC 8888 RTCP (on the wire), or what a
    /// `FeedbackSource` sends back.
    case feedback
    case tcpData = "tcp-data"
    case tcpAck = "tcp-ack"
    case cbr
}

/// Why a packet did not arrive.
public enum DropCause: String, Sendable, Hashable {
    /// The drop-tail queue was full (its limit in time or bytes).
    case queue
    /// Random loss after the queue.
    case random
}

/// One packet's whole story on one link: the per-packet record the analyser reads. The simulator knows every time
/// exactly; a real-time run (rtenc relay's packet log) fills the same fields.
public struct PacketFate: Sendable, Hashable {
    /// 0: the forward link, 1: the backward (return) link.
    public var link: Int
    public var flow: Int
    public var kind: PacketKind
    public var bytes: Int
    /// The flow's own sequence number for the packet (transport-wide for media and padding, TCP's segment number).
    public var sequence: Int64
    /// Entered the bottleneck queue (ns from the start of the run); the sender's send time, there being no access
    /// link in between.
    public var enqueued: Int64
    /// Left the queue (nil: dropped there).
    public var departed: Int64?
    /// Reached the receiver (nil: dropped in the queue or lost on the way).
    public var arrived: Int64?
    public var drop: DropCause?

    public init(link: Int, flow: Int, kind: PacketKind, bytes: Int, sequence: Int64, enqueued: Int64,
                departed: Int64? = nil, arrived: Int64? = nil, drop: DropCause? = nil) {
        self.link = link
        self.flow = flow
        self.kind = kind
        self.bytes = bytes
        self.sequence = sequence
        self.enqueued = enqueued
        self.departed = departed
        self.arrived = arrived
        self.drop = drop
    }

    /// Departure − arrival at the queue: the queuing delay (serialisation included), exact.
    public var queueDelay: Int64? { departed.map { $0 - enqueued } }
}

/// One media frame's story: captured, encoded to `bytes`, delivered whole to the receiver's depacketizer (nil: never).
public struct FrameFate: Sendable, Hashable {
    public var flow: Int
    public var captured: Int64
    public var bytes: Int
    public var isKeyframe: Bool
    /// The receiver's session handed the access unit over (its last packet, or its last retransmission, arrived).
    public var delivered: Int64?

    public init(flow: Int, captured: Int64, bytes: Int, isKeyframe: Bool, delivered: Int64? = nil) {
        self.flow = flow
        self.captured = captured
        self.bytes = bytes
        self.isKeyframe = isKeyframe
        self.delivered = delivered
    }
}

/// The per-packet log, Mahimahi-style (`+` arrival at the queue, `-` departure, `d` drop, `#` unused delivery
/// opportunity), as CSV: `time_ms,event,link,flow,kind,bytes,sequence,queue_delay_ms,cause`.
public enum PacketLog {
    public static let header = "time_ms,event,link,flow,kind,bytes,sequence,queue_delay_ms,cause"

    public static func csv(_ fates: [PacketFate], unusedOpportunities: [(link: Int, time: Int64)] = []) -> String {
        var lines: [(Int64, Int, String)] = []  // (time, order, line): stable ordering for equal times
        var order = 0
        func add(_ time: Int64, _ text: String) {
            lines.append((time, order, text))
            order += 1
        }
        for fate in fates {
            let prefix = "\(fate.link),\(fate.flow),\(fate.kind.rawValue),\(fate.bytes),\(fate.sequence)"
            add(fate.enqueued, "\(milliseconds(fate.enqueued)),+,\(prefix),,")
            if let departed = fate.departed {
                add(departed, "\(milliseconds(departed)),-,\(prefix),\(milliseconds(departed - fate.enqueued)),")
            }
            if let drop = fate.drop {
                let time = drop == .queue ? fate.enqueued : fate.departed ?? fate.enqueued
                add(time, "\(milliseconds(time)),d,\(prefix),,\(drop.rawValue)")
            }
        }
        for (link, time) in unusedOpportunities { add(time, "\(milliseconds(time)),#,\(link),,,,,,") }
        lines.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        return ([header] + lines.map(\.2)).joined(separator: "\n") + "\n"
    }

    /// Milliseconds with microsecond resolution, as text.
    static func milliseconds(_ nanoseconds: Int64) -> String {
        let micro = nanoseconds / 1000
        let whole = micro / 1000
        let fraction = abs(micro % 1000)
        let sign = micro < 0 && whole == 0 ? "-" : ""
        return "\(sign)\(whole).\(fraction < 10 ? "00" : fraction < 100 ? "0" : "")\(fraction)"
    }
}
