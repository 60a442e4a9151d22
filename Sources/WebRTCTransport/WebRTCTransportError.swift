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
        case .tooManyViewers, .tooManyPendingViewers: 503
        default: 500
        }
    }

    /// For a refusal that passes (a 503): the seconds after which trying again makes sense, for HTTP `Retry-After`.
    /// A viewer still connecting is done within a second or two (or expires); a full server waits for someone to go.
    public var retryAfterSeconds: Int? {
        switch code {
        case .tooManyViewers: 10
        case .tooManyPendingViewers: 2
        default: nil
        }
    }
}

extension ErrorCode where Owner == WebRTCTransportError {
    /// The offer is not SDP (or exceeds a bound): WHEP's 400.
    public static var badOffer: Self { Self("badOffer") }
    /// The offer is SDP but asks for something rtenc cannot send (no H.264 of the encoder's profile, no BUNDLE…): 406.
    public static var unacceptableOffer: Self { Self("unacceptableOffer") }
    /// `maxViewers` are served already: 503.
    public static var tooManyViewers: Self { Self("tooManyViewers") }
    /// `maxPendingViewers` are still connecting (ICE or DTLS not done): 503.
    public static var tooManyPendingViewers: Self { Self("tooManyPendingViewers") }
    /// A WHIP server's answer that is not SDP or does not accept our offer (publishing).
    public static var badAnswer: Self { Self("badAnswer") }
    /// A WHIP server's answer that does not take our codec as offered (another payload type, H.265 of another
    /// profile or tier, a level under our stream's): the encoder is fixed by then; publish with the other codec.
    public static var codecRefused: Self { Self("codecRefused") }
    /// The publisher was stopped or is connected already.
    public static var closed: Self { Self("closed") }
    /// The UDP socket, the I/O thread, the DTLS endpoint or the SRTP session could not be made.
    public static var transport: Self { Self("transport") }
}
