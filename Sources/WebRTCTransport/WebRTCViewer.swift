import CongestionControl
import DTLS
import MediaCore
import RTPOut
import WebRTC

/// One WebRTC peer we send to, whatever ICE agent found its path: its DTLS association, its own RTP stream (SSRC,
/// pacer, history for NACK) and, once DTLS has exported the keys, its SRTP session. A `WebRTCServer`'s viewers run an
/// `ICELiteAgent` (WHEP), a `WebRTCPublisher`'s one peer an `ICEControllingAgent` (WHIP); what happens after ICE —
/// DTLS, SRTP per direction, RTCP in, paced SRTP out, the goodbye — is this class's (`+Media`), the same for both.
/// Touched only under its owner's lock (hence `@unchecked Sendable`: it is made outside and moved in).
final class WebRTCPeerLink<Agent: Sendable>: @unchecked Sendable {
    /// Where the peer is: waiting for ICE, in the DTLS handshake, receiving media, saying goodbye.
    enum Phase: String, Sendable {
        case checking, handshaking, connected, closing, closed
    }

    let id: String
    let localUfrag: String
    var agent: Agent
    let dtls: DTLSEndpoint
    let role: DTLSRole
    var session: RTPSendSession
    var srtp: SRTPSession?
    /// The latched address (lite: the source of the latest nominating check; controlling: the selected pair's remote).
    var remote: SocketAddress?
    var phase: Phase = .checking
    /// Media waits for the first keyframe after SRTP is ready: what comes before it cannot be decoded.
    var awaitingKeyframe = true
    /// The latest REMB, bits/s.
    var peerLimit: UInt64?
    var keyframeRequests = 0
    var startedAt: Instant
    /// When the first keyframe was queued for this peer (from `startedAt`: the time to first picture we control).
    var firstKeyframeAfter: Duration?
    /// Why the peer ended, once it has.
    var endReason: String?
    /// Its own rate controller when transport-cc was negotiated (nil: its REMB goes to the owner's
    /// `ViewerBitratePolicy`). Fed its transport-cc reports and REMB; its pacing rate drives this peer's pacer.
    var rate: BitrateController?
    /// When `rate` was last given its process interval.
    var lastProcess: Instant?
    /// The sent-packet path's buffer (`feedSentPackets`), capacity kept.
    var sentPackets: [SentPacket] = []
    /// Times its queue was given up (`flushIfStale`) and the packets dropped then.
    var queueFlushes = 0
    var flushedPackets = 0
    /// Probe clusters the controller asked for that could not be sent (no RTX stream to carry the padding, or too
    /// many waiting).
    var probesNotSent = 0
    /// Whether the controller's start probes (its first allocation's clusters, made with it before the peer
    /// connected) were handed to the session.
    var startProbesSent = false

    init(id: String, localUfrag: String, agent: Agent, dtls: DTLSEndpoint, role: DTLSRole, session: consuming RTPSendSession,
         startedAt: Instant) {
        self.id = id
        self.localUfrag = localUfrag
        self.agent = agent
        self.dtls = dtls
        self.role = role
        self.session = session
        self.startedAt = startedAt
    }
}

/// A WHEP player of a `WebRTCServer`.
typealias WebRTCViewer = WebRTCPeerLink<ICELiteAgent>

/// A datagram for the I/O thread to send once the lock is released.
struct OutgoingDatagram: Sendable {
    var bytes: [UInt8]
    var destination: SocketAddress
}

extension SocketAddress {
    /// The pure address value the WebRTC module speaks.
    var transportAddress: TransportAddress? {
        IPAddress(bytes: addressBytes).map { TransportAddress(ip: $0, port: port) }
    }
}

extension TransportAddress {
    var socketAddress: SocketAddress? { try? SocketAddress(host: ip.description, port: port) }
}
