/// A STUN method (RFC 8489 §5: 12 bits; IANA "STUN Methods"). ICE uses only Binding.
public struct STUNMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue & 0x0FFF }

    /// Binding (0x001): connectivity checks, consent and keepalives.
    public static let binding = STUNMethod(rawValue: 0x001)

    public var description: String { self == .binding ? "Binding" : "method 0x\(String(rawValue, radix: 16))" }
}

/// The class of a STUN message (RFC 8489 §5: the C1 C0 bits).
public enum STUNClass: UInt8, Sendable, Hashable {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11
}

/// Method and class, packed in the 14-bit message type as RFC 8489 §5 interleaves them:
///
///      0                 1
///      2  3  4 5 6 7 8 9 0 1 2 3 4 5
///     +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
///     |M |M |M|M|M|C|M|M|M|C|M|M|M|M|
///     |11|10|9|8|7|1|6|5|4|0|3|2|1|0|
///     +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
public struct STUNMessageType: Sendable, Hashable, CustomStringConvertible {
    public var method: STUNMethod
    public var messageClass: STUNClass

    public init(method: STUNMethod, messageClass: STUNClass) {
        self.method = method
        self.messageClass = messageClass
    }

    public static let bindingRequest = STUNMessageType(method: .binding, messageClass: .request)
    public static let bindingIndication = STUNMessageType(method: .binding, messageClass: .indication)
    public static let bindingSuccess = STUNMessageType(method: .binding, messageClass: .successResponse)
    public static let bindingError = STUNMessageType(method: .binding, messageClass: .errorResponse)

    /// From the 14 low bits of the header's first 16 (the top two are zero in a STUN message).
    public init(wireValue: UInt16) {
        let m = wireValue & 0x000F | (wireValue >> 1) & 0x0070 | (wireValue >> 2) & 0x0F80
        let c = UInt8(truncatingIfNeeded: (wireValue >> 4) & 0x1 | (wireValue >> 7) & 0x2)
        method = STUNMethod(rawValue: m)
        messageClass = STUNClass(rawValue: c)!  // two bits: every value is a case
    }

    public var wireValue: UInt16 {
        let m = method.rawValue
        let c = UInt16(messageClass.rawValue)
        return m & 0x000F | (m & 0x0070) << 1 | (m & 0x0F80) << 2 | (c & 0x1) << 4 | (c & 0x2) << 7
    }

    public var description: String { "\(method) \(messageClass)" }
}

/// The 96-bit transaction ID (RFC 8489 §5), which pairs a response with its request. Chosen uniformly at random
/// (RFC 8489 §6: "cryptographically random"); the generator is handed in.
public struct STUNTransactionID: Sendable, Hashable, CustomStringConvertible {
    /// 12 bytes.
    public let bytes: [UInt8]

    /// From exactly 12 bytes; nil otherwise.
    public init?<Bytes: Collection<UInt8>>(bytes: Bytes) {
        guard bytes.count == 12 else { return nil }
        self.bytes = Array(bytes)
    }

    public init(using random: inout some RandomNumberGenerator) {
        let a = random.next() as UInt64
        let b = random.next() as UInt32
        bytes = (0..<8).map { UInt8(truncatingIfNeeded: a >> (56 - 8 * $0)) }
            + (0..<4).map { UInt8(truncatingIfNeeded: b >> (24 - 8 * $0)) }
    }

    public var description: String { bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined() }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
