/// What an `RTPSendSession` tells its driver (`pollEvent`), for the application: str0m's `Event`, polled instead of
/// pushed through callbacks, so nothing runs inside the session's lock.
public enum RTPSendEvent: Sendable, Equatable {
    /// The peer lost a picture (PLI, or FIR with a new sequence number), already throttled to one per
    /// `minKeyframeRequestInterval`: encode the next frame as an IDR.
    case keyframeRequested
    /// The peer asks for at most this many bits/s (REMB, RFC draft-alvestrand-rmcat-remb; TMMBR, RFC 5104 §4.2.1).
    case bitrateLimit(UInt64)
    /// A congestion-control feedback report (transport-cc or RFC 8888) about packets the session sent, normalised:
    /// for the rate controller (`BitrateControlPolicy.observe(feedback:)`).
    case transportFeedback(TransportPacketsFeedback)
    /// A NACKed packet is no longer in the history (or was never sent): nothing was retransmitted.
    case retransmissionMissed(sequenceNumber: UInt16)
    /// The BYE left (or could not be sent): the session is closed.
    case goodbyeSent
    /// Something worth a log line; each kind once per session.
    case warning(RTPSendWarning)
}

/// A warning, with a kind that says what it is about.
public struct RTPSendWarning: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// ICMP port unreachable: the peer does not listen (yet); the stream goes on.
        case peerNotListening
        /// The socket refused a batch with an error that is not about the peer (EPERM, EMSGSIZE…): dropped.
        case sendFailed
        /// An RTCP packet could not be sent.
        case rtcpSendFailed
        /// SRTP protection failed for a packet: dropped.
        case protectionFailed
        /// The socket took nothing for the stall limit: what was queued is dropped.
        case stalled
        /// The close deadline came before the queue drained: what was left is dropped.
        case closedWithPacketsQueued
    }

    public let kind: Kind
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
