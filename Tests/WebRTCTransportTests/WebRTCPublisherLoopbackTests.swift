import DTLS
import Foundation
import MediaCore
import RTPOut
import Testing
import WebRTC
import WebRTCTransport

/// A `WebRTCPublisher` on 127.0.0.1 and a WHIP server made of rtenc's own pieces on another socket (an ICE-lite
/// agent, a DTLS client — the answer says setup:active, so the publisher is the DTLS server —, libsrtp2): the offer,
/// the controlling agent's checks and nomination, the handshake, media from the first keyframe, REMB lowering the
/// target, PLI asking for an IDR, the BYE at the stop; and the answers it refuses.
@Suite(.serialized) struct WebRTCPublisherLoopbackTests {
    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1F, 0x8C]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    static let serverCredentials = try! ICECredentials(ufrag: "SRVR", pwd: "serverpasswordserverpassword")

    static func publisher(consentTimeout: Duration = .seconds(30), port: UInt16 = 0) throws -> WebRTCPublisher {
        var configuration = WebRTCPublisherConfiguration(
            bind: try SocketAddress(host: "127.0.0.1", port: port), encoding: .h264(profile: .constrainedBaseline, level: .level3_1),
            sequenceParameterSet: sps, pictureParameterSet: pps, bitrateCeiling: 2_000_000)
        configuration.consentTimeout = consentTimeout
        return try WebRTCPublisher(configuration: configuration)
    }

    /// The server's answer: ICE-lite, setup:active, payload type `payloadType` of `codec` with `fmtp`, its one host
    /// candidate.
    static func answer(port: UInt16, fingerprint: DTLSFingerprint, payloadType: Int = 96, setup: String = "active",
                       codec: String = "H264", fmtp: String = "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
        -> String
    {
        [
            "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0", "a=ice-lite",
            "m=video \(port) UDP/TLS/RTP/SAVPF \(payloadType)", "c=IN IP4 127.0.0.1", "a=mid:0", "a=recvonly", "a=rtcp-mux",
            "a=ice-ufrag:\(serverCredentials.ufrag)", "a=ice-pwd:\(serverCredentials.pwd)", "a=fingerprint:\(fingerprint.sdpValue)",
            "a=setup:\(setup)", "a=rtpmap:\(payloadType) \(codec)/90000", "a=fmtp:\(payloadType) \(fmtp)",
            "a=rtcp-fb:\(payloadType) nack", "a=rtcp-fb:\(payloadType) nack pli", "a=rtcp-fb:\(payloadType) goog-remb",
            "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=candidate:1 1 udp 2130706431 127.0.0.1 \(port) typ host", "a=end-of-candidates", "",
        ].joined(separator: "\r\n")
    }

    static func now() -> Instant { Instant(nanoseconds: Int64(Date().timeIntervalSince1970 * 1e9)) }

    /// The fake server's side until DTLS has exported keys (or `timeout`): answers the checks, starts the DTLS client
    /// once a check nominated it, runs the handshake. Returns the SRTP session (as the DTLS client) and the checks seen.
    static func serve(_ socket: UDPSocket, publisher: WebRTCPublisher, lite: inout ICELiteAgent, dtls: DTLSEndpoint, timeout: Duration)
        throws -> (srtp: SRTPSession?, checks: Int, nominated: Bool)
    {
        var checks = 0
        var nominated = false
        let end = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 2048)
        while ContinuousClock.now < end {
            guard let got = try buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }) else {
                usleep(1000)
                dtls.handleTimeout(at: now())
                while let out = dtls.pollTransmit() { _ = try out.withUnsafeBytes { try socket.send($0, to: publisher.localAddress) } }
                continue
            }
            let datagram = Array(buffer[0 ..< got.count])
            switch PacketClass(classifying: datagram) {
            case .stun:
                checks += 1
                let source = try #require(IPAddress(bytes: got.from.addressBytes).map { TransportAddress(ip: $0, port: got.from.port) })
                if let response = lite.handle(stun: datagram[...], from: source, at: now()) {
                    _ = try response.withUnsafeBytes { try socket.send($0, to: got.from) }
                }
                while let event = lite.pollEvent() {
                    if case .selected = event {
                        nominated = true
                        dtls.start(at: now())
                    }
                }
            case .dtls:
                try dtls.handle(datagram: datagram, at: now())
            default:
                break
            }
            while let out = dtls.pollTransmit() { _ = try out.withUnsafeBytes { try socket.send($0, to: publisher.localAddress) } }
            while let event = dtls.pollEvent() {
                if case .failed(let error) = event { Issue.record("DTLS failed: \(error)") }
                if case .connected(let connection) = event {
                    let keys = connection.keys
                    let srtp = try SRTPSession(outbound: SRTPConfiguration(masterKeyAndSalt: keys.outbound(for: .client)),
                                               inbound: SRTPConfiguration(masterKeyAndSalt: keys.inbound(for: .client)))
                    return (srtp, checks, nominated)
                }
            }
        }
        return (nil, checks, nominated)
    }

    /// Connects `publisher` to a fake server answering `codec` with `fmtp` (ICE and DTLS done, SRTP ready): the
    /// server's socket and its SRTP session.
    static func connect(_ publisher: WebRTCPublisher, codec: String = "H264",
                        fmtp: String = "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
        throws -> (server: UDPSocket, srtp: SRTPSession)
    {
        let video = try #require(try WebRTCSDP.Description(parsing: publisher.offer).media.first)
        let server = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let certificate = try DTLSCertificate()
        var lite = ICELiteAgent(configuration: .init(local: Self.serverCredentials, remoteUfrag: video.iceUfrag), startedAt: Self.now())
        let dtls = try DTLSEndpoint(role: .client, certificate: certificate, remoteFingerprint: publisher.certificate.fingerprint)
        try publisher.connect(answer: Self.answer(port: server.localAddress.port, fingerprint: certificate.fingerprint,
                                                  codec: codec, fmtp: fmtp))
        let keys = try #require(try Self.serve(server, publisher: publisher, lite: &lite, dtls: dtls, timeout: .seconds(10)).srtp)
        usleep(100_000)  // our last flight reaches the publisher and it exports too
        return (server, keys)
    }

    static func receive(_ socket: UDPSocket, timeout: Duration) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            if let got = try buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }) { out.append(Array(buffer[0 ..< got.count])) } else { usleep(2000) }
        }
        return out
    }

    static func accessUnit(keyframe: Bool, at seconds: Double) -> CodedAccessUnit {
        let bytes = [UInt8(keyframe ? 0x65 : 0x41)] + [UInt8](repeating: 0xAB, count: 2999)
        return CodedAccessUnit(codec: .h264, bytes: bytes, framing: .annexB, nalUnits: [.init(type: keyframe ? 5 : 1, range: 0 ..< 3000)],
                               isKeyframe: keyframe, presentationTime: MediaTime(seconds: seconds))
    }

    @Test(.timeLimit(.minutes(1))) func publishFromOfferToBye() throws {
        let publisher = try Self.publisher()
        defer { publisher.stop() }
        let offer = try WebRTCSDP.Description(parsing: publisher.offer)
        let video = try #require(offer.media.first)
        #expect(video.direction == .sendonly)
        #expect(video.setup == .actpass)
        #expect(video.candidates.map { "\($0.address):\($0.port)" } == ["127.0.0.1:\(publisher.localAddress.port)"])
        #expect(!offer.iceLite, "full ICE")
        #expect(video.codecs.first?.parameters["profile-level-id"] == "42e01f")

        let server = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let certificate = try DTLSCertificate()
        let publisherFingerprint = try DTLSFingerprint(sha256: #require(video.fingerprints.first).bytes)
        #expect(publisherFingerprint == publisher.certificate.fingerprint)
        var lite = ICELiteAgent(configuration: .init(local: Self.serverCredentials, remoteUfrag: video.iceUfrag), startedAt: Self.now())
        let dtls = try DTLSEndpoint(role: .client, certificate: certificate, remoteFingerprint: publisherFingerprint)
        try publisher.connect(answer: Self.answer(port: server.localAddress.port, fingerprint: certificate.fingerprint))
        #expect(throws: WebRTCTransportError.self) { try publisher.connect(answer: Self.answer(port: 1, fingerprint: certificate.fingerprint)) }

        let (srtp, checks, nominated) = try Self.serve(server, publisher: publisher, lite: &lite, dtls: dtls, timeout: .seconds(10))
        #expect(checks >= 2, "a check, then the nominating one")
        #expect(nominated, "USE-CANDIDATE")
        let keys = try #require(srtp, "DTLS finished, the publisher as the server")
        usleep(100_000)  // our last flight reaches the publisher and it exports too
        #expect(publisher.isConnected)
        #expect(publisher.takeKeyframeRequest(), "the server's first picture is an IDR")
        #expect(publisher.takeKeyframeRequest() == false)

        // A delta frame is not sent before the first keyframe; then the IDR with SPS/PPS, and more.
        publisher.send(Self.accessUnit(keyframe: false, at: 0))
        for n in 1 ... 8 { publisher.send(Self.accessUnit(keyframe: true, at: Double(n) / 30)) }
        let media = try Self.receive(server, timeout: .milliseconds(500)).filter { PacketClass(classifying: $0) == .rtp }
        #expect(media.count >= 4 * 8)
        var ssrc: UInt32?
        var firstNAL: UInt8?
        for var packet in media {
            let length = try packet.withUnsafeMutableBytes { try keys.unprotect(rtp: $0, length: $0.count) }
            let parsed = try RTPPacket(parsing: packet[..<length])
            #expect(parsed.header.payloadType == 96)
            ssrc = parsed.header.ssrc
            firstNAL = firstNAL ?? (parsed.payload.first.map { $0 & 0x1F })
        }
        #expect(firstNAL == 24, "STAP-A with SPS and PPS first")
        #expect(video.ssrcAttributes.first?.ssrc == ssrc, "the offered SSRC")

        // REMB far under what it sends: congestion, the target falls (to the floor here); PLI: an IDR wanted.
        #expect(publisher.encoderTarget == 2_000_000)
        for packet in [RTCPPacket.receiverEstimatedMaximumBitrate(.init(senderSSRC: 7, bitrate: 100_000, ssrcs: [try #require(ssrc)])),
                       .pictureLossIndication(.init(senderSSRC: 7, mediaSSRC: try #require(ssrc)))] {
            var bytes = try packet.marshal() + [UInt8](repeating: 0, count: SRTPSession.maxRTCPTrailer)
            let length = try bytes.withUnsafeMutableBytes { try keys.protectRTCP($0, length: $0.count - SRTPSession.maxRTCPTrailer) }
            _ = try bytes[..<length].withUnsafeBytes { try server.send($0, to: publisher.localAddress) }
        }
        usleep(200_000)
        #expect(publisher.encoderTarget == 150_000, "0.85 × 100 kb/s is under the 150 kb/s floor")
        #expect(publisher.statistics()?.peerLimit == 100_000)
        #expect(publisher.takeKeyframeRequest(), "PLI")

        // The stop: an SRTCP BYE.
        publisher.stop()
        #expect(try rtcpTypes(Self.receive(server, timeout: .milliseconds(300)), srtp: keys).contains(203))
        #expect(publisher.endReason == "stopped")
        let log = publisher.takeLog()
        #expect(log.contains { $0.hasPrefix("ICE selected 127.0.0.1:\(server.localAddress.port)") }, "\(log)")
        #expect(log.contains { $0.contains("DTLS server") }, "\(log)")
    }

    /// A server that stops answering consent checks: publishing ends with the reason.
    @Test(.timeLimit(.minutes(1))) func lostConsentEndsPublishing() throws {
        let publisher = try Self.publisher(consentTimeout: .milliseconds(1500))
        defer { publisher.stop() }
        _ = try Self.connect(publisher)
        let deadline = ContinuousClock.now + .seconds(4)
        while publisher.endReason == nil, ContinuousClock.now < deadline { usleep(20_000) }
        #expect(publisher.endReason?.contains("consent lost") == true, "\(publisher.endReason ?? "nil")")
    }

    @Test func refusedAnswers() throws {
        let certificate = try DTLSCertificate()
        // Not our codec as offered is `.codecRefused` (the CLI then names the other --codec); the rest `.badAnswer`.
        let cases: [(String, WebRTCTransportError.Code, String)] = [
            ("not sdp", .badAnswer, "SDP line"),
            (Self.answer(port: 9, fingerprint: certificate.fingerprint, payloadType: 100), .codecRefused, "payload type 96"),
            (Self.answer(port: 9, fingerprint: certificate.fingerprint, setup: "actpass"), .badAnswer, "a=setup:actpass"),
            (Self.answer(port: 9, fingerprint: certificate.fingerprint).replacingOccurrences(of: "a=fingerprint:", with: "a=x-fingerprint:"),
             .badAnswer, "fingerprint"),
        ]
        for (answer, code, reason) in cases {
            let publisher = try Self.publisher()
            defer { publisher.stop() }
            #expect {
                try publisher.connect(answer: answer)
            } throws: { error in
                guard let error = error as? WebRTCTransportError else { return false }
                return error.code == code && error.reason.contains(reason)
            }
            #expect(publisher.isConnected == false)
        }
    }
}
