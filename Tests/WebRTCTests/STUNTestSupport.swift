import MediaCore
import TestSupport
import Testing
import WebRTC

/// Bytes from hex text; spaces and newlines ignored.
func hex(_ text: String) -> [UInt8] { ForeignParameterSets.bytes(text.filter { !$0.isWhitespace }) }

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

/// A STUN message with raw attributes (type, value), padded with zeros; the length field is computed unless given.
func rawSTUN(type: UInt16 = 0x0001, cookie: UInt32 = 0x2112_A442, transactionID: [UInt8] = Array(1...12),
             attributes: [(UInt16, [UInt8])], length: Int? = nil) -> [UInt8] {
    var body: [UInt8] = []
    for (attributeType, value) in attributes {
        body += [UInt8(attributeType >> 8), UInt8(attributeType & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)]
        body += value + [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
    }
    let n = length ?? body.count
    return [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF),
            UInt8(cookie >> 24), UInt8(cookie >> 16 & 0xFF), UInt8(cookie >> 8 & 0xFF), UInt8(cookie & 0xFF)]
        + transactionID + body
}

extension Instant {
    static func ms(_ milliseconds: Int64) -> Instant { Instant(nanoseconds: milliseconds * 1_000_000) }
}

/// `#require` for a value a mutating call returns (the macro cannot capture `inout` state).
func required<T>(_ value: T?, sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
    try #require(value, sourceLocation: sourceLocation)
}

func address(_ text: String) -> TransportAddress { TransportAddress(text)! }
