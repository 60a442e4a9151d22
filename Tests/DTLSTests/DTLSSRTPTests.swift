import DTLS
import RTPOut
import Testing

/// The keys a real handshake exported, in SRTP sessions with a key per direction (RFC 5764 §4.2).
struct DTLSSRTPTests {
    static let rtp: [UInt8] = [
        0x80, 0x60, 0x12, 0x34,  // V=2, PT 96, sequence number 0x1234
        0x00, 0x01, 0x5F, 0x90,  // timestamp
        0x11, 0x22, 0x33, 0x44,  // SSRC
    ] + [UInt8](repeating: 0x5C, count: 40)  // payload

    static func session(_ keys: DTLSSRTPKeys, as role: DTLSRole, swapped: Bool = false) throws -> SRTPSession {
        let outbound = try SRTPConfiguration(masterKeyAndSalt: swapped ? keys.inbound(for: role) : keys.outbound(for: role))
        let inbound = try SRTPConfiguration(masterKeyAndSalt: swapped ? keys.outbound(for: role) : keys.inbound(for: role))
        return try SRTPSession(outbound: outbound, inbound: inbound)
    }

    static func protect(_ packet: [UInt8], _ session: SRTPSession) throws -> [UInt8] {
        var buffer = packet + [UInt8](repeating: 0, count: SRTPSession.maxRTPTrailer)
        let length = try buffer.withUnsafeMutableBytes { try session.protect(rtp: $0, length: packet.count) }
        return Array(buffer[0 ..< length])
    }

    static func unprotect(_ packet: [UInt8], _ session: SRTPSession) -> Result<[UInt8], RTPError> {
        var buffer = packet
        return buffer.withUnsafeMutableBytes { bytes in
            do throws(RTPError) {
                return .success(Array(bytes[0 ..< (try session.unprotect(rtp: bytes, length: bytes.count))]))
            } catch { return .failure(error) }
        }
    }

    /// A protects with its outbound key, B unprotects with its inbound key, and back; a packet reflected to its
    /// sender, or keys taken the wrong way round, fail authentication.
    @Test(arguments: DTLSRole.allCases)
    func twoKeyRoundTrip(firstRole: DTLSRole) throws {
        let pair = try DTLSPair(firstRole: firstRole)
        try pair.run(until: DTLSPair.bothConnected)
        let keys = try pair.connections.map { try #require($0).keys }
        let a = try Self.session(keys[0], as: pair.endpoints[0].role)
        let b = try Self.session(keys[1], as: pair.endpoints[1].role)

        let fromA = try Self.protect(Self.rtp, a)
        #expect(fromA.count == Self.rtp.count + 10)
        #expect(fromA[12...] != Self.rtp[12...] + [UInt8](repeating: 0, count: 10))
        #expect(try Self.unprotect(fromA, b).get() == Self.rtp)
        let fromB = try Self.protect(Self.rtp, b)
        #expect(fromB != fromA)  // another key: another keystream for the same SSRC and index
        #expect(try Self.unprotect(fromB, a).get() == Self.rtp)

        // Reflected to its sender: A's inbound key is B's, so A's own packet does not authenticate.
        #expect(throws: RTPError.self) { try Self.unprotect(fromA, a).get() }
        // Keys the wrong way round: B cannot read it.
        let wrong = try Self.session(keys[0], as: pair.endpoints[0].role, swapped: true)
        let wrongPacket = try Self.protect(Self.rtp, wrong)
        switch Self.unprotect(wrongPacket, try Self.session(keys[1], as: pair.endpoints[1].role)) {
        case .success: Issue.record("a packet under the wrong direction's key was accepted")
        case .failure(let error): #expect(error.code == .authenticationFailed)
        }
    }
}
