/// A STUN message (RFC 8489 §5), as built to send or as read from a datagram (see `STUNReceivedMessage`).
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |0 0|     STUN Message Type     |         Message Length        |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         Magic Cookie                          |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                                                               |
///     |                     Transaction ID (96 bits)                  |
///     |                                                               |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// Message Length counts the attributes after the 20-byte header, always a multiple of 4.
public struct STUNMessage: Sendable, Hashable {
    public var type: STUNMessageType
    public var transactionID: STUNTransactionID
    /// In wire order, without MESSAGE-INTEGRITY and FINGERPRINT (see `serialized`).
    public var attributes: [STUNAttribute]

    public init(type: STUNMessageType, transactionID: STUNTransactionID, attributes: [STUNAttribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
    }

    static let headerSize = 20
    static let attributeHeaderSize = 4
    static let messageIntegritySize = 4 + SHA1.digestSize
    static let fingerprintSize = 8
    /// FINGERPRINT is the CRC-32 XOR this ("STUN" in ASCII), so a CRC-32 of the same bytes in another protocol
    /// does not pass for one (RFC 8489 §14.7).
    static let fingerprintXOR: UInt32 = 0x5354_554E

    /// The short-term credential key for MESSAGE-INTEGRITY (RFC 8489 §9.1.1): the password's OpaqueString form
    /// (RFC 8265), which for ICE's passwords (ice-chars: letters, digits, '+', '/') is its UTF-8 bytes unchanged.
    public static func shortTermKey(password: String) -> [UInt8] { Array(password.utf8) }

    // MARK: - Typed access (the first occurrence counts, RFC 8489 §14: "only the first occurrence needs to be processed")

    public func first(_ type: STUNAttributeType) -> STUNAttribute? { attributes.first { $0.type == type } }

    public var username: String? { if case .username(let v)? = first(.username) { v } else { nil } }
    public var priority: UInt32? { if case .priority(let v)? = first(.priority) { v } else { nil } }
    public var useCandidate: Bool { first(.useCandidate) != nil }
    public var iceControlling: UInt64? { if case .iceControlling(let v)? = first(.iceControlling) { v } else { nil } }
    public var iceControlled: UInt64? { if case .iceControlled(let v)? = first(.iceControlled) { v } else { nil } }
    public var xorMappedAddress: TransportAddress? {
        if case .xorMappedAddress(let v)? = first(.xorMappedAddress) { v } else { nil }
    }
    public var errorCode: STUNErrorResponseCode? { if case .errorCode(let v)? = first(.errorCode) { v } else { nil } }

    /// Comprehension-required attribute types (below 0x8000) this implementation does not understand, in order: what
    /// a 420 response lists in UNKNOWN-ATTRIBUTES (RFC 8489 §6.3.1).
    public var unknownComprehensionRequired: [STUNAttributeType] {
        attributes.compactMap { if case .other(let type, _) = $0, type.isComprehensionRequired { type } else { nil } }
    }

    // MARK: - Serializing

    /// The message on the wire: header, attributes, then MESSAGE-INTEGRITY over everything before it when
    /// `integrityKey` is given (RFC 8489 §14.5), then FINGERPRINT over everything before it when `fingerprint`
    /// (§14.7).
    ///
    /// Padding is zero bytes, as RFC 8489 §14 wants; RFC 5389 let a sender put anything there, and the RFC 5769 test
    /// vectors pad with spaces, hence `paddingByte`.
    public func serialized(
        integrityKey: [UInt8]? = nil, fingerprint: Bool = false, paddingByte: UInt8 = 0,
        crypto: some STUNCrypto = STUNSoftwareCrypto()
    ) throws(WebRTCError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        out += type.wireValue.bigEndianBytes
        out += [0, 0]  // length, set below
        out += STUNAttribute.magicCookie.bigEndianBytes
        out += transactionID.bytes
        for attribute in attributes {
            try attribute.checkWritable()
            let value = attribute.value(transactionID: transactionID)
            guard value.count <= Int(UInt16.max) else {
                throw .make(.fieldOverflow, "attribute \(attribute.type) of \(value.count) bytes (at most 65535)")
            }
            out += attribute.type.rawValue.bigEndianBytes + UInt16(value.count).bigEndianBytes + value
            out += repeatElement(paddingByte, count: Self.padding(value.count))
        }
        if let integrityKey {
            // The length covers MESSAGE-INTEGRITY itself but not a FINGERPRINT after it (§14.5).
            try Self.setLength(&out, to: out.count - Self.headerSize + Self.messageIntegritySize)
            let hmac = crypto.hmacSHA1(key: integrityKey, message: out[...])
            out += STUNAttributeType.messageIntegrity.rawValue.bigEndianBytes + UInt16(SHA1.digestSize).bigEndianBytes + hmac
        }
        if fingerprint {
            try Self.setLength(&out, to: out.count - Self.headerSize + Self.fingerprintSize)
            let crc = crypto.crc32(out[...]) ^ Self.fingerprintXOR
            out += STUNAttributeType.fingerprint.rawValue.bigEndianBytes + UInt16(4).bigEndianBytes + crc.bigEndianBytes
        }
        try Self.setLength(&out, to: out.count - Self.headerSize)
        return out
    }

    static func padding(_ count: Int) -> Int { (4 - count % 4) % 4 }

    private static func setLength(_ message: inout [UInt8], to length: Int) throws(WebRTCError) {
        guard length <= Int(UInt16.max) else { throw .make(.fieldOverflow, "message of \(length) bytes after the header (at most 65535)") }
        message[2] = UInt8(truncatingIfNeeded: length >> 8)
        message[3] = UInt8(truncatingIfNeeded: length)
    }
}
