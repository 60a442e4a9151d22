import Testing
@testable import RTP
@testable import RTPOut

/// Keys: their text forms, the SDP a=crypto attribute (RFC 4568), and that the key never shows where it should not.
struct SRTPConfigurationTests {
    static let key = SRTPTests.knownKey
    /// base64 of `key`: 30 bytes → 40 characters, no padding.
    static let keyText = "4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm"

    @Test func base64OfTheKey() throws {
        let configuration = try SRTPConfiguration(masterKeyAndSalt: Self.key)
        #expect(configuration.keyParameter == "inline:" + Self.keyText)
        #expect(try SRTPConfiguration(base64: Self.keyText[...]) == configuration)
        #expect(configuration.cryptoAttribute() == "1 AES_CM_128_HMAC_SHA1_80 inline:" + Self.keyText)
    }

    @Test func keyNeverInDescriptions() throws {
        let configuration = try SRTPConfiguration(suite: .aesCM128HMACSHA1_32, masterKeyAndSalt: Self.key)
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in ["\(configuration)", String(describing: configuration), String(reflecting: configuration), dumped] {
            #expect(!text.contains(Self.keyText) && !text.contains("225"), "\(text)")  // 225 = 0xE1, the first key byte
            #expect(text.contains("AES_CM_128_HMAC_SHA1_32"))
        }
    }

    @Test func randomKeysAreFreshAndWhole() throws {
        let keys = try (0 ..< 8).map { _ in try SRTPConfiguration.random().masterKeyAndSalt }
        #expect(keys.allSatisfy { $0.count == 30 })
        #expect(Set(keys.map { $0.map(String.init).joined(separator: ",") }).count == 8)
    }

    @Test(arguments: [
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(keyText)", SRTPConfiguration.Suite.aesCM128HMACSHA1_80, UInt32(1)),
        ("7 AES_CM_128_HMAC_SHA1_32 inline:\(keyText)|2^31", .aesCM128HMACSHA1_32, 7),
        ("123456789\tAES_CM_128_HMAC_SHA1_80  inline:\(keyText)|1048576", .aesCM128HMACSHA1_80, 123_456_789),
    ])
    func cryptoAttributesRead(text: String, suite: SRTPConfiguration.Suite, tag: UInt32) throws {
        let (readTag, configuration) = try SRTPConfiguration.parse(cryptoAttribute: text[...])
        #expect(readTag == tag && configuration.suite == suite && configuration.masterKeyAndSalt == Self.key)
    }

    @Test(arguments: [
        ("1 AES_CM_128_HMAC_SHA1_80", RTPError.Code.invalidSDP),  // no key parameters
        ("x AES_CM_128_HMAC_SHA1_80 inline:\(keyText)", .invalidSDP),  // tag not digits
        ("1234567890 AES_CM_128_HMAC_SHA1_80 inline:\(keyText)", .invalidSDP),  // tag of 10 digits
        ("1 AES_256_CM_HMAC_SHA1_80 inline:\(keyText)", .unsupported),  // a suite we do not offer
        ("1 F8_128_HMAC_SHA1_80 inline:\(keyText)", .unsupported),
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(keyText)|2^20|1:4", .unsupported),  // MKI
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(keyText)|1:4", .unsupported),  // MKI without lifetime
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(keyText);inline:\(keyText)", .unsupported),  // two keys
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(keyText) UNENCRYPTED_SRTP", .unsupported),  // session parameter
        ("1 AES_CM_128_HMAC_SHA1_80 uri:https://example.com/key", .unsupported),
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(keyText)|2^x", .invalidSDP),  // lifetime not digits
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(keyText.dropLast(4))", .invalidValue),  // 27 bytes
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(keyText.dropLast())!", .invalidValue),  // not base64
        ("1 AES_CM_128_HMAC_SHA1_80 inline:" + String(repeating: "A", count: 2000), .limitExceeded),
    ])
    func badCryptoAttributesAreTypedErrors(text: String, code: RTPError.Code) {
        do {
            _ = try SRTPConfiguration.parse(cryptoAttribute: text[...])
            Issue.record("parsed: \(text)")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(!error.reason.contains(Self.keyText.prefix(8)), "the key is quoted: \(error.reason)")
        }
    }

    /// Drip-feed: every strict prefix of a valid attribute fails; only the whole one reads.
    @Test func dripFeedCryptoAttribute() {
        let text = Array("1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.keyText)".utf8)
        dripFeed(text) { bytes throws(RTPError) in
            try SRTPConfiguration.parse(cryptoAttribute: Substring(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func sdpCarriesTheKeyAndReadsBack() throws {
        let configuration = try SRTPConfiguration(suite: .aesCM128HMACSHA1_32, masterKeyAndSalt: Self.key)
        let description = SessionDescription(connectionAddress: "127.0.0.1", port: 5004, sequenceParameterSet: [0x67, 0x42, 0xC0, 0x1F],
                                             pictureParameterSet: [0x68, 0xCE], srtp: configuration)
        let lines = description.text.split(separator: "\r\n")
        #expect(lines.contains("m=video 5004 RTP/SAVP 96"))
        #expect(lines.contains("a=crypto:1 AES_CM_128_HMAC_SHA1_32 inline:\(Self.keyText)"))
        let read = try ReceivedSessionDescription(parsing: description.text)
        #expect(read.srtp == configuration)
        let plain = SessionDescription(connectionAddress: "127.0.0.1", port: 5004, sequenceParameterSet: [0x67, 0x42, 0xC0, 0x1F],
                                       pictureParameterSet: [0x68, 0xCE])
        #expect(plain.text.contains("RTP/AVP 96") && !plain.text.contains("crypto"))
        #expect(try ReceivedSessionDescription(parsing: plain.text).srtp == nil)
    }

    /// An offer lists suites in preference order: the first one we have is taken; with none we have, it is an error.
    @Test func sdpWithSeveralCryptoLines() throws {
        let head = "v=0\r\nc=IN IP4 127.0.0.1\r\nm=video 5004 RTP/SAVP 96\r\na=rtpmap:96 H264/90000\r\n"
        let offer = head + "a=crypto:1 AES_256_CM_HMAC_SHA1_80 inline:xyz\r\na=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:\(Self.keyText)\r\n"
        #expect(try ReceivedSessionDescription(parsing: offer).srtp?.suite == .aesCM128HMACSHA1_32)
        do {
            _ = try ReceivedSessionDescription(parsing: head + "a=crypto:1 AES_256_CM_HMAC_SHA1_80 inline:xyz\r\n")
            Issue.record("an SDP with no usable crypto suite was read as plain RTP")
        } catch { #expect(error.code == .unsupported) }
    }
}
