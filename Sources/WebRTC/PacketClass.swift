/// What a datagram on a WebRTC transport's one UDP port is, by its first byte (RFC 7983 §7, as updated by RFC 9443 §3).
///
///                  +----------------+
///                  |        [0..3] -+--> forward to STUN
///                  |                |
///                  |      [16..19] -+--> forward to ZRTP
///                  |                |
///      packet -->  |      [20..63] -+--> forward to DTLS
///                  |                |
///                  |      [64..79] -+--> forward to TURN Channel
///                  |                |
///                  |    [128..191] -+--> forward to RTP/RTCP
///                  +----------------+
///
/// RTP and RTCP share the range; with rtcp-mux (RFC 5761 §4) the second byte tells them apart: RTCP packet types
/// 192–223 (SR 200, RR 201, SDES 202, BYE 203, APP 204, RTPFB 205, PSFB 206, XR 207) fall where an RTP header's
/// marker bit and payload type 64–95 would, which RFC 5761 §4 keeps out of use for RTP.
public enum PacketClass: Sendable, Hashable {
    case stun
    case zrtp
    case dtls
    case turnChannel
    case rtp
    case rtcp
    /// Empty, or a first byte no range claims: dropped (RFC 7983 §7: "the packet MUST be dropped").
    case unknown

    /// Classifies `datagram` by its first byte (and, for RTP/RTCP, its second).
    public init<Bytes: Collection<UInt8>>(classifying datagram: Bytes) {
        guard let first = datagram.first else {
            self = .unknown
            return
        }
        switch first {
        case 0...3: self = .stun
        case 16...19: self = .zrtp
        case 20...63: self = .dtls
        case 64...79: self = .turnChannel
        case 128...191:
            let second = datagram.dropFirst().first
            if let second, (192...223).contains(second) {
                self = .rtcp
            } else {
                self = second == nil ? .unknown : .rtp
            }
        default: self = .unknown
        }
    }
}
