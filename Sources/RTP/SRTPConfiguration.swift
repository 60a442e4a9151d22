/// What SRTP (RFC 3711) needs to know, as a `Sendable` value: the crypto suite and the 30-byte master key + salt.
///
/// The key is secret. `description`, `debugDescription` and the mirror say only the suite, so string interpolation,
/// `print` and `dump` never reveal it; it leaves only through `masterKeyAndSalt` (to libsrtp) and
/// `keyParameter`/`cryptoAttribute` (into the SDP).
public struct SRTPConfiguration: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// RFC 4568 §6.2 crypto suites (AES-128 counter mode, HMAC-SHA1).
    public enum Suite: String, Sendable, CaseIterable {
        /// 80-bit tags on SRTP and SRTCP: the default of RFC 3711 §5.
        case aesCM128HMACSHA1_80 = "AES_CM_128_HMAC_SHA1_80"
        /// 32-bit tag on SRTP, still 80 bits on SRTCP (RFC 4568 §6.2.2).
        case aesCM128HMACSHA1_32 = "AES_CM_128_HMAC_SHA1_32"

        /// Bytes the authentication tag adds to each SRTP packet.
        public var rtpTagLength: Int { self == .aesCM128HMACSHA1_80 ? 10 : 4 }
        /// Bytes SRTCP adds to each compound packet: E flag + 31-bit index (RFC 3711 §3.4) and the 80-bit tag.
        public var rtcpTrailerLength: Int { 4 + 10 }
    }

    /// 128-bit master key then 112-bit master salt (RFC 3711 §8.2, RFC 4568 §6.1 "inline" key||salt).
    public static let masterKeyAndSaltLength = 30

    public let suite: Suite
    public let masterKeyAndSalt: [UInt8]

    /// Fails unless `masterKeyAndSalt` holds exactly 30 bytes (the error does not show them).
    public init(suite: Suite = .aesCM128HMACSHA1_80, masterKeyAndSalt: [UInt8]) throws(RTPError) {
        guard masterKeyAndSalt.count == Self.masterKeyAndSaltLength else {
            throw .make(.invalidValue, "SRTP master key and salt of \(masterKeyAndSalt.count) bytes; \(Self.masterKeyAndSaltLength) needed")
        }
        self.suite = suite
        self.masterKeyAndSalt = masterKeyAndSalt
    }

    /// The key as written after `inline:` (base64 of key || salt, 40 characters).
    public init(suite: Suite = .aesCM128HMACSHA1_80, base64 text: Substring) throws(RTPError) {
        guard let bytes = Base64.decode(text) else { throw .make(.invalidValue, "SRTP key is not base64") }
        try self.init(suite: suite, masterKeyAndSalt: bytes)
    }

    /// The RFC 4568 §6.1 key parameter, `inline:<base64 key||salt>`. Secret.
    public var keyParameter: String { "inline:" + Base64.encode(masterKeyAndSalt) }

    /// The value of an SDP `a=crypto:` attribute (RFC 4568 §9.1): `<tag> <crypto-suite> inline:<key||salt>`. Secret.
    public func cryptoAttribute(tag: Int = 1) -> String { "\(tag) \(suite.rawValue) \(keyParameter)" }

    public var description: String { "SRTP \(suite.rawValue) (key not shown)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["suite": suite], displayStyle: .struct) }
}
