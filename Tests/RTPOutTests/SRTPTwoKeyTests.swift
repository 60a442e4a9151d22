import Testing
@testable import RTP
@testable import RTPOut

/// SRTPSession with a key per direction (DTLS-SRTP, RFC 5764 §4.2), against libsrtp's known answers: the outbound
/// key alone decides what `protect` writes, the inbound key alone what `unprotect` accepts.
struct SRTPTwoKeyTests {
    static let otherKey: [UInt8] = (0 ..< 30).map { UInt8($0 &* 7 &+ 3) }

    static func session(outbound: [UInt8], inbound: [UInt8],
                        suite: SRTPConfiguration.Suite = .aesCM128HMACSHA1_80) throws -> SRTPSession {
        try SRTPSession(outbound: SRTPConfiguration(suite: suite, masterKeyAndSalt: outbound),
                        inbound: SRTPConfiguration(suite: suite, masterKeyAndSalt: inbound))
    }

    @Test func outboundKeyProtects() throws {
        let session = try Self.session(outbound: SRTPTests.knownKey, inbound: Self.otherKey)
        #expect(try SRTPTests.protect(SRTPTests.knownRTP, session) == SRTPTests.knownSRTP)
        #expect(try SRTPTests.protect(SRTPTests.knownRTCP, session, rtcp: true) == SRTPTests.knownSRTCP)
        // The inbound side has the other key: the known packet does not authenticate.
        do {
            _ = try SRTPTests.unprotect(SRTPTests.knownSRTP, session)
            Issue.record("the outbound key was used inbound")
        } catch { #expect(error.code == .authenticationFailed) }
    }

    @Test func inboundKeyUnprotects() throws {
        let session = try Self.session(outbound: Self.otherKey, inbound: SRTPTests.knownKey)
        #expect(try SRTPTests.unprotect(SRTPTests.knownSRTP, session) == SRTPTests.knownRTP)
        #expect(try SRTPTests.unprotect(SRTPTests.knownSRTCP, session, rtcp: true) == SRTPTests.knownRTCP)
        #expect(try SRTPTests.protect(SRTPTests.knownRTP, session) != SRTPTests.knownSRTP)
    }

    /// Two peers with mirrored keys talk both ways; one with the keys the wrong way round is refused.
    @Test func mirroredKeysRoundTrip() throws {
        let a = try Self.session(outbound: SRTPTests.knownKey, inbound: Self.otherKey)
        let b = try Self.session(outbound: Self.otherKey, inbound: SRTPTests.knownKey)
        #expect(try SRTPTests.unprotect(SRTPTests.protect(SRTPTests.knownRTP, a), b) == SRTPTests.knownRTP)
        #expect(try SRTPTests.unprotect(SRTPTests.protect(SRTPTests.knownRTP, b), a) == SRTPTests.knownRTP)
        let notMirrored = try Self.session(outbound: SRTPTests.knownKey, inbound: Self.otherKey)
        let fromA = try SRTPTests.protect(SRTPTests.knownRTCP, a, rtcp: true)
        do {
            _ = try SRTPTests.unprotect(fromA, notMirrored, rtcp: true)
            Issue.record("SRTCP under the wrong direction's key was accepted")
        } catch { #expect(error.code == .authenticationFailed) }
    }

    /// The SDES initializer is the two-key one with the same key both ways: same bytes as before.
    @Test func sdesIsTheSameKeyBothWays() throws {
        let sdes = try SRTPSession(configuration: SRTPConfiguration(masterKeyAndSalt: SRTPTests.knownKey))
        let twoKey = try Self.session(outbound: SRTPTests.knownKey, inbound: SRTPTests.knownKey)
        #expect(try SRTPTests.protect(SRTPTests.knownRTP, sdes) == SRTPTests.protect(SRTPTests.knownRTP, twoKey))
        #expect(try SRTPTests.unprotect(SRTPTests.knownSRTP, twoKey) == SRTPTests.knownRTP)
    }

    @Test func suitesMustAgree() throws {
        do {
            _ = try SRTPSession(
                outbound: SRTPConfiguration(suite: .aesCM128HMACSHA1_80, masterKeyAndSalt: SRTPTests.knownKey),
                inbound: SRTPConfiguration(suite: .aesCM128HMACSHA1_32, masterKeyAndSalt: Self.otherKey))
            Issue.record("suites differing by direction were accepted")
        } catch { #expect(error.code == .invalidValue) }
    }
}
