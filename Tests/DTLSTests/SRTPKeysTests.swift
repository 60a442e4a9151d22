import DTLS
import Testing

/// RFC 5764 §4.2's layout of the exported keying material, and which half each direction uses.
struct SRTPKeysTests {
    /// 60 bytes numbered 0…59, so each field shows where it came from.
    static let material: [UInt8] = Array(0 ..< 60)

    @Test func materialIsSplitAsRFC5764Says() throws {
        let keys = try DTLSSRTPKeys(profile: .aes128CMHMACSHA1_80, keyingMaterial: Self.material)
        #expect(keys.clientMasterKey == Array(0 ..< 16))    // client_write_SRTP_master_key
        #expect(keys.serverMasterKey == Array(16 ..< 32))   // server_write_SRTP_master_key
        #expect(keys.clientMasterSalt == Array(32 ..< 46))  // client_write_SRTP_master_salt
        #expect(keys.serverMasterSalt == Array(46 ..< 60))  // server_write_SRTP_master_salt
        // The client sends with the client's key and salt and receives with the server's; the server the other way.
        #expect(keys.outbound(for: .client) == Array(0 ..< 16) + Array(32 ..< 46))
        #expect(keys.inbound(for: .client) == Array(16 ..< 32) + Array(46 ..< 60))
        #expect(keys.outbound(for: .server) == keys.inbound(for: .client))
        #expect(keys.inbound(for: .server) == keys.outbound(for: .client))
    }

    /// AEAD_AES_128_GCM has 12-byte salts (RFC 7714 §12): 56 bytes in all.
    @Test func gcmLengths() throws {
        let keys = try DTLSSRTPKeys(profile: .aeadAES128GCM, keyingMaterial: Array(0 ..< 56))
        #expect(keys.serverMasterKey == Array(16 ..< 32))
        #expect(keys.clientMasterSalt == Array(32 ..< 44))
        #expect(keys.serverMasterSalt == Array(44 ..< 56))
        #expect(DTLSSRTPProfile.aeadAES256GCM.keyAndSaltLengths! == (32, 12))
    }

    @Test func wrongLengthsAndUnknownProfilesAreRefused() {
        for length in [0, 59, 61] {
            do {
                _ = try DTLSSRTPKeys(profile: .aes128CMHMACSHA1_80, keyingMaterial: Array(repeating: 1, count: length))
                Issue.record("took \(length) bytes")
            } catch { #expect(error.code == .invalidArgument) }
        }
        do {
            _ = try DTLSSRTPKeys(profile: DTLSSRTPProfile(rawValue: 0x0099), keyingMaterial: Self.material)
            Issue.record("took an unknown profile")
        } catch { #expect(error.code == .unsupported) }
        #expect("\(DTLSSRTPProfile(rawValue: 0x0099))" == "SRTP profile 0x99")
        #expect("\(DTLSSRTPProfile.aes128CMHMACSHA1_80)" == "SRTP_AES128_CM_HMAC_SHA1_80")
    }

    @Test func keysAreNotPrinted() throws {
        let keys = try DTLSSRTPKeys(profile: .aes128CMHMACSHA1_80, keyingMaterial: Self.material)
        #expect("\(keys)" == "DTLS-SRTP keys SRTP_AES128_CM_HMAC_SHA1_80 (not shown)")
        #expect(String(reflecting: keys) == "\(keys)")
        var dumped = ""
        dump(keys, to: &dumped)
        #expect(!dumped.contains("clientMasterKey"))
    }

    /// RFC 5763 §5: `a=setup:active` opens the handshake (client), `passive` waits (server); the rest name no role.
    @Test(arguments: [("active", DTLSRole?.some(.client)), ("passive", .server), ("ACTIVE", .client),
                      ("actpass", nil), ("holdconn", nil), ("", nil)])
    func roleFromSetup(setup: String, role: DTLSRole?) {
        #expect(DTLSRole(localSetup: setup) == role)
        if let role { #expect(DTLSRole(localSetup: role.setupAttribute) == role) }
    }
}
