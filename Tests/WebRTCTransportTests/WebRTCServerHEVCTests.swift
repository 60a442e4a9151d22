import DTLS
import Foundation
import MediaCore
import RTPOut
import Testing
import WebRTC
import WebRTCTransport

/// `WebRTCServer` serving HEVC (RFC 7798) to a player made of rtenc's own pieces (as `WebRTCServerLoopbackTests`):
/// the answer takes the offer's H265/90000 payload type, the viewer's session packetizes with the RFC 7798 payloader,
/// its first picture is an IRAP with VPS, SPS and PPS in an aggregation packet in front, and a PLI asks for another.
@Suite(.serialized) struct WebRTCServerHEVCTests {
    /// Parameter sets by their 2-byte NAL unit headers (F=0, nuh_layer_id 0, nuh_temporal_id_plus1 1): VPS (type 32),
    /// SPS (33), PPS (34); the payloader reads only the headers.
    static let vps: [UInt8] = [0x40, 0x01, 0x0C, 0x01, 0xFF, 0xFF]
    static let sps: [UInt8] = [0x42, 0x01, 0x01, 0x01, 0x60, 0x00]
    static let pps: [UInt8] = [0x44, 0x01, 0xC1, 0x72]

    /// The recorded Chromium 156 WHEP offer with a Main, level 3.1 H265/90000 payload type (49) in front of its H.264
    /// ones, and the player's own fingerprint.
    static func offer(fingerprint: DTLSFingerprint) throws -> String {
        let h265 = "a=rtpmap:49 H265/90000\r\na=rtcp-fb:49 nack\r\na=rtcp-fb:49 nack pli\r\na=rtcp-fb:49 ccm fir\r\n"
            + "a=rtcp-fb:49 goog-remb\r\na=fmtp:49 level-id=93;profile-id=1;tier-flag=0;tx-mode=SRST\r\n"
        return try WebRTCServerLoopbackTests.offer(fingerprint: fingerprint)
            .replacingOccurrences(of: "RTP/SAVPF 102 104", with: "RTP/SAVPF 49 102 104")
            .replacingOccurrences(of: "a=rtpmap:102 H264", with: "\(h265)a=rtpmap:102 H264")
    }

    /// An HEVC access unit of one picture: IDR_W_RADL (type 19) or TRAIL_R (type 1), 3000 bytes (three FUs at 1200).
    static func accessUnit(keyframe: Bool, at seconds: Double) -> CodedAccessUnit {
        let bytes = [UInt8(keyframe ? 19 << 1 : 1 << 1), 0x01] + [UInt8](repeating: 0xAB, count: 2998)
        return CodedAccessUnit(codec: .hevc, bytes: bytes, framing: .annexB,
                               nalUnits: [.init(type: keyframe ? 19 : 1, range: 0 ..< 3000)], isKeyframe: keyframe,
                               presentationTime: MediaTime(seconds: seconds))
    }

    @Test(.timeLimit(.minutes(1))) func aViewerGetsAnIRAPWithItsParameterSetsAndAPLIBringsAnother() throws {
        let server = try WebRTCServer(configuration: .init(
            bind: SocketAddress(host: "127.0.0.1", port: 0),
            encoding: .hevc(.init(profileID: 1, tierFlag: 0, levelID: 90)),
            sequenceParameterSet: Self.sps, pictureParameterSet: Self.pps, videoParameterSet: Self.vps, bitrateCeiling: 2_000_000))
        defer { server.stop() }
        let playerCertificate = try DTLSCertificate()
        let (answerText, _) = try server.createSession(offer: Self.offer(fingerprint: playerCertificate.fingerprint))
        let video = try #require(try WebRTCSDP.Description(parsing: answerText).media.first)
        #expect(video.formats == ["49"])
        #expect(answerText.contains("a=rtpmap:49 H265/90000\r\na=fmtp:49 level-id=90;profile-id=1;tier-flag=0;tx-mode=SRST\r\n"),
                "our level, the offer's profile, tier and tx-mode: \(answerText)")
        let ssrc = try #require(video.ssrcAttributes.first?.ssrc)
        let ufrag = try #require(video.iceUfrag), pwd = try #require(video.icePwd)

        let player = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        try WebRTCServerLoopbackTests.send(
            player, WebRTCServerLoopbackTests.check(ufrag: ufrag, remoteUfrag: "3Pux", pwd: pwd, useCandidate: true),
            to: server.localAddress)
        let pending = try WebRTCServerLoopbackTests.receive(player, timeout: .milliseconds(300))
        let srtp = try WebRTCServerLoopbackTests.handshake(player, pending: pending, certificate: playerCertificate, server: server)
        usleep(100_000)
        #expect(server.takeKeyframeRequest(), "a new viewer asks for an IRAP")

        server.send(Self.accessUnit(keyframe: false, at: 0))
        server.send(Self.accessUnit(keyframe: true, at: 0.033))
        server.send(Self.accessUnit(keyframe: false, at: 0.066))
        var types: [UInt8] = []
        var apUnits: [UInt8] = []
        var fuTypes: [UInt8] = []
        for var packet in try WebRTCServerLoopbackTests.receive(player, timeout: .milliseconds(400))
        where PacketClass(classifying: packet) == .rtp {
            let length = try packet.withUnsafeMutableBytes { try srtp.unprotect(rtp: $0, length: $0.count) }
            let parsed = try RTPPacket(parsing: packet[..<length])
            #expect(parsed.header.payloadType == 49)
            let payload = Array(parsed.payload)
            let type = (payload[0] >> 1) & 0x3F  // RFC 7798 §1.1.4: the payload header is a NAL unit header
            types.append(type)
            if type == 48 {  // AP (§4.4.2): 16-bit size, then the unit, for each
                var offset = 2
                while offset + 2 < payload.count {
                    let size = Int(payload[offset]) << 8 | Int(payload[offset + 1])
                    apUnits.append((payload[offset + 2] >> 1) & 0x3F)
                    offset += 2 + size
                }
            } else if type == 49 {
                fuTypes.append(payload[2] & 0x3F)  // FU header (§4.4.3): S, E, FuType
            }
        }
        #expect(types.first == 48, "the IRAP starts with an aggregation packet, not the delta frame before it: \(types)")
        #expect(apUnits == [32, 33, 34], "VPS, SPS, PPS in front of the IRAP: \(apUnits)")
        #expect(Array(fuTypes.prefix(3)) == [19, 19, 19], "then the IDR_W_RADL in three FUs: \(fuTypes)")
        #expect(fuTypes.dropFirst(3).allSatisfy { $0 == 1 } && fuTypes.count == 6, "and the TRAIL_R after it: \(fuTypes)")
        #expect(server.takeKeyframeRequest() == false)

        // A PLI (RFC 4585 §6.3.1, reduced size as rtcp-rsize allows): V=2, FMT=1, PT=206 (PSFB), length 2, sender
        // SSRC, media SSRC — the server's, from the answer's a=ssrc.
        var pli: [UInt8] = [0x81, 206, 0x00, 0x02, 0x00, 0x00, 0x3B, 0x9A] + withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        pli += [UInt8](repeating: 0, count: SRTPSession.maxRTCPTrailer)  // room for the SRTCP index and tag
        let length = try pli.withUnsafeMutableBytes { try srtp.protectRTCP($0, length: 12) }
        usleep(350_000)  // past the session's 300 ms between keyframe requests
        try WebRTCServerLoopbackTests.send(player, Array(pli[..<length]), to: server.localAddress)
        let deadline = ContinuousClock.now + .seconds(2)
        var requested = false
        while !requested, ContinuousClock.now < deadline {
            requested = server.takeKeyframeRequest()
            if !requested { usleep(10_000) }
        }
        #expect(requested, "PLI → the next frame is encoded as an IRAP")
        #expect(server.statistics().first?.keyframeRequests == 1)
    }
}
