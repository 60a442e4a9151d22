/// CRC-32 as ISO/IEC 13239 / ITU-T V.42 define it (reflected polynomial 0xEDB88320, initial value and final XOR
/// 0xFFFFFFFF — zlib's `crc32`), which STUN's FINGERPRINT uses (RFC 8489 §14.7).
package enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    package static func checksum<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
