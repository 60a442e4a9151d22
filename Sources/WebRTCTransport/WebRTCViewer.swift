import DTLS
import MediaCore
import RTPOut
import WebRTC

/// One player of a `WebRTCServer`: its ICE-lite agent, its DTLS association, its own RTP stream (SSRC, pacer,
/// history for NACK) and, once DTLS has exported the keys, its SRTP session. Touched only under the server's lock
/// (hence `@unchecked Sendable`: it is made outside and moved in).
final class WebRTCViewer: @unchecked Sendable {
    /// Where the viewer is: waiting for a nominated check, in the DTLS handshake, receiving media, saying goodbye.
    enum Phase: String, Sendable {
        case checking, handshaking, connected, closing, closed
    }

    let id: String
    let localUfrag: String
    var agent: ICELiteAgent
    let dtls: DTLSEndpoint
    let role: DTLSRole
    var session: RTPSendSession
    var srtp: SRTPSession?
    /// The latched address (the source of the latest nominating check).
    var remote: SocketAddress?
    var phase: Phase = .checking
    /// Media waits for the first keyframe after SRTP is ready: what comes before it cannot be decoded.
    var awaitingKeyframe = true
    /// The latest REMB, bits/s.
    var peerLimit: UInt64?
    var keyframeRequests = 0
    var startedAt: Instant
    /// When the first keyframe was queued for this viewer (from `startedAt`: the time to first picture we control).
    var firstKeyframeAfter: Duration?
    /// Why the viewer ended, once it has.
    var endReason: String?

    init(id: String, localUfrag: String, agent: ICELiteAgent, dtls: DTLSEndpoint, role: DTLSRole, session: consuming RTPSendSession,
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
