import MediaCore
import RTP

/// Where a sender's policy hears what became of its packets: the seam between the simulated network and
/// `BitrateControlPolicy.observe(feedback:)` when the feedback does not travel on the wire (`FeedbackPath.groundTruth`):
/// the simulator's own ground truth fills it (`GroundTruthFeedback`), or a test's source. On the wire the RTP sessions
/// carry the feedback themselves (their `CongestionFeedbackGenerator` and `SentPacketHistory`, as live), and the seam
/// holds an empty `SessionFeedback`.
public protocol FeedbackSource: Sendable {
    /// The sender sent a packet with a transport-wide sequence number (media or padding).
    mutating func sent(_ packet: SentPacket)
    /// The receiver got the packet `sequence` at `time` (ns, simulation time).
    mutating func arrived(sequence: Int64, at time: Int64)
    /// The receiver's report due at `time`: its size on the wire and its content (nil: nothing to report).
    mutating func report(at time: Int64) -> (bytes: Int, feedback: TransportPacketsFeedback)?
    /// The report reached the sender at `time`: the content to hand to the policy.
    mutating func delivered(_ feedback: TransportPacketsFeedback, at time: Int64) -> TransportPacketsFeedback
}

/// Feedback from the simulator's ground truth, shaped like transport-cc: every `interval` (libwebrtc: 100 ms) the
/// receiver reports each packet that arrived since its last report and each packet it knows lost (a later one
/// arrived), in sequence order; arrivals on a receiver clock `receiverClockOffset` away from the sender's, so a
/// policy that mixed the two clocks would fail. The report's size is transport-cc's: 20 bytes of header plus about
/// 2 bytes a packet (a status chunk's share and a one-byte delta).
public struct GroundTruthFeedback: FeedbackSource {
    public static let receiverClockOffset: Int64 = 7_000_000_000

    public let interval: Int64
    /// Simulation time ns → the policy's `Instant`.
    private let epoch: Int64
    private var sentPackets: [Int64: SentPacket] = [:]
    private var arrivals: [Int64: Int64] = [:]
    private var highestArrived: Int64 = -1
    /// Every sequence below this has been reported.
    private var reportedUpTo: Int64 = 0
    private var bytesSent = 0
    private var bytesReported = 0

    public init(interval: Int64 = 100_000_000, epoch: Int64) {
        self.interval = interval
        self.epoch = epoch
    }

    public mutating func sent(_ packet: SentPacket) {
        sentPackets[packet.sequenceNumber] = packet
        bytesSent += packet.size
    }

    public mutating func arrived(sequence: Int64, at time: Int64) {
        guard sequence >= reportedUpTo else { return }
        arrivals[sequence] = time
        highestArrived = max(highestArrived, sequence)
    }

    public mutating func report(at time: Int64) -> (bytes: Int, feedback: TransportPacketsFeedback)? {
        guard highestArrived >= reportedUpTo else { return nil }
        var packets: [PacketResult] = []
        for sequence in reportedUpTo ... highestArrived {
            guard let sent = sentPackets.removeValue(forKey: sequence) else { continue }
            let arrival = arrivals.removeValue(forKey: sequence)
            packets.append(PacketResult(sent: sent, arrival: arrival.map { Instant(nanoseconds: epoch + $0 + Self.receiverClockOffset) }))
            bytesReported += sent.size
        }
        reportedUpTo = highestArrived + 1
        let feedback = TransportPacketsFeedback(feedbackTime: Instant(nanoseconds: epoch + time), packets: packets, bytesInFlight: 0)
        return (20 + 2 * packets.count, feedback)
    }

    public mutating func delivered(_ feedback: TransportPacketsFeedback, at time: Int64) -> TransportPacketsFeedback {
        var copy = feedback
        copy.feedbackTime = Instant(nanoseconds: epoch + time)
        copy.bytesInFlight = max(0, bytesSent - bytesReported)
        return copy
    }
}
