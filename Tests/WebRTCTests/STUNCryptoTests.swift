import Testing
@testable import WebRTC

/// SHA-1 against RFC 3174 §7.3's test vectors, HMAC-SHA1 against RFC 2202 §3, CRC-32 against its check value.
@Suite struct STUNCryptoTests {
    static let sha1Cases: [(message: [UInt8], digest: String, why: String)] = [
        ([], "da39a3ee5e6b4b0d3255bfef95601890afd80709", "empty (FIPS 180-4 example)"),
        (Array("abc".utf8), "a9993e364706816aba3e25717850c26c9cd0d89d", "RFC 3174 TEST1"),
        (Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
         "84983e441c3bd26ebaae4aa1f95129e5e54670f1", "RFC 3174 TEST2: 56 bytes, the padding spills into a second block"),
        ([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000), "34aa973cd4c4daa4f61eeb2bdbad27316534016f", "RFC 3174 TEST3"),
        (Array(String(repeating: "01234567", count: 80).utf8), "dea356a2cddd90c7a7ecedc5ebb563934f460452", "RFC 3174 TEST4: 640 bytes"),
        ([UInt8](repeating: 0x61, count: 55), "c1c8bbdc22796e28c0e15163d20899b65621d65a", "55 bytes: the length fits in the same block"),
        ([UInt8](repeating: 0x61, count: 64), "0098ba824b5c16427bd7a1122a5a442a25ec644d", "exactly one block"),
    ]

    @Test(arguments: sha1Cases)
    func sha1(_ c: (message: [UInt8], digest: String, why: String)) {
        #expect(hexString(SHA1.hash(c.message)) == c.digest, "\(c.why)")
    }

    static let hmacCases: [(key: [UInt8], data: [UInt8], mac: String)] = [
        ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8), "b617318655057264e28bc0b6fb378c8ef146be00"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8), "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50), "125d7342b9ac11cd91a39af48aa17b4f63f175d3"),
        (Array(1...25), [UInt8](repeating: 0xcd, count: 50), "4c9007f4026250c6bc8414f9bf50c86c2d7235da"),
        ([UInt8](repeating: 0x0c, count: 20), Array("Test With Truncation".utf8), "4c1a03424b55e07fe7f27be1d58bb9324a9a5a04"),
        ([UInt8](repeating: 0xaa, count: 80), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "aa4ae5e15272d00e95705637ce8a3b55ed402112"),
        ([UInt8](repeating: 0xaa, count: 80),
         Array("Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data".utf8),
         "e8e99d0f45237d786d6bbaa7965c7808bbff1a91"),
    ]

    @Test(arguments: hmacCases)
    func hmacSHA1(_ c: (key: [UInt8], data: [UInt8], mac: String)) {
        #expect(hexString(HMACSHA1.authenticationCode(key: c.key, message: c.data)) == c.mac)
        #expect(hexString(STUNSoftwareCrypto().hmacSHA1(key: c.key, message: c.data[...])) == c.mac, "through the seam")
    }

    @Test func crc32() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926, "the CRC-32/ISO-HDLC check value")
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }
}
