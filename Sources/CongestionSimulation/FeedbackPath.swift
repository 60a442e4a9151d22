import RTP

/// How a media flow's packet results reach its policy.
///
/// On the wire (`transportCC`, `congestionControlFeedback`) the loop runs as live: the send session writes the
/// transport-wide sequence number into every packet it transmits (or, for RFC 8888, remembers its RTP sequence
/// numbers), the receive session's `CongestionFeedbackGenerator` turns the arrivals into RTCP every feedback interval,
/// whose real bytes cross the return link (rate-limited, lossy, queued like any packet), and the send session parses
/// them into `TransportPacketsFeedback` through its `SentPacketHistory` — the `.transportFeedback` event a live
/// driver hands its policy. Probes are the session's padding-only packets on its RTX stream.
///
/// `groundTruth` skips the wire: a `FeedbackSource` (by default `GroundTruthFeedback`) reports exact arrival times
/// out of band, and the simulator sends probe packets beside the session.
public enum FeedbackPath: String, Sendable, Hashable, CaseIterable {
    case groundTruth = "ground-truth"
    /// Transport-cc: RTPFB FMT 15 about the transport-wide sequence numbers
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01): arrival deltas in 250 µs, reference time in 64 ms.
    case transportCC = "transport-cc"
    /// RFC 8888 congestion control feedback (RTPFB FMT 11) about each SSRC's RTP sequence numbers: arrival offsets
    /// in 1/1024 s before the report's timestamp.
    case congestionControlFeedback = "ccfb"

    /// The transport-wide sequence number's extension ID in the simulated SDP.
    static let transportSequenceNumberID: UInt8 = 3
    /// RTX (RFC 4588), which the sessions need for padding-only probe packets: payload type and SSRC bit.
    static let rtxPayloadType: UInt8 = 97
    static let rtxSSRCBit: UInt32 = 0x0080_0000

    var isOnTheWire: Bool { self != .groundTruth }

    /// The send session's side of the negotiation.
    func configure(_ sender: inout RTPSendSession.Configuration) {
        switch self {
        case .groundTruth:
            return
        case .transportCC:
            sender.headerExtensions = RTPSendHeaderExtensions(transportSequenceNumberID: Self.transportSequenceNumberID)
        case .congestionControlFeedback:
            sender.acceptsCongestionControlFeedback = true
        }
        sender.rtx = (Self.rtxPayloadType, sender.ssrc | Self.rtxSSRCBit)
    }

    /// The receive session's side: which report it sends, how often.
    func configure(_ receiver: inout RTPReceiveSession.Configuration, interval: Int64) {
        switch self {
        case .groundTruth: return
        case .transportCC: receiver.congestionFeedback = .transportCC(extensionID: Self.transportSequenceNumberID)
        case .congestionControlFeedback: receiver.congestionFeedback = .rfc8888
        }
        receiver.feedbackInterval = .nanoseconds(interval)
    }

    /// True for an RTCP datagram that is a congestion-control report (transport-cc or RFC 8888: PT 205, FMT 15 or
    /// 11), which the receive session sends as a packet of its own; the logs call it `.feedback`.
    static func isCongestionFeedback(_ datagram: [UInt8]) -> Bool {
        datagram.count >= 4 && datagram[1] == 205 && (datagram[0] & 0x1F == 15 || datagram[0] & 0x1F == 11)
    }
}

/// The feedback source of a flow whose feedback travels on the wire: the receive session's own RTCP carries it, so
/// nothing goes out of band (the seam stays, empty).
struct SessionFeedback: FeedbackSource {
    mutating func sent(_ packet: SentPacket) {}
    mutating func arrived(sequence: Int64, at time: Int64) {}
    mutating func report(at time: Int64) -> (bytes: Int, feedback: TransportPacketsFeedback)? { nil }
    mutating func delivered(_ feedback: TransportPacketsFeedback, at time: Int64) -> TransportPacketsFeedback { feedback }
}
