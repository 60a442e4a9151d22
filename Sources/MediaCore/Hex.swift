/// Hex digits as text formats write them (SDP's profile-level-id, RFC 8122 fingerprints): the one reading and
/// writing of them in the package.
package enum Hex {
    /// The value of one ASCII hex digit of either case; nil for anything else (a sign, a space, a 'g').
    package static func digitValue(_ ascii: UInt8) -> UInt8? {
        switch ascii {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): ascii - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): ascii - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): ascii - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Two digits per byte, `separator` (if any) between bytes.
    package static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool, separator: UInt8? = nil) -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var text: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if index > 0, let separator { text.append(separator) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
