/// A STUN message read from a datagram, with what is needed to authenticate it afterwards.
///
/// Parsing is strict about structure (RFC 8489 §6.3: the top two bits zero, the magic cookie, a length that is a
/// multiple of 4 and equals the datagram's, attributes that fit) and byte-exact about FINGERPRINT, which it checks
/// when present (§14.7). MESSAGE-INTEGRITY needs the key, which depends on the USERNAME: check it with
/// `hasValidIntegrity(key:)`. Lenient where peers are: unknown attributes are kept (`.other`), padding bytes are
/// ignored, and attributes after MESSAGE-INTEGRITY other than FINGERPRINT are skipped, as §14.5 requires.
public struct STUNReceivedMessage: Sendable {
    public let message: STUNMessage
    /// The MESSAGE-INTEGRITY value (20 bytes), nil when the message has none.
    public let messageIntegrity: [UInt8]?
    /// FINGERPRINT was present (and, since parsing succeeded, correct).
    public let hasFingerprint: Bool
    /// The message up to MESSAGE-INTEGRITY: what the HMAC covers, before its length field is adjusted.
    private let integrityCovered: ArraySlice<UInt8>

    /// A message has at most 16 383 attributes (its length is 16 bits); real ICE checks carry under ten. Bounding
    /// the count keeps a hostile datagram from costing more than a normal one.
    public static let maxAttributes = 64

    /// Parses one whole datagram.
    public init(parsing datagram: ArraySlice<UInt8>, crypto: some STUNCrypto = STUNSoftwareCrypto()) throws(WebRTCError) {
        let base = datagram.startIndex
        let header = try Header(parsing: datagram)
        let length = header.length
        guard length % 4 == 0 else { throw .make(.invalidValue, "message length \(length) is not a multiple of 4", offset: 2) }
        guard datagram.count - STUNMessage.headerSize >= length else {
            throw .make(.truncated, "message length \(length), but \(datagram.count - STUNMessage.headerSize) bytes follow the header", offset: datagram.count)
        }
        guard datagram.count - STUNMessage.headerSize == length else {
            throw .make(.trailingData, "\(datagram.count - STUNMessage.headerSize - length) bytes after the message", offset: STUNMessage.headerSize + length)
        }
        let transactionID = header.transactionID

        var attributes: [STUNAttribute] = []
        var integrity: [UInt8]? = nil
        var integrityOffset = 0
        var fingerprint = false
        var count = 0
        var at = base + STUNMessage.headerSize
        while at < datagram.endIndex {
            let offset = at - base
            guard !fingerprint else { throw .make(.invalidValue, "an attribute after FINGERPRINT, which must be last", offset: offset) }
            count += 1
            guard count <= Self.maxAttributes else {
                throw .make(.limitExceeded, "more than \(Self.maxAttributes) attributes", offset: offset)
            }
            // The length is a multiple of 4, so at least 4 bytes remain here: the header always fits.
            let type = STUNAttributeType(rawValue: UInt16(datagram[at]) << 8 | UInt16(datagram[at + 1]))
            let valueLength = Int(datagram[at + 2]) << 8 | Int(datagram[at + 3])
            let valueStart = at + STUNMessage.attributeHeaderSize
            let padded = valueLength + STUNMessage.padding(valueLength)
            guard datagram.endIndex - valueStart >= padded else {
                throw .make(.truncated, "attribute \(type): value of \(valueLength) bytes (\(padded) padded), \(datagram.endIndex - valueStart) left", offset: offset)
            }
            let value = datagram[valueStart..<(valueStart + valueLength)]
            switch type {
            case .fingerprint:
                guard valueLength == 4 else { throw .make(.invalidValue, "FINGERPRINT must be 4 bytes, is \(valueLength)", offset: offset) }
                // Over the message before FINGERPRINT, whose length field already counts it (it is last).
                let expected = crypto.crc32(datagram[base..<at]) ^ STUNMessage.fingerprintXOR
                guard UInt32(bigEndianBytes: value) == expected else {
                    throw .make(.fingerprintMismatch, "FINGERPRINT does not match the message's CRC-32", offset: offset)
                }
                fingerprint = true
            case _ where integrity != nil:
                break  // §14.5: attributes after MESSAGE-INTEGRITY (but FINGERPRINT) are ignored
            case .messageIntegrity:
                guard valueLength == SHA1.digestSize else {
                    throw .make(.invalidValue, "MESSAGE-INTEGRITY must be 20 bytes, is \(valueLength)", offset: offset)
                }
                integrity = Array(value)
                integrityOffset = offset
            default:
                attributes.append(try STUNAttribute.parse(type: type, value: value, transactionID: transactionID, offset: offset + 4))
            }
            at = valueStart + padded
        }
        message = STUNMessage(type: header.type, transactionID: transactionID, attributes: attributes)
        messageIntegrity = integrity
        hasFingerprint = fingerprint
        integrityCovered = integrity == nil ? datagram[base..<base] : datagram[base..<(base + integrityOffset)]
    }

    /// The 20-byte header (RFC 8489 §5): the top two bits zero and the magic cookie, nothing about the length yet.
    /// On its own it lets an agent answer a request whose attributes do not parse.
    struct Header {
        let type: STUNMessageType
        /// The Message Length field: the bytes after the header.
        let length: Int
        let transactionID: STUNTransactionID

        init(parsing datagram: ArraySlice<UInt8>) throws(WebRTCError) {
            let b = datagram.startIndex
            guard datagram.count >= STUNMessage.headerSize else {
                throw .make(.truncated, "STUN header: need 20 bytes, have \(datagram.count)", offset: datagram.count)
            }
            let wire = UInt16(datagram[b]) << 8 | UInt16(datagram[b + 1])
            guard wire & 0xC000 == 0 else {
                throw .make(.invalidValue, "the top two bits of a STUN message are zero; first byte is 0x\(String(datagram[b], radix: 16))", offset: 0)
            }
            guard UInt32(bigEndianBytes: datagram[(b + 4)..<(b + 8)]) == STUNAttribute.magicCookie else {
                throw .make(.notSTUN, "magic cookie is not 0x2112A442 (an RFC 3489 message, or not STUN)", offset: 4)
            }
            type = STUNMessageType(wireValue: wire)
            length = Int(datagram[b + 2]) << 8 | Int(datagram[b + 3])
            transactionID = STUNTransactionID(bytes: datagram[(b + 8)..<(b + 20)])!  // 12 bytes by the slice
        }
    }

    /// Whether MESSAGE-INTEGRITY is present and is the HMAC-SHA1 under `key` of the message before it, with the
    /// length field counting up to the end of MESSAGE-INTEGRITY (RFC 8489 §14.5). Compared in constant time.
    public func hasValidIntegrity(key: [UInt8], crypto: some STUNCrypto = STUNSoftwareCrypto()) -> Bool {
        guard let messageIntegrity else { return false }
        var covered = Array(integrityCovered)
        let length = covered.count - STUNMessage.headerSize + STUNMessage.messageIntegritySize
        covered[2] = UInt8(truncatingIfNeeded: length >> 8)
        covered[3] = UInt8(truncatingIfNeeded: length)
        let expected = crypto.hmacSHA1(key: key, message: covered[...])
        guard expected.count == messageIntegrity.count else { return false }
        return zip(expected, messageIntegrity).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
