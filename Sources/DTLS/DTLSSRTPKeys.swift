/// An SRTP protection profile of the DTLS `use_srtp` extension (RFC 5764 §4.1.2; IANA "DTLS-SRTP Protection
/// Profiles"). A struct over the wire value rather than an enum, so a profile rtenc does not know never traps.
public struct DTLSSRTPProfile: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// SRTP_AES128_CM_HMAC_SHA1_80 (0x0001): what rtenc offers, and what Chromium 156 negotiates.
    public static let aes128CMHMACSHA1_80 = Self(rawValue: 0x0001)
    /// SRTP_AES128_CM_HMAC_SHA1_32 (0x0002).
    public static let aes128CMHMACSHA1_32 = Self(rawValue: 0x0002)
    /// SRTP_AEAD_AES_128_GCM (0x0007, RFC 7714 §14.2).
    public static let aeadAES128GCM = Self(rawValue: 0x0007)
    /// SRTP_AEAD_AES_256_GCM (0x0008).
    public static let aeadAES256GCM = Self(rawValue: 0x0008)

    /// Bytes of the master key and the master salt (RFC 5764 §4.1.2, RFC 7714 §12); nil for a profile not known here.
    public var keyAndSaltLengths: (key: Int, salt: Int)? {
        switch self {
        case .aes128CMHMACSHA1_80, .aes128CMHMACSHA1_32: (16, 14)
        case .aeadAES128GCM: (16, 12)
        case .aeadAES256GCM: (32, 12)
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .aes128CMHMACSHA1_80: "SRTP_AES128_CM_HMAC_SHA1_80"
        case .aes128CMHMACSHA1_32: "SRTP_AES128_CM_HMAC_SHA1_32"
        case .aeadAES128GCM: "SRTP_AEAD_AES_128_GCM"
        case .aeadAES256GCM: "SRTP_AEAD_AES_256_GCM"
        default: "SRTP profile 0x\(String(rawValue, radix: 16))"
        }
    }
}

/// The SRTP master keys and salts a DTLS handshake exported (RFC 5764 §4.2): one pair for what the DTLS client
/// writes and one for what the server writes. **Each direction has its own key**: an endpoint protects what it sends
/// with its own role's pair and unprotects what it receives with the peer's (`outbound(for:)`, `inbound(for:)`).
///
/// Secret: the description and the mirror show the profile only.
public struct DTLSSRTPKeys: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let profile: DTLSSRTPProfile
    public let clientMasterKey: [UInt8]
    public let clientMasterSalt: [UInt8]
    public let serverMasterKey: [UInt8]
    public let serverMasterSalt: [UInt8]

    /// Splits the exporter's output, laid out as RFC 5764 §4.2 says:
    /// client_write_SRTP_master_key | server_write_SRTP_master_key | client_write_SRTP_master_salt |
    /// server_write_SRTP_master_salt.
    public init(profile: DTLSSRTPProfile, keyingMaterial material: [UInt8]) throws(DTLSError) {
        guard let (key, salt) = profile.keyAndSaltLengths else {
            throw DTLSError(code: .unsupported, reason: "no key and salt lengths known for \(profile)")
        }
        guard material.count == Self.keyingMaterialLength(key: key, salt: salt) else {
            throw .make(.invalidArgument, "\(profile) needs \(2 * (key + salt)) bytes of keying material, not \(material.count)")
        }
        self.profile = profile
        clientMasterKey = Array(material[0 ..< key])
        serverMasterKey = Array(material[key ..< 2 * key])
        clientMasterSalt = Array(material[2 * key ..< 2 * key + salt])
        serverMasterSalt = Array(material[2 * key + salt ..< 2 * (key + salt)])
    }

    static func keyingMaterialLength(key: Int, salt: Int) -> Int { 2 * (key + salt) }

    /// Master key || master salt for what `role` sends (libsrtp's and RFC 4568's "inline" order).
    public func outbound(for role: DTLSRole) -> [UInt8] {
        role == .client ? clientMasterKey + clientMasterSalt : serverMasterKey + serverMasterSalt
    }

    /// Master key || master salt for what `role` receives: the peer's outbound pair.
    public func inbound(for role: DTLSRole) -> [UInt8] { outbound(for: role.peer) }

    public var description: String { "DTLS-SRTP keys \(profile) (not shown)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["profile": profile], displayStyle: .struct) }
}
