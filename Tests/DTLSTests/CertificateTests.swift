import DTLS
import Testing

/// The certificate rtenc generates, and the SDP fingerprint text it is announced with (RFC 8122 §5).
struct CertificateTests {
    @Test func generatedCertificateIsWhatWebRTCPeersExpect() throws {
        let certificate = try DTLSCertificate(commonName: "rtenc", validityDays: 30)
        let summary = certificate.summary
        #expect(summary.version == 3)
        #expect(summary.signatureAlgorithm == "ecdsa-with-SHA256")
        #expect(summary.curve == "prime256v1")
        #expect(summary.isSelfSigned)
        #expect(summary.serialLength == 16)
        #expect(!summary.serialIsNegative)
        // Valid from an hour ago for 30 days.
        #expect(summary.notAfter - summary.notBefore == 30 * 86_400 + 3_600)
    }

    @Test func everyCertificateIsNew() throws {
        let first = try DTLSCertificate(), second = try DTLSCertificate()
        #expect(first.fingerprint != second.fingerprint)
        #expect(first.fingerprint.digest.count == 32)
    }

    @Test func fingerprintIsWrittenAsSDPWants() throws {
        let certificate = try DTLSCertificate()
        let text = certificate.fingerprint.sdpValue
        // "sha-256 " then 32 upper-case hex pairs joined by colons: 8 + 32 × 3 − 1 characters.
        #expect(text.hasPrefix("sha-256 "))
        #expect(text.count == 8 + 32 * 3 - 1)
        let pairs = text.dropFirst(8).split(separator: ":")
        #expect(pairs.count == 32)
        #expect(pairs.allSatisfy { $0.count == 2 && $0.allSatisfy { "0123456789ABCDEF".contains($0) } })
        #expect(try DTLSFingerprint(sdpValue: text) == certificate.fingerprint)
        #expect("\(certificate)".contains(text))
    }

    @Test func fingerprintKnownAnswer() throws {
        let digest: [UInt8] = [
            0x00, 0x01, 0x0A, 0x10, 0x7F, 0x80, 0xAB, 0xFF, 0xDE, 0xAD, 0xBE, 0xEF, 0x12, 0x34, 0x56, 0x78,
            0x9A, 0xBC, 0xDE, 0xF0, 0x0F, 0xF0, 0x55, 0xAA, 0xC3, 0x3C, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
        ]
        let fingerprint = try DTLSFingerprint(sha256: digest)
        #expect(fingerprint.sdpValue == "sha-256 00:01:0A:10:7F:80:AB:FF:DE:AD:BE:EF:12:34:56:78:9A:BC:DE:F0:0F:F0:55:AA:C3:3C:01:02:03:04:05:06")
        // Case-insensitive on input (RFC 8122 §5 hash names and hex digits).
        #expect(try DTLSFingerprint(sdpValue: fingerprint.sdpValue.lowercased()) == fingerprint)
        #expect(try DTLSFingerprint(sdpValue: "SHA-256" + fingerprint.sdpValue.dropFirst(7)) == fingerprint)
    }

    static let valid = "sha-256 00:01:0A:10:7F:80:AB:FF:DE:AD:BE:EF:12:34:56:78:9A:BC:DE:F0:0F:F0:55:AA:C3:3C:01:02:03:04:05:06"

    /// What the parser must refuse, and with which code.
    @Test(arguments: [
        ("", "invalidFingerprint"),
        ("sha-256", "invalidFingerprint"),
        ("sha-256 ", "invalidFingerprint"),
        (" " + valid, "invalidFingerprint"),
        (valid + " ", "invalidFingerprint"),
        (valid + ":07", "invalidFingerprint"),  // 33 bytes
        (valid + ":", "invalidFingerprint"),
        ("sha-256  " + valid.dropFirst(8), "invalidFingerprint"),  // two spaces
        ("sha-256 0:01" + valid.dropFirst(13), "invalidFingerprint"),  // one digit
        ("sha-256 +F" + valid.dropFirst(10), "invalidFingerprint"),  // a sign is not a hex digit
        ("sha-256 GG" + valid.dropFirst(10), "invalidFingerprint"),
        ("sha-256 00-01" + valid.dropFirst(13), "invalidFingerprint"),
        ("sha-1 00:01:0A:10:7F:80:AB:FF:DE:AD:BE:EF:12:34:56:78:9A:BC:DE:F0", "unsupported"),
        ("md5 00:01", "unsupported"),
    ])
    func refusedFingerprints(text: String, code: String) {
        #expect(throws: DTLSError.self) { try DTLSFingerprint(sdpValue: text) }
        do { _ = try DTLSFingerprint(sdpValue: text) } catch { #expect(error.code.name == code, "\(text): \(error)") }
    }

    /// Drip-feed: every strict prefix of a valid value fails cleanly; only the whole parses.
    @Test func everyPrefixIsRefused() throws {
        let text = Self.valid
        for length in 0 ..< text.count {
            #expect(throws: DTLSError.self, "prefix of \(length)") { try DTLSFingerprint(sdpValue: String(text.prefix(length))) }
        }
        #expect(try DTLSFingerprint(sdpValue: text).digest.count == 32)
    }

    @Test func badCertificateRequestsAreRefused() {
        for (name, days) in [("", 30), ("rtenc", 0), ("rtenc", 4000), ("a\u{0}b", 30)] {
            do {
                _ = try DTLSCertificate(commonName: name, validityDays: days)
                Issue.record("accepted \(name) \(days)")
            } catch { #expect(error.code == .invalidArgument) }
        }
        #expect(throws: DTLSError.self) { try DTLSFingerprint(sha256: [1, 2, 3]) }
    }
}
