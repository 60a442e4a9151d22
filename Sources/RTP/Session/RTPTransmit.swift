/// What may go on the wire now (`RTPSendSession.pollTransmit`): a batch of RTP packets for the RTP socket, or one
/// RTCP compound (SR + SDES, a TMMBN reply, SR + SDES + BYE) for the RTCP destination.
///
/// The datagrams are views, not copies: RTP packets are read where they wait in the session's queue, RTCP where the
/// session built it. They stay valid and unchanged until the driver reports back (`didTransmit`, `didFailTransmit`);
/// until then the session hands out no other transmit and writes nothing they point into, whatever else it is asked
/// to do (enqueue, feedback). Plaintext: SRTP, if any, is the driver's, in its own buffer.
///
/// `@unchecked Sendable`: the views point into storage the session reserves for the holder of this value until it
/// reports back (see above), which is what lets a driver read them outside the lock that guards the session.
public struct RTPTransmit: @unchecked Sendable {
    public enum Kind: Sendable, Equatable {
        /// RTP (and RTX) packets, in order, to the RTP destination.
        case rtp
        /// One RTCP compound packet, to the RTCP destination (the RTP one with rtcp-mux).
        case rtcp
    }

    public let kind: Kind
    /// The compound carries the BYE: once reported, the session is closed.
    public let isGoodbye: Bool
    /// The datagrams, in sending order; never empty.
    public let datagrams: UnsafeBufferPointer<UnsafeRawBufferPointer>

    init(kind: Kind, isGoodbye: Bool = false, datagrams: UnsafeBufferPointer<UnsafeRawBufferPointer>) {
        self.kind = kind
        self.isGoodbye = isGoodbye
        self.datagrams = datagrams
    }

    public var count: Int { datagrams.count }
}
