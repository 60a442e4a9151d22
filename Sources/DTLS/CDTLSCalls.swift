import CDTLS
import MediaCore

/// The one way into CDTLS: every C call the module makes is here, each turning C status codes and OpenSSL's error
/// text into `DTLSError` (STYLE.md §3, swift-system's chokepoint), so nothing above it sees a C type or a raw code.
/// The handles are `OpaquePointer`s to `cdtls_certificate`/`cdtls_endpoint`, each owned by exactly one Swift object
/// whose `deinit` frees it.
enum CDTLSCalls {
    /// Where a handshake step left the endpoint.
    enum Step {
        case handshaking
        case connected
        case peerClosed
        case failed(DTLSError)
    }

    /// A certificate's fields, read back for checks and logs.
    struct CertificateFields {
        var version: Int
        var notBefore: Int64
        var notAfter: Int64
        var serialLength: Int
        var serialNegative: Bool
        var signatureAlgorithm: String
        var curve: String
        var selfSigned: Bool
    }

    // MARK: Certificates

    static func generateCertificate(commonName: String, validityDays: UInt32) throws(DTLSError) -> OpaquePointer {
        var error = cdtls_error()
        guard let certificate = cdtls_certificate_generate(commonName, validityDays, &error) else {
            throw Self.error(error, "cdtls_certificate_generate")
        }
        return certificate
    }

    static func freeCertificate(_ certificate: OpaquePointer) { cdtls_certificate_free(certificate) }

    static func fingerprint(of certificate: OpaquePointer) throws(DTLSError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(CDTLS_FINGERPRINT_LENGTH))
        guard digest.withUnsafeMutableBufferPointer({ cdtls_certificate_fingerprint(certificate, $0.baseAddress) }) == 1 else {
            throw DTLSError(code: .certificate, reason: "X509_digest(SHA-256) of our certificate failed")
        }
        return digest
    }

    static func fields(of certificate: OpaquePointer) -> CertificateFields {
        var info = cdtls_certificate_info()
        _ = cdtls_certificate_describe(certificate, &info)
        return CertificateFields(
            version: Int(info.version), notBefore: info.not_before, notAfter: info.not_after,
            serialLength: Int(info.serial_length), serialNegative: info.serial_negative != 0,
            signatureAlgorithm: string(of: &info.signature_algorithm), curve: string(of: &info.curve),
            selfSigned: info.self_signed != 0)
    }

    // MARK: Endpoints

    static func newEndpoint(certificate: OpaquePointer, isServer: Bool, mtu: Int, initialTimeout: Duration,
                            maximumTimeout: Duration) throws(DTLSError) -> OpaquePointer {
        var error = cdtls_error()
        guard let endpoint = cdtls_endpoint_new(
            certificate, isServer ? 1 : 0, UInt32(mtu), UInt32(initialTimeout.nanoseconds / 1000),
            UInt32(maximumTimeout.nanoseconds / 1000), &error)
        else { throw Self.error(error, "cdtls_endpoint_new") }
        return endpoint
    }

    static func freeEndpoint(_ endpoint: OpaquePointer) { cdtls_endpoint_free(endpoint) }

    static func feed(_ endpoint: OpaquePointer, _ datagram: UnsafeRawBufferPointer) throws(DTLSError) {
        guard let base = datagram.baseAddress,
              cdtls_feed(endpoint, base.assumingMemoryBound(to: UInt8.self), datagram.count) == 0
        else { throw DTLSError(code: .outOfMemory, reason: "the read BIO did not take a datagram of \(datagram.count) bytes") }
    }

    static func step(_ endpoint: OpaquePointer) -> Step {
        var error = cdtls_error()
        switch cdtls_step(endpoint, &error) {
        case CDTLS_HANDSHAKING: return .handshaking
        case CDTLS_CONNECTED: return .connected
        case CDTLS_PEER_CLOSED: return .peerClosed
        default: return .failed(Self.error(error, "cdtls_step"))
        }
    }

    /// The next queued outgoing datagram, nil when there is none.
    static func pull(_ endpoint: OpaquePointer) -> [UInt8]? {
        let length = cdtls_next_datagram_length(endpoint)
        guard length > 0 else { return nil }
        var datagram = [UInt8](repeating: 0, count: length)
        // The length was just read from the same queue, on the same thread: the pull cannot find it too small.
        let pulled = datagram.withUnsafeMutableBufferPointer { cdtls_pull(endpoint, $0.baseAddress, $0.count) }
        return pulled == length ? datagram : nil
    }

    /// Time left on OpenSSL's retransmission timer (zero once it has run out), nil when no timer runs.
    static func timeout(_ endpoint: OpaquePointer) -> Duration? {
        var remaining: UInt64 = 0
        guard cdtls_timeout(endpoint, &remaining) == 1 else { return nil }
        return .microseconds(Int64(clamping: remaining))
    }

    /// Whether a flight was retransmitted.
    static func handleTimeout(_ endpoint: OpaquePointer) throws(DTLSError) -> Bool {
        var error = cdtls_error()
        let result = cdtls_handle_timeout(endpoint, &error)
        if result < 0 { throw Self.error(error, "DTLSv1_handle_timeout") }
        return result == 1
    }

    static func peerFingerprint(_ endpoint: OpaquePointer) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: Int(CDTLS_FINGERPRINT_LENGTH))
        guard digest.withUnsafeMutableBufferPointer({ cdtls_peer_fingerprint(endpoint, $0.baseAddress) }) == 1 else {
            return nil
        }
        return digest
    }

    /// The negotiated SRTP protection profile, nil before the handshake finished or when none was negotiated.
    static func srtpProfile(_ endpoint: OpaquePointer) -> UInt16? {
        var profile: UInt16 = 0
        return cdtls_srtp_profile(endpoint, &profile) == 1 ? profile : nil
    }

    static func exportSRTP(_ endpoint: OpaquePointer, length: Int) throws(DTLSError) -> (profile: UInt16, material: [UInt8]) {
        var profile: UInt16 = 0
        var material = [UInt8](repeating: 0, count: length)
        var error = cdtls_error()
        let ok = material.withUnsafeMutableBufferPointer { cdtls_export_srtp(endpoint, &profile, $0.baseAddress, $0.count, &error) }
        guard ok == 1 else { throw Self.error(error, "cdtls_export_srtp") }
        return (profile, material)
    }

    static func version(_ endpoint: OpaquePointer) -> Int { Int(cdtls_version(endpoint)) }

    static func cipherName(_ endpoint: OpaquePointer) -> String { String(cString: cdtls_cipher_name(endpoint)) }

    /// Whether a close_notify was queued.
    static func close(_ endpoint: OpaquePointer) -> Bool { cdtls_close(endpoint) == 1 }

    // MARK: Errors

    /// The chokepoint from a C error to `DTLSError`; the reason is the call and OpenSSL's error queue.
    static func error(_ error: cdtls_error, _ call: String) -> DTLSError {
        var copy = error
        let message = string(of: &copy.message)
        let reason = message.isEmpty ? "\(call) failed" : "\(call): \(message)"
        let code: DTLSError.Code = switch error.code {
        case CDTLS_ERROR_ARGUMENT: .invalidArgument
        case CDTLS_ERROR_ALLOCATION: .outOfMemory
        case CDTLS_ERROR_CERTIFICATE: .certificate
        case CDTLS_ERROR_CONFIGURATION: .configuration
        case CDTLS_ERROR_TIMEOUT: .timedOut
        case CDTLS_ERROR_SRTP: .srtp
        default: .handshakeFailed
        }
        return DTLSError(code: code, reason: reason)
    }

    /// A NUL-terminated C character array imported as a tuple.
    private static func string<T>(of tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { bytes in
            let characters = bytes.bindMemory(to: UInt8.self)
            let end = characters.firstIndex(of: 0) ?? characters.count
            return String(decoding: UnsafeBufferPointer(rebasing: characters[..<end]), as: UTF8.self)
        }
    }
}
