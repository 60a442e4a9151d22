/// A STUN attribute type (RFC 8489 §18.3, RFC 8445 §16.1; IANA "STUN Attributes"). Types below 0x8000 are
/// comprehension-required: an agent that does not understand one must not act on the message as if it did.
public struct STUNAttributeType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let mappedAddress = Self(rawValue: 0x0001)
    public static let username = Self(rawValue: 0x0006)
    public static let messageIntegrity = Self(rawValue: 0x0008)
    public static let errorCode = Self(rawValue: 0x0009)
    public static let unknownAttributes = Self(rawValue: 0x000A)
    public static let realm = Self(rawValue: 0x0014)
    public static let nonce = Self(rawValue: 0x0015)
    public static let messageIntegritySHA256 = Self(rawValue: 0x001C)
    public static let xorMappedAddress = Self(rawValue: 0x0020)
    public static let priority = Self(rawValue: 0x0024)
    public static let useCandidate = Self(rawValue: 0x0025)
    public static let software = Self(rawValue: 0x8022)
    public static let fingerprint = Self(rawValue: 0x8028)
    public static let iceControlled = Self(rawValue: 0x8029)
    public static let iceControlling = Self(rawValue: 0x802A)

    /// RFC 8489 §14: 0x0000–0x7FFF.
    public var isComprehensionRequired: Bool { rawValue < 0x8000 }

    public var description: String { "0x" + String(rawValue, radix: 16) }
}

/// The value of an ERROR-CODE attribute (RFC 8489 §14.8): a code 300–699 and a reason phrase.
public struct STUNErrorResponseCode: Sendable, Hashable, CustomStringConvertible {
    public var code: Int
    public var reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// 400: malformed, or missing USERNAME/MESSAGE-INTEGRITY, or neither ICE-CONTROLLING nor ICE-CONTROLLED.
    public static let badRequest = Self(code: 400, reason: "Bad Request")
    /// 401: a USERNAME this agent does not know.
    public static let unauthorized = Self(code: 401, reason: "Unauthorized")
    /// 420: comprehension-required attributes this agent does not understand (listed in UNKNOWN-ATTRIBUTES).
    public static let unknownAttribute = Self(code: 420, reason: "Unknown Attribute")
    /// 487: both agents claim the same ICE role (RFC 8445 §7.3.1.1).
    public static let roleConflict = Self(code: 487, reason: "Role Conflict")

    public var description: String { "\(code) \(reason)" }
}

/// One attribute of a STUN message, typed where rtenc understands it. MESSAGE-INTEGRITY and FINGERPRINT are not
/// here: they are computed over the serialized message (`STUNMessage.serialized`) and checked on receipt
/// (`STUNReceivedMessage`).
///
/// Every attribute is a TLV padded to 4 bytes (RFC 8489 §14):
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |         Type                  |            Length             |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         Value (variable)                ....
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
public enum STUNAttribute: Sendable, Hashable {
    /// MAPPED-ADDRESS (§14.1), the RFC 3489 form of the reflexive address.
    case mappedAddress(TransportAddress)
    /// XOR-MAPPED-ADDRESS (§14.2): the source the server saw, XORed with the cookie (and transaction ID for IPv6).
    case xorMappedAddress(TransportAddress)
    /// USERNAME (§14.3): for ICE, "<receiver's ufrag>:<sender's ufrag>" (RFC 8445 §7.2.2).
    case username(String)
    /// ERROR-CODE (§14.8).
    case errorCode(STUNErrorResponseCode)
    /// UNKNOWN-ATTRIBUTES (§14.9): the comprehension-required types a 420 response did not understand.
    case unknownAttributes([STUNAttributeType])
    /// SOFTWARE (§14.14).
    case software(String)
    /// PRIORITY (RFC 8445 §16.1): the priority a peer-reflexive candidate learnt from this check would get.
    case priority(UInt32)
    /// USE-CANDIDATE (RFC 8445 §16.1): the controlling agent nominates this pair. No value.
    case useCandidate
    /// ICE-CONTROLLED (RFC 8445 §16.1) with the sender's 64-bit tie-breaker.
    case iceControlled(tieBreaker: UInt64)
    /// ICE-CONTROLLING (RFC 8445 §16.1) with the sender's 64-bit tie-breaker.
    case iceControlling(tieBreaker: UInt64)
    /// Anything else, kept as it came (REALM, NONCE, GOOG-NETWORK-INFO…).
    case other(type: STUNAttributeType, value: [UInt8])

    public var type: STUNAttributeType {
        switch self {
        case .mappedAddress: .mappedAddress
        case .xorMappedAddress: .xorMappedAddress
        case .username: .username
        case .errorCode: .errorCode
        case .unknownAttributes: .unknownAttributes
        case .software: .software
        case .priority: .priority
        case .useCandidate: .useCandidate
        case .iceControlled: .iceControlled
        case .iceControlling: .iceControlling
        case .other(let type, _): type
        }
    }

    /// RFC 8489 §14.3: USERNAME "MUST contain a UTF-8-encoded sequence of fewer than 509 bytes"; RFC 5389 allowed
    /// 512, and the parser stays as lenient as RFC 5389 peers.
    public static let maxUsernameBytes = 512
    /// RFC 8489 §14.8/§14.14: reason phrase and SOFTWARE "fewer than 128 characters (which can be as long as 509
    /// bytes)"; 763 bytes is the RFC 5389 bound the parser accepts.
    public static let maxTextBytes = 763

    static let magicCookie: UInt32 = 0x2112_A442

    /// Refuses what the parser would refuse on the way back: an ERROR-CODE outside 300–699, a USERNAME over
    /// `maxUsernameBytes`, a reason phrase or SOFTWARE over `maxTextBytes`.
    func checkWritable() throws(WebRTCError) {
        switch self {
        case .errorCode(let error):
            guard (300...699).contains(error.code) else { throw .make(.invalidValue, "ERROR-CODE \(error.code) (300 to 699)") }
            guard error.reason.utf8.count <= Self.maxTextBytes else {
                throw .make(.fieldOverflow, "ERROR-CODE reason of \(error.reason.utf8.count) bytes (at most \(Self.maxTextBytes))")
            }
        case .username(let text) where text.utf8.count > Self.maxUsernameBytes:
            throw .make(.fieldOverflow, "USERNAME of \(text.utf8.count) bytes (at most \(Self.maxUsernameBytes))")
        case .software(let text) where text.utf8.count > Self.maxTextBytes:
            throw .make(.fieldOverflow, "SOFTWARE of \(text.utf8.count) bytes (at most \(Self.maxTextBytes))")
        default: break
        }
    }

    /// The value bytes (without header or padding). XOR-MAPPED-ADDRESS needs the message's transaction ID.
    func value(transactionID: STUNTransactionID) -> [UInt8] {
        switch self {
        case .mappedAddress(let address): Self.addressValue(address, xorWith: nil)
        case .xorMappedAddress(let address): Self.addressValue(address, xorWith: transactionID)
        case .username(let text), .software(let text): Array(text.utf8)
        case .errorCode(let error):
            // 21 reserved bits, the class (hundreds, 3 bits), the number (0–99, 8 bits), then the reason phrase.
            [0, 0, UInt8(truncatingIfNeeded: error.code / 100) & 0x07, UInt8(truncatingIfNeeded: error.code % 100)]
                + Array(error.reason.utf8)
        case .unknownAttributes(let types): types.flatMap { [UInt8(truncatingIfNeeded: $0.rawValue >> 8), UInt8(truncatingIfNeeded: $0.rawValue)] }
        case .priority(let value): value.bigEndianBytes
        case .useCandidate: []
        case .iceControlled(let tieBreaker), .iceControlling(let tieBreaker): tieBreaker.bigEndianBytes
        case .other(_, let value): value
        }
    }

    ///      0                   1                   2                   3
    ///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
    ///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    ///     |0 0 0 0 0 0 0 0|    Family     |         X-Port                |
    ///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    ///     |                X-Address (Variable)
    ///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    ///
    /// Family 0x01 IPv4, 0x02 IPv6. X-Port is the port XOR the cookie's top 16 bits; X-Address the address XOR the
    /// cookie (IPv4) or the cookie followed by the transaction ID (IPv6) (RFC 8489 §14.2). MAPPED-ADDRESS is the same
    /// without the XOR.
    private static func addressValue(_ address: TransportAddress, xorWith transactionID: STUNTransactionID?) -> [UInt8] {
        let mask = xorMask(transactionID)
        let family: UInt8 = address.ip.isIPv4 ? 0x01 : 0x02
        let port = address.port ^ (transactionID == nil ? 0 : UInt16(truncatingIfNeeded: magicCookie >> 16))
        let ip = address.ip.bytes.enumerated().map { $0.element ^ mask[$0.offset] }
        return [0, family, UInt8(truncatingIfNeeded: port >> 8), UInt8(truncatingIfNeeded: port)] + ip
    }

    /// 16 bytes to XOR an address with: zeros without a transaction ID, else cookie ‖ transaction ID.
    private static func xorMask(_ transactionID: STUNTransactionID?) -> [UInt8] {
        guard let transactionID else { return [UInt8](repeating: 0, count: 16) }
        return magicCookie.bigEndianBytes + transactionID.bytes
    }

    /// Reads one attribute's value. `offset` (of the value in the message) goes into errors.
    static func parse(type: STUNAttributeType, value: ArraySlice<UInt8>, transactionID: STUNTransactionID, offset: Int)
        throws(WebRTCError) -> STUNAttribute
    {
        func requireLength(_ expected: Int, _ name: String) throws(WebRTCError) {
            guard value.count == expected else {
                throw .make(.invalidValue, "\(name) must be \(expected) bytes, is \(value.count)", offset: offset)
            }
        }
        switch type {
        case .mappedAddress: return .mappedAddress(try parseAddress(value, xorWith: nil, offset: offset))
        case .xorMappedAddress: return .xorMappedAddress(try parseAddress(value, xorWith: transactionID, offset: offset))
        case .username:
            guard value.count <= maxUsernameBytes else {
                throw .make(.invalidValue, "USERNAME of \(value.count) bytes (at most \(maxUsernameBytes))", offset: offset)
            }
            guard let text = String(validating: value, as: UTF8.self) else {
                throw .make(.invalidValue, "USERNAME is not UTF-8", offset: offset)
            }
            return .username(text)
        case .errorCode:
            guard value.count >= 4, value.count <= 4 + maxTextBytes else {
                throw .make(.invalidValue, "ERROR-CODE of \(value.count) bytes (4 to \(4 + maxTextBytes))", offset: offset)
            }
            let i = value.startIndex
            let errorClass = Int(value[i + 2] & 0x07)
            let number = Int(value[i + 3])
            guard (3...6).contains(errorClass), number < 100 else {
                throw .make(.invalidValue, "ERROR-CODE class \(errorClass), number \(number) (class 3–6, number 0–99)", offset: offset)
            }
            // The reason is for people: a peer's broken UTF-8 costs it its text, not the response.
            let reason = String(decoding: value.dropFirst(4), as: UTF8.self)
            return .errorCode(STUNErrorResponseCode(code: errorClass * 100 + number, reason: reason))
        case .unknownAttributes:
            guard value.count % 2 == 0 else {
                throw .make(.invalidValue, "UNKNOWN-ATTRIBUTES of odd length \(value.count)", offset: offset)
            }
            return .unknownAttributes(stride(from: value.startIndex, to: value.endIndex, by: 2).map {
                STUNAttributeType(rawValue: UInt16(value[$0]) << 8 | UInt16(value[$0 + 1]))
            })
        case .software:
            guard value.count <= maxTextBytes, let text = String(validating: value, as: UTF8.self) else {
                return .other(type: type, value: Array(value))  // informational only: kept raw, never refused
            }
            return .software(text)
        case .priority:
            try requireLength(4, "PRIORITY")
            return .priority(UInt32(bigEndianBytes: value))
        case .useCandidate:
            try requireLength(0, "USE-CANDIDATE")
            return .useCandidate
        case .iceControlled:
            try requireLength(8, "ICE-CONTROLLED")
            return .iceControlled(tieBreaker: UInt64(bigEndianBytes: value))
        case .iceControlling:
            try requireLength(8, "ICE-CONTROLLING")
            return .iceControlling(tieBreaker: UInt64(bigEndianBytes: value))
        default:
            return .other(type: type, value: Array(value))
        }
    }

    private static func parseAddress(_ value: ArraySlice<UInt8>, xorWith transactionID: STUNTransactionID?, offset: Int)
        throws(WebRTCError) -> TransportAddress
    {
        guard value.count >= 4 else { throw .make(.invalidValue, "address attribute of \(value.count) bytes", offset: offset) }
        let i = value.startIndex
        let family = value[i + 1]
        let size = family == 0x01 ? 4 : family == 0x02 ? 16 : 0
        guard size > 0 else { throw .make(.invalidValue, "address family 0x\(String(family, radix: 16)) (0x01 or 0x02)", offset: offset) }
        guard value.count == 4 + size else {
            throw .make(.invalidValue, "address attribute of \(value.count) bytes for family \(family) (needs \(4 + size))", offset: offset)
        }
        let mask = xorMask(transactionID)
        let port = (UInt16(value[i + 2]) << 8 | UInt16(value[i + 3]))
            ^ (transactionID == nil ? 0 : UInt16(truncatingIfNeeded: magicCookie >> 16))
        let ip = value.dropFirst(4).enumerated().map { $0.element ^ mask[$0.offset] }
        return TransportAddress(ip: IPAddress(bytes: ip)!, port: port)  // 4 or 16 bytes, checked above
    }
}

extension FixedWidthInteger {
    /// Big-endian bytes of the value.
    var bigEndianBytes: [UInt8] {
        (0..<Self.bitWidth / 8).map { UInt8(truncatingIfNeeded: self >> (Self.bitWidth - 8 - 8 * $0)) }
    }

    /// From exactly `bitWidth / 8` big-endian bytes (the caller checked the count).
    init(bigEndianBytes bytes: ArraySlice<UInt8>) {
        self = bytes.reduce(0) { $0 << 8 | Self($1) }
    }
}
