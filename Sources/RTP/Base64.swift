/// RFC 4648 §4 base64, for sprop-parameter-sets (RFC 6184 §8.1). Small enough to keep RTPOut free of Foundation.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let a = iterator.next() {
            let b = iterator.next()
            let c = iterator.next()
            let group = UInt32(a) << 16 | UInt32(b ?? 0) << 8 | UInt32(c ?? 0)
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            out.append(b == nil ? UInt8(ascii: "=") : alphabet[Int(group >> 6 & 63)])
            out.append(c == nil ? UInt8(ascii: "=") : alphabet[Int(group & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Strict: only the alphabet, padding only at the end, length a multiple of 4.
    static func decode(_ text: Substring) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < chars.count {
            var group: UInt32 = 0
            var padding = 0
            for k in 0 ..< 4 {
                let ch = chars[i + k]
                let value: UInt32
                if ch == UInt8(ascii: "=") {
                    guard i + 4 == chars.count, k >= 2 else { return nil }
                    padding += 1
                    value = 0
                } else {
                    guard padding == 0, let index = alphabet.firstIndex(of: ch) else { return nil }
                    value = UInt32(index)
                }
                group = group << 6 | value
            }
            out.append(UInt8(group >> 16 & 0xFF))
            if padding < 2 { out.append(UInt8(group >> 8 & 0xFF)) }
            if padding < 1 { out.append(UInt8(group & 0xFF)) }
            i += 4
        }
        return out
    }
}
