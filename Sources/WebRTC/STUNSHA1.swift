/// SHA-1 (RFC 3174, FIPS 180-4 §6.1) and HMAC-SHA1 (RFC 2104), in plain Swift: all STUN's MESSAGE-INTEGRITY needs
/// (RFC 8489 §14.5). A STUN message is at most a few hundred bytes and ICE sends a few a second, so speed does not
/// matter here; an edge that has OpenSSL can hand its own in through `STUNCrypto`.
///
/// SHA-1 is broken for collision resistance, not as the PRF inside HMAC, which is all STUN uses it for.
package enum SHA1 {
    package static let digestSize = 20
    static let blockSize = 64

    /// The 20-byte digest of `message`.
    package static func hash<Bytes: Collection<UInt8>>(_ message: Bytes) -> [UInt8] {
        var state = State()
        state.update(message)
        return state.finish()
    }

    struct State {
        private var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
        private var block: [UInt8] = []
        private var length: UInt64 = 0

        mutating func update<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
            block.reserveCapacity(SHA1.blockSize)
            for byte in bytes {
                block.append(byte)
                if block.count == SHA1.blockSize {
                    compress()
                    block.removeAll(keepingCapacity: true)
                }
            }
            // Wrapping: a message of 2^61 bytes is far outside any use here; RFC 3174 counts bits modulo 2^64.
            length &+= UInt64(bytes.count)
        }

        /// Pads (a 1 bit, zeros, the length in bits as 64 bits big-endian: RFC 3174 §4) and returns the digest.
        mutating func finish() -> [UInt8] {
            let bitLength = length &* 8
            block.append(0x80)
            if block.count > SHA1.blockSize - 8 {
                block.append(contentsOf: repeatElement(0, count: SHA1.blockSize - block.count))
                compress()
                block.removeAll(keepingCapacity: true)
            }
            block.append(contentsOf: repeatElement(0, count: SHA1.blockSize - 8 - block.count))
            for shift in stride(from: 56, through: 0, by: -8) { block.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
            compress()
            var digest: [UInt8] = []
            digest.reserveCapacity(SHA1.digestSize)
            for word in [h.0, h.1, h.2, h.3, h.4] {
                for shift in stride(from: 24, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
            }
            return digest
        }

        /// One 512-bit block (RFC 3174 §6.1, method 1). The 80-word schedule lives on the stack: no allocation per
        /// block.
        private mutating func compress() {
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { w in
                for t in 0..<16 {
                    w[t] = UInt32(block[4 * t]) << 24 | UInt32(block[4 * t + 1]) << 16 | UInt32(block[4 * t + 2]) << 8
                        | UInt32(block[4 * t + 3])
                }
                for t in 16..<80 { w[t] = (w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]).rotatedLeft(by: 1) }
                var (a, b, c, d, e) = h
                for t in 0..<80 {
                    let (f, k): (UInt32, UInt32) =
                        switch t {
                        case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                        case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                        case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                        default: (b ^ c ^ d, 0xCA62_C1D6)
                        }
                    // All additions are modulo 2^32 (RFC 3174 §3).
                    let temp = a.rotatedLeft(by: 5) &+ f &+ e &+ w[t] &+ k
                    e = d
                    d = c
                    c = b.rotatedLeft(by: 30)
                    b = a
                    a = temp
                }
                h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
            }
        }
    }
}

/// HMAC-SHA1 (RFC 2104 §2): H(K ⊕ opad ‖ H(K ⊕ ipad ‖ text)), a key longer than the 64-byte block hashed first.
package enum HMACSHA1 {
    package static func authenticationCode<Key: Collection<UInt8>, Message: Collection<UInt8>>(
        key: Key, message: Message
    ) -> [UInt8] {
        var block = key.count > SHA1.blockSize ? SHA1.hash(key) : Array(key)
        block.append(contentsOf: repeatElement(0, count: SHA1.blockSize - block.count))
        var inner = SHA1.State()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA1.State()
        outer.update(block.map { $0 ^ 0x5C })
        outer.update(inner.finish())
        return outer.finish()
    }
}

extension UInt32 {
    fileprivate func rotatedLeft(by n: UInt32) -> UInt32 { self << n | self >> (32 - n) }
}
