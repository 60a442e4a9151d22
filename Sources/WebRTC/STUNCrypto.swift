/// The two checksums STUN needs, as a seam: the pure `STUNSoftwareCrypto` by default; an edge that links OpenSSL
/// (the DTLS edge does) may hand in libcrypto's HMAC instead. Both must give the same bytes: the RFC 5769 vectors
/// are the test.
public protocol STUNCrypto: Sendable {
    /// HMAC-SHA1 of `message` under `key`: 20 bytes (MESSAGE-INTEGRITY, RFC 8489 §14.5).
    func hmacSHA1(key: [UInt8], message: ArraySlice<UInt8>) -> [UInt8]
    /// CRC-32 of `bytes` (FINGERPRINT before its XOR with 0x5354554E, RFC 8489 §14.7).
    func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32
}

/// SHA-1, HMAC-SHA1 and CRC-32 in plain Swift (RFC 3174, RFC 2104, ISO 13239).
public struct STUNSoftwareCrypto: STUNCrypto {
    public init() {}

    public func hmacSHA1(key: [UInt8], message: ArraySlice<UInt8>) -> [UInt8] {
        HMACSHA1.authenticationCode(key: key, message: message)
    }

    public func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 { CRC32.checksum(bytes) }
}
