import DTLS
import Foundation
import MediaCore
import RTPOut
import Testing
import WebRTC
import WebRTCTransport

/// `WebRTCPublisher` publishing HEVC (RFC 7798) to the fake WHIP server of `WebRTCPublisherLoopbackTests`: the offer's
/// one payload type is H265/90000 with the stream's profile-id, tier-flag and level-id; the server's first picture is
/// an IRAP with VPS, SPS and PPS in an aggregation packet in front, and a PLI or FIR asks for another. An answer that
/// does not take our H.265 (a lower level, H.264) is `.codecRefused`.
extension WebRTCPublisherLoopbackTests {
    static let hevcEncoding = WebRTCSDP.VideoEncoding.hevc(.init(profileID: 1, tierFlag: 0, levelID: 90))
    static let hevcFmtp = "profile-id=1;tier-flag=0;level-id=90"

    static func hevcPublisher() throws -> WebRTCPublisher {
        try WebRTCPublisher(configuration: .init(
            bind: SocketAddress(host: "127.0.0.1", port: 0), encoding: hevcEncoding,
            sequenceParameterSet: WebRTCServerHEVCTests.sps, pictureParameterSet: WebRTCServerHEVCTests.pps,
            videoParameterSet: WebRTCServerHEVCTests.vps, bitrateCeiling: 2_000_000))
    }

    /// RFC 7798 §4.4: the payload header's Type (its first byte, bits 1–6); the units an AP (48) aggregates; an FU's
    /// (49) FuType.
    static func hevcPayloadTypes(_ payload: [UInt8]) -> (type: UInt8, inner: [UInt8]) {
        let type = (payload[0] >> 1) & 0x3F
        if type == 49, payload.count > 2 { return (type, [payload[2] & 0x3F]) }
        guard type == 48 else { return (type, []) }
        var units: [UInt8] = []
        var offset = 2
        while offset + 2 < payload.count {
            let size = Int(payload[offset]) << 8 | Int(payload[offset + 1])
            units.append((payload[offset + 2] >> 1) & 0x3F)
            offset += 2 + size
        }
        return (type, units)
    }

    @Test(.timeLimit(.minutes(1))) func publishesHEVCWithItsParameterSetsInFrontOfEachIRAP() throws {
        let publisher = try Self.hevcPublisher()
        defer { publisher.stop() }
        let video = try #require(try WebRTCSDP.Description(parsing: publisher.offer).media.first)
        #expect(video.formats == ["96", "97"], "one video payload type, the encoder's codec, and its RTX")
        #expect(publisher.offer.contains("a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n"), "\(publisher.offer)")
        #expect(publisher.offer.contains("a=rtpmap:96 H265/90000\r\na=fmtp:96 profile-id=1;tier-flag=0;level-id=90\r\n"),
                "\(publisher.offer)")
        #expect(!publisher.offer.contains("H264"))

        // A higher level than ours, in libwebrtc's key order and with its tx-mode.
        let (server, keys) = try Self.connect(publisher, codec: "H265", fmtp: "level-id=93;profile-id=1;tier-flag=0;tx-mode=SRST")
        #expect(publisher.isConnected)
        #expect(publisher.takeKeyframeRequest(), "the server's first picture is an IRAP")

        func sent() throws -> [(type: UInt8, inner: [UInt8], ssrc: UInt32)] {
            try Self.receive(server, timeout: .milliseconds(400)).filter { PacketClass(classifying: $0) == .rtp }.map { datagram in
                var packet = datagram
                let length = try packet.withUnsafeMutableBytes { try keys.unprotect(rtp: $0, length: $0.count) }
                let parsed = try RTPPacket(parsing: packet[..<length])
                #expect(parsed.header.payloadType == 96)
                let (type, inner) = Self.hevcPayloadTypes(Array(parsed.payload))
                return (type, inner, parsed.header.ssrc)
            }
        }
        // A TRAIL_R before the first IRAP is not sent; the IRAP gets VPS/SPS/PPS in an AP, then its FUs.
        publisher.send(WebRTCServerHEVCTests.accessUnit(keyframe: false, at: 0))
        publisher.send(WebRTCServerHEVCTests.accessUnit(keyframe: true, at: 0.033))
        publisher.send(WebRTCServerHEVCTests.accessUnit(keyframe: false, at: 0.066))
        let first = try sent()
        #expect(first.first?.type == 48 && first.first?.inner == [32, 33, 34], "AP with VPS, SPS, PPS first: \(first)")
        #expect(first.dropFirst().prefix(3).allSatisfy { $0.type == 49 && $0.inner == [19] }, "the IDR_W_RADL in FUs: \(first)")
        #expect(first.count == 1 + 3 + 3, "the AP, the IRAP's three FUs, the TRAIL_R's three: \(first.map(\.type))")
        let ssrc = try #require(first.first?.ssrc)

        // PLI, then FIR (after the session's 300 ms throttle): each asks for an IRAP, which carries the sets again.
        let requests: [RTCPPacket] = [.pictureLossIndication(.init(senderSSRC: 7, mediaSSRC: ssrc)),
                                      .fullIntraRequest(.init(senderSSRC: 7, entries: [.init(ssrc: ssrc, sequenceNumber: 1)]))]
        for (index, request) in requests.enumerated() {
            if index > 0 { usleep(350_000) }
            var bytes = try request.marshal() + [UInt8](repeating: 0, count: SRTPSession.maxRTCPTrailer)
            let length = try bytes.withUnsafeMutableBytes { try keys.protectRTCP($0, length: $0.count - SRTPSession.maxRTCPTrailer) }
            _ = try bytes[..<length].withUnsafeBytes { try server.send($0, to: publisher.localAddress) }
            usleep(150_000)
            #expect(publisher.takeKeyframeRequest(), "\(request)")
            publisher.send(WebRTCServerHEVCTests.accessUnit(keyframe: true, at: 0.1 + Double(index) / 30))
            let again = try sent()
            #expect(again.first?.type == 48 && again.first?.inner == [32, 33, 34], "\(again)")
        }
    }

    /// RFC 7798 §7.2.2: an answer whose level-id is under our stream's, or that takes H.264, cannot be served by the
    /// running encoder: `.codecRefused`, with what it answered.
    @Test func refusesAnAnswerThatDoesNotTakeOurHEVC() throws {
        let certificate = try DTLSCertificate()
        let cases: [(codec: String, fmtp: String, says: String)] = [
            ("H265", "profile-id=1;tier-flag=0;level-id=60", "above the highest level the answer receives"),
            ("H265", "profile-id=3;tier-flag=0;level-id=90", "the answer has no H.265 payload type for profile-id 1"),
            ("H264", "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f", "does not accept our H265 payload type 96"),
        ]
        for c in cases {
            let publisher = try Self.hevcPublisher()
            defer { publisher.stop() }
            #expect {
                try publisher.connect(answer: Self.answer(port: 9, fingerprint: certificate.fingerprint, codec: c.codec, fmtp: c.fmtp))
            } throws: { error in
                guard let error = error as? WebRTCTransportError else { return false }
                return error.code == .codecRefused && error.reason.contains(c.says)
            }
            #expect(publisher.isConnected == false && publisher.statistics() == nil)
        }
    }
}
