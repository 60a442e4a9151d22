/// How a `DTLSEndpoint` sizes its records and times its retransmissions.
public struct DTLSEndpointConfiguration: Sendable, Equatable {
    /// Largest DTLS datagram the endpoint writes (SSL_set_mtu): 1200 bytes keeps a certificate flight inside any
    /// path's MTU with room for IPv6 and TURN headers, as browsers do.
    public var mtu: Int
    /// The retransmission timer's first value and its ceiling (RFC 6347 §4.2.4.1: 1 s, doubling on each expiry, at
    /// most 60 s). OpenSSL gives up after 12 expiries of one flight.
    public var initialRetransmissionTimeout: Duration
    public var maximumRetransmissionTimeout: Duration

    /// OpenSSL's DTLS floor for the MTU (dtls1_min_mtu: 256 less the largest record overhead) and UDP's ceiling.
    public static let mtuRange = 256 ... 65_507
    /// OpenSSL counts a timer with under 15 ms left as run out (d1_lib.c), so a shorter timer would fire on every
    /// read; the floor leaves room above that. The ceiling is what its microsecond counter holds.
    public static let retransmissionTimeoutRange: ClosedRange<Duration> = .milliseconds(20) ... .seconds(4_000)

    public init(mtu: Int = 1200, initialRetransmissionTimeout: Duration = .seconds(1),
                maximumRetransmissionTimeout: Duration = .seconds(60)) {
        self.mtu = mtu
        self.initialRetransmissionTimeout = initialRetransmissionTimeout
        self.maximumRetransmissionTimeout = maximumRetransmissionTimeout
    }

    func validated() throws(DTLSError) -> Self {
        guard Self.mtuRange.contains(mtu) else { throw .make(.invalidArgument, "DTLS MTU \(mtu) outside \(Self.mtuRange)") }
        guard Self.retransmissionTimeoutRange.contains(initialRetransmissionTimeout),
              Self.retransmissionTimeoutRange.contains(maximumRetransmissionTimeout),
              initialRetransmissionTimeout <= maximumRetransmissionTimeout
        else {
            throw .make(.invalidArgument,
                "retransmission timeouts \(initialRetransmissionTimeout)…\(maximumRetransmissionTimeout): each within "
                    + "\(Self.retransmissionTimeoutRange), the first no larger than the maximum")
        }
        return self
    }
}

/// What a `DTLSEndpoint` tells its owner, polled with `pollEvent()`.
public enum DTLSEvent: Sendable {
    /// The handshake finished, the peer's certificate matches the remote SDP's fingerprint, and the SRTP keys are
    /// exported: media may flow.
    case connected(DTLSConnection)
    /// The association failed (a fatal alert, retransmissions exhausted, the wrong certificate, no SRTP profile);
    /// the endpoint takes no more datagrams. Datagrams still queued (an alert) should be sent.
    case failed(DTLSError)
    /// The association was closed (close_notify from the peer, or `close(at:)`).
    case closed
}

/// What a finished handshake established.
public struct DTLSConnection: Sendable, Equatable {
    /// The SRTP keys per direction and the negotiated protection profile.
    public let keys: DTLSSRTPKeys
    /// The peer certificate's fingerprint (equal to the one the remote SDP announced).
    public let peerFingerprint: DTLSFingerprint
    /// OpenSSL's name of the negotiated cipher suite, e.g. "ECDHE-ECDSA-AES128-GCM-SHA256".
    public let cipherSuite: String
    /// The protocol version on the wire: 0xFEFD is DTLS 1.2 (what getStats' `tlsVersion` shows as "FEFD").
    public let protocolVersion: UInt16
}
