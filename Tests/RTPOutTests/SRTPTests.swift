import Testing
@testable import RTP
@testable import RTPOut

/// SRTPSession against known answers, and what it must refuse: forged, corrupted, replayed and misaddressed packets.
struct SRTPTests {
    /// The known-answer vectors libsrtp checks itself against (its test/srtp_driver.c, "srtp_validate"):
    /// AES_CM_128_HMAC_SHA1_80 with this master key || salt, SSRC 0xcafebabe.
    static let knownKey: [UInt8] = [
        0xE1, 0xF9, 0x7A, 0x0D, 0x3E, 0x01, 0x8B, 0xE0, 0xD6, 0x4F, 0xA3, 0x2C, 0x06, 0xDE, 0x41, 0x39,  // master key
        0x0E, 0xC6, 0x75, 0xAD, 0x49, 0x8A, 0xFE, 0xEB, 0xB6, 0x96, 0x0B, 0x3A, 0xAB, 0xE6,  // master salt
    ]
    static let knownRTP: [UInt8] = [
        0x80, 0x0F, 0x12, 0x34,  // V=2, PT 15, sequence number 0x1234
        0xDE, 0xCA, 0xFB, 0xAD,  // timestamp
        0xCA, 0xFE, 0xBA, 0xBE,  // SSRC
    ] + [UInt8](repeating: 0xAB, count: 16)  // payload
    static let knownSRTP: [UInt8] = [
        0x80, 0x0F, 0x12, 0x34, 0xDE, 0xCA, 0xFB, 0xAD, 0xCA, 0xFE, 0xBA, 0xBE,  // header, in the clear
        0x4E, 0x55, 0xDC, 0x4C, 0xE7, 0x99, 0x78, 0xD8, 0x8C, 0xA4, 0xD2, 0x15, 0x94, 0x9D, 0x24, 0x02,  // encrypted payload
        0xB7, 0x8D, 0x6A, 0xCC, 0x99, 0xEA, 0x17, 0x9B, 0x8D, 0xBB,  // 80-bit authentication tag
    ]
    static let knownRTCP: [UInt8] = [
        0x81, 0xC8, 0x00, 0x0B,  // V=2, RC 1, PT 200 (SR), length 11
        0xCA, 0xFE, 0xBA, 0xBE,  // SSRC
    ] + [UInt8](repeating: 0xAB, count: 16)
    static let knownSRTCP: [UInt8] = [
        0x81, 0xC8, 0x00, 0x0B, 0xCA, 0xFE, 0xBA, 0xBE,  // header and SSRC, in the clear
        0x71, 0x28, 0x03, 0x5B, 0xE4, 0x87, 0xB9, 0xBD, 0xBE, 0xF8, 0x90, 0x41, 0xF9, 0x77, 0xA5, 0xA8,  // encrypted
        0x80, 0x00, 0x00, 0x01,  // E = 1, SRTCP index 1
        0x99, 0x3E, 0x08, 0xCD, 0x54, 0xD6, 0xC1, 0x23, 0x07, 0x98,  // 80-bit authentication tag
    ]

    static func session(_ suite: SRTPConfiguration.Suite = .aesCM128HMACSHA1_80, key: [UInt8] = knownKey) throws -> SRTPSession {
        try SRTPSession(configuration: SRTPConfiguration(suite: suite, masterKeyAndSalt: key))
    }

    /// `packet` in a buffer with room for the trailer; returns the protected bytes.
    static func protect(_ packet: [UInt8], _ session: SRTPSession, rtcp: Bool = false) throws -> [UInt8] {
        var buffer = packet + [UInt8](repeating: 0, count: SRTPSession.maxRTCPTrailer)
        let length = try buffer.withUnsafeMutableBytes { bytes throws(RTPError) in
            rtcp ? try session.protectRTCP(bytes, length: packet.count) : try session.protect(rtp: bytes, length: packet.count)
        }
        return Array(buffer[0 ..< length])
    }

    static func unprotect(_ packet: [UInt8], _ session: SRTPSession, rtcp: Bool = false) throws(RTPError) -> [UInt8] {
        var buffer = packet
        let result: Result<Int, RTPError> = buffer.withUnsafeMutableBytes { bytes in
            do throws(RTPError) {
                return .success(rtcp ? try session.unprotectRTCP(bytes, length: bytes.count) : try session.unprotect(rtp: bytes, length: bytes.count))
            } catch { return .failure(error) }
        }
        return Array(buffer[0 ..< (try result.get())])
    }

    @Test func knownAnswerRTP() throws {
        let sender = try Self.session(), receiver = try Self.session()
        #expect(try Self.protect(Self.knownRTP, sender) == Self.knownSRTP)
        #expect(try Self.unprotect(Self.knownSRTP, receiver) == Self.knownRTP)
    }

    @Test func knownAnswerRTCP() throws {
        let sender = try Self.session(), receiver = try Self.session()
        #expect(try Self.protect(Self.knownRTCP, sender, rtcp: true) == Self.knownSRTCP)
        #expect(try Self.unprotect(Self.knownSRTCP, receiver, rtcp: true) == Self.knownRTCP)
    }

    /// _32 shortens the SRTP tag to 4 bytes but keeps SRTCP's 80-bit tag (RFC 4568 §6.2.2); the cipher is the same,
    /// so the encrypted payload equals the _80 one.
    @Test(arguments: SRTPConfiguration.Suite.allCases)
    func tagLengths(suite: SRTPConfiguration.Suite) throws {
        let sender = try Self.session(suite), receiver = try Self.session(suite)
        let srtp = try Self.protect(Self.knownRTP, sender)
        #expect(srtp.count == Self.knownRTP.count + suite.rtpTagLength)
        #expect(srtp.count - Self.knownRTP.count == (suite == .aesCM128HMACSHA1_80 ? 10 : 4))
        #expect(srtp[0 ..< 28] == Self.knownSRTP[0 ..< 28])
        #expect(try Self.unprotect(srtp, receiver) == Self.knownRTP)
        let srtcp = try Self.protect(Self.knownRTCP, sender, rtcp: true)
        #expect(srtcp.count == Self.knownRTCP.count + suite.rtcpTrailerLength)
        #expect(try Self.unprotect(srtcp, receiver, rtcp: true) == Self.knownRTCP)
    }

    /// Any single flipped bit — header, payload or tag — fails authentication; nothing decrypted comes out.
    @Test(arguments: [0, 3, 11, 12, 20, 27, 28, 37])
    func flippedBitIsRejected(byte: Int) throws {
        for rtcp in [false, true] {
            var packet = rtcp ? Self.knownSRTCP : Self.knownSRTP
            packet[byte] ^= 0x01
            let receiver = try Self.session()
            #expect(throws: RTPError.self) { _ = try Self.unprotect(packet, receiver, rtcp: rtcp) }
            do { _ = try Self.unprotect(packet, receiver, rtcp: rtcp) } catch {
                #expect(error.code == .authenticationFailed, "byte \(byte), RTCP \(rtcp): \(error)")
            }
            // The genuine packet still goes through afterwards: a forgery does not poison the replay window.
            #expect(try Self.unprotect(rtcp ? Self.knownSRTCP : Self.knownSRTP, receiver, rtcp: rtcp) == (rtcp ? Self.knownRTCP : Self.knownRTP))
        }
    }

    @Test func anotherKeyFailsAuthentication() throws {
        var key = Self.knownKey
        key[0] ^= 0x80
        let receiver = try Self.session(key: key)
        #expect(throws: RTPError.self) { _ = try Self.unprotect(Self.knownSRTP, receiver) }
        do { _ = try Self.unprotect(Self.knownSRTP, receiver) } catch { #expect(error.code == .authenticationFailed) }
    }

    @Test func replayIsRejected() throws {
        let receiver = try Self.session()
        _ = try Self.unprotect(Self.knownSRTP, receiver)
        do {
            _ = try Self.unprotect(Self.knownSRTP, receiver)
            Issue.record("replayed packet accepted")
        } catch { #expect(error.code == .replayed) }
    }

    /// A plain NACK retransmission protects the same index again: libsrtp allows it on our outbound side
    /// (allow_repeat_tx) and gives the very same bytes, which a receiver that lost the first copy accepts.
    @Test func retransmissionOfALostPacketIsTheSameBytesAndAccepted() throws {
        let sender = try Self.session(), receiver = try Self.session()
        var packets: [[UInt8]] = []
        for sequenceNumber: UInt16 in 0x1234 ..< 0x1238 {
            var rtp = Self.knownRTP
            rtp[2] = UInt8(sequenceNumber >> 8)
            rtp[3] = UInt8(sequenceNumber & 0xFF)
            packets.append(try Self.protect(rtp, sender))
        }
        #expect(packets[0] == Self.knownSRTP)
        for i in [0, 2, 3] { _ = try Self.unprotect(packets[i], receiver) }  // packet 1 was lost
        var lost = Self.knownRTP
        lost[3] = 0x35
        let again = try Self.protect(lost, sender)
        #expect(again == packets[1])
        #expect(try Self.unprotect(again, receiver) == lost)
    }

    @Test func noRoomForTheTagIsAnError() throws {
        let sender = try Self.session()
        var buffer = Self.knownRTP + [UInt8](repeating: 0, count: 10)  // room for this tag, not for libsrtp's contract
        let result: Result<Int, RTPError> = buffer.withUnsafeMutableBytes { bytes in
            do throws(RTPError) { return .success(try sender.protect(rtp: bytes, length: Self.knownRTP.count)) } catch { return .failure(error) }
        }
        guard case .failure(let error) = result else { Issue.record("protected without room"); return }
        #expect(error.code == .outputTooSmall)
        #expect(buffer.prefix(Self.knownRTP.count).elementsEqual(Self.knownRTP))  // untouched
    }

    @Test func truncatedSRTPIsRefusedNotRead() throws {
        let receiver = try Self.session()
        for length in 0 ..< Self.knownSRTP.count {
            #expect(throws: RTPError.self) { _ = try Self.unprotect(Array(Self.knownSRTP[0 ..< length]), receiver) }
            #expect(throws: RTPError.self) { _ = try Self.unprotect(Array(Self.knownSRTCP[0 ..< min(length, Self.knownSRTCP.count - 1)]), receiver, rtcp: true) }
        }
    }
}
