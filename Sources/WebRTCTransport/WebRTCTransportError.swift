import MediaCore

/// What goes wrong serving WebRTC viewers: an offer refused (with the SDP layer's reason and the HTTP status that
/// fits it), the transport's socket or thread, DTLS or SRTP set-up for a viewer.
public typealias WebRTCTransportError = PlainCodedError<WebRTCTransportErrorDomain>

/// Names `WebRTCTransportError` (a `PlainCodedError`: code, reason, call site).
public enum WebRTCTransportErrorDomain {}

extension WebRTCTransportError {
    /// The HTTP status a WHEP server answers with: 400 for an offer that cannot be read, 406 for one that offers
    /// nothing we can send, 503 when no more viewers fit, 500 for our own failures.
    public var httpStatus: Int {
        switch code {
        case .badOffer: 400
        case .unacceptableOffer: 406
        case .tooManyViewers: 503
        default: 500
        }
    }
}

extension ErrorCode where Owner == WebRTCTransportError {
    /// The offer is not SDP (or exceeds a bound): WHEP's 400.
    public static var badOffer: Self { Self("badOffer") }
    /// The offer is SDP but asks for something rtenc cannot send (no H.264 of the encoder's profile, no BUNDLE…): 406.
    public static var unacceptableOffer: Self { Self("unacceptableOffer") }
    /// `maxViewers` are connected already: 503.
    public static var tooManyViewers: Self { Self("tooManyViewers") }
    /// The UDP socket, the I/O thread, the DTLS endpoint or the SRTP session could not be made.
    public static var transport: Self { Self("transport") }
}
