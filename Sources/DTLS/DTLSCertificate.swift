/// The certificate rtenc shows in DTLS handshakes: an ECDSA P-256 key pair and a self-signed X.509 v3 certificate,
/// made fresh (WebRTC peers check only its fingerprint against the SDP, never a chain: RFC 8827 §6.5). Generate one
/// per process or per session and put `fingerprint.sdpValue` in the SDP's `a=fingerprint`.
///
/// The private key never leaves OpenSSL: there is no accessor for it, and the description shows the fingerprint only.
/// Immutable after creation, and OpenSSL reference-counts the certificate and key that endpoints share, so one
/// certificate may serve endpoints on any thread (`@unchecked Sendable` for the C handle it owns).
public final class DTLSCertificate: @unchecked Sendable, CustomStringConvertible {
    /// What a certificate says about itself (for checks and logs; nothing secret).
    public struct Summary: Sendable, Equatable {
        /// 3 for X.509 v3.
        public var version: Int
        /// Seconds since 1970-01-01 UTC.
        public var notBefore: Int64
        public var notAfter: Int64
        /// Octets of the serial number (positive, RFC 5280 §4.1.2.2).
        public var serialLength: Int
        public var serialIsNegative: Bool
        /// OpenSSL's short names: "ecdsa-with-SHA256", "prime256v1" (= P-256).
        public var signatureAlgorithm: String
        public var curve: String
        public var isSelfSigned: Bool
    }

    /// RFC 8122 §5's SHA-256 over the DER encoding, for `a=fingerprint`.
    public let fingerprint: DTLSFingerprint
    public let summary: Summary
    let handle: OpaquePointer

    /// Makes a key pair and a certificate for it: subject and issuer `CN=<commonName>`, valid from an hour ago (for
    /// peers whose clock is behind) until `validityDays` from now, a random 127-bit serial, signed ECDSA-SHA256.
    public init(commonName: String = "rtenc", validityDays: Int = 30) throws(DTLSError) {
        guard !commonName.isEmpty, !commonName.utf8.contains(0) else {
            throw .make(.invalidArgument, "a certificate's common name must be non-empty text")
        }
        guard (1 ... 3650).contains(validityDays) else {
            throw .make(.invalidArgument, "validity of \(validityDays) days (1…3650)")
        }
        let handle = try CDTLSCalls.generateCertificate(commonName: commonName, validityDays: UInt32(validityDays))
        do {
            fingerprint = try DTLSFingerprint(sha256: CDTLSCalls.fingerprint(of: handle))
        } catch {
            CDTLSCalls.freeCertificate(handle)
            throw error
        }
        let fields = CDTLSCalls.fields(of: handle)
        summary = Summary(
            version: fields.version + 1, notBefore: fields.notBefore, notAfter: fields.notAfter,
            serialLength: fields.serialLength, serialIsNegative: fields.serialNegative,
            signatureAlgorithm: fields.signatureAlgorithm, curve: fields.curve, isSelfSigned: fields.selfSigned)
        self.handle = handle
    }

    deinit { CDTLSCalls.freeCertificate(handle) }

    public var description: String { "DTLS certificate \(fingerprint.sdpValue)" }
}
