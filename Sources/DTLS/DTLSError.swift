import MediaCore

/// The one error type of the `DTLS` module, shaped like every other module's (`CodedError`): a `code` tests compare
/// on, a `reason` that carries OpenSSL's own error text where OpenSSL failed, and the call site.
public typealias DTLSError = PlainCodedError<DTLSErrorDomain>

/// Names `DTLSError` (a `PlainCodedError`: code, reason, call site).
public enum DTLSErrorDomain {}

extension ErrorCode where Owner == DTLSError {
    /// A value the call does not accept (an MTU or a timeout out of range, an empty common name).
    public static var invalidArgument: Self { Self("invalidArgument") }
    /// OpenSSL could not allocate.
    public static var outOfMemory: Self { Self("outOfMemory") }
    /// Generating the key pair or the certificate failed.
    public static var certificate: Self { Self("certificate") }
    /// Setting up OpenSSL's context failed (cipher list, SRTP profiles, key pair).
    public static var configuration: Self { Self("configuration") }
    /// The handshake or the record layer failed: a fatal alert sent or received, a malformed message.
    public static var handshakeFailed: Self { Self("handshakeFailed") }
    /// A flight went unanswered through every retransmission OpenSSL allows.
    public static var timedOut: Self { Self("timedOut") }
    /// No SRTP protection profile was negotiated, or the keying material could not be exported.
    public static var srtp: Self { Self("srtp") }
    /// The peer's certificate is not the one the remote SDP's `a=fingerprint` names (RFC 5763 §5).
    public static var fingerprintMismatch: Self { Self("fingerprintMismatch") }
    /// Fingerprint text that is not `<hash> XX:XX:…` (RFC 8122 §5).
    public static var invalidFingerprint: Self { Self("invalidFingerprint") }
    /// Something valid that this implementation does not do (a hash other than SHA-256, an unknown SRTP profile).
    public static var unsupported: Self { Self("unsupported") }
    /// A datagram that cannot be DTLS: empty, larger than UDP allows, or a first byte outside 20…63 (RFC 7983 §7).
    public static var invalidDatagram: Self { Self("invalidDatagram") }
    /// The endpoint has failed or closed; it takes no more datagrams.
    public static var closed: Self { Self("closed") }
}
