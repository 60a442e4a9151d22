import CongestionControl
import DTLS
import Foundation
import MediaCore
import RTPOut
import Testing
import WebRTC
import WebRTCTransport

/// A `WebRTCServer` viewer that negotiated RTX (RFC 4588) from Chromium 156's default offer (rtx for every codec,
/// transport-cc), played by rtenc's own pieces on 127.0.0.1 as in `WebRTCServerLoopbackTests`: a NACK is answered on
/// the RTX stream (its SSRC from `a=ssrc-group:FID`, its payload type 109, the original sequence number in front of
/// the original payload), the viewer's GCC sends its start-up probe as padding-only packets on RTX, and transport-cc
/// feedback on those packets is matched to what was sent.
@Suite(.serialized) struct WebRTCServerRetransmissionTests {
    static let offerFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../WebRTCTests/Fixtures/chromium-156-recvonly-default.sdp").standardized

    static func offer(fingerprint: DTLSFingerprint) throws -> String {
        let text = try String(contentsOf: offerFile, encoding: .utf8)
        return text.split(separator: "\r\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("a=fingerprint:") ? "a=fingerprint:\(fingerprint.sdpValue)" : String(line)
        }.joined(separator: "\r\n")
    }

    /// The decrypted RTP packets among `datagrams`.
    static func rtp(_ datagrams: [[UInt8]], srtp: SRTPSession) throws -> [RTPPacket] {
        try datagrams.filter { PacketClass(classifying: $0) == .rtp }.map { datagram in
            var packet = datagram
            let length = try packet.withUnsafeMutableBytes { try srtp.unprotect(rtp: $0, length: $0.count) }
            return try RTPPacket(parsing: Array(packet[..<length])[...])
        }
    }

    /// The player's DTLS handshake (as `WebRTCServerLoopbackTests.handshake`), keeping the RTP that arrives meanwhile:
    /// the start-up probe leaves as soon as the server's side is connected, before the player's has finished.
    static func handshake(_ player: UDPSocket, pending: [[UInt8]], certificate: DTLSCertificate, server: WebRTCServer)
        throws -> (srtp: SRTPSession, early: [[UInt8]])
    {
        var pending = pending
        var early: [[UInt8]] = []
        let dtls = try DTLSEndpoint(role: .server, certificate: certificate, remoteFingerprint: server.certificate.fingerprint)
        var keys: DTLSSRTPKeys?
        let deadline = ContinuousClock.now + .seconds(10)
        while keys == nil, ContinuousClock.now < deadline {
            let now = Instant(nanoseconds: Int64(Date().timeIntervalSince1970 * 1e9))
            for datagram in pending where PacketClass(classifying: datagram) == .dtls { try dtls.handle(datagram: datagram, at: now) }
            early += pending.filter { PacketClass(classifying: $0) == .rtp }
            while let out = dtls.pollTransmit() { try WebRTCServerLoopbackTests.send(player, out, to: server.localAddress) }
            while let event = dtls.pollEvent() {
                if case .connected(let connection) = event { keys = connection.keys }
            }
            pending = try WebRTCServerLoopbackTests.receive(player, timeout: .milliseconds(50))
        }
        early += pending.filter { PacketClass(classifying: $0) == .rtp }
        let exported = try #require(keys, "the handshake finished")
        let srtp = try SRTPSession(outbound: SRTPConfiguration(masterKeyAndSalt: exported.outbound(for: .server)),
                                   inbound: SRTPConfiguration(masterKeyAndSalt: exported.inbound(for: .server)))
        return (srtp, early)
    }

    static func sendRTCP(_ packet: RTCPPacket, from player: UDPSocket, srtp: SRTPSession, to server: WebRTCServer) throws {
        var bytes = try packet.marshal()
        let length = bytes.count
        bytes += [UInt8](repeating: 0, count: SRTPSession.maxRTCPTrailer)
        let protected = try bytes.withUnsafeMutableBytes { try srtp.protectRTCP($0, length: length) }
        try WebRTCServerLoopbackTests.send(player, Array(bytes[..<protected]), to: server.localAddress)
    }

    @Test(.timeLimit(.minutes(1))) func nacksGoOutOnRTXAndProbesAsRTXPadding() throws {
        var configuration = try WebRTCServerConfiguration(
            bind: SocketAddress(host: "127.0.0.1", port: 0), encoding: .h264(profile: .constrainedBaseline, level: .level3_1),
            sequenceParameterSet: [0x67, 0x42, 0xC0, 0x1F, 0x8C], pictureParameterSet: [0x68, 0xCE, 0x3C, 0x80],
            bitrateCeiling: 2_000_000)
        configuration.congestionController = CongestionControllers.named("gcc")
        let server = try WebRTCServer(configuration: configuration)
        defer { server.stop() }
        let playerCertificate = try DTLSCertificate()
        let (answerText, _) = try server.createSession(offer: Self.offer(fingerprint: playerCertificate.fingerprint))
        let video = try #require(try WebRTCSDP.Description(parsing: answerText).media.first)
        #expect(video.formats == ["108", "109"])
        #expect(video.codec(payloadType: 109)?.associatedPayloadType == 108)
        let group = try #require(video.otherAttributes.first { $0.name == "ssrc-group" }?.value, "\(answerText)")
        let ssrcs = group.split(separator: " ").dropFirst().compactMap { UInt32($0) }
        #expect(group.hasPrefix("FID ") && ssrcs.count == 2 && ssrcs[0] != ssrcs[1], "\(group)")
        let (mediaSSRC, rtxSSRC) = (ssrcs[0], ssrcs[1])
        let transportCCID = try #require(video.extmapID(WebRTCSDP.Extmap.transportWideCCURI))

        let player = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        try WebRTCServerLoopbackTests.send(player, WebRTCServerLoopbackTests.check(
            ufrag: try #require(video.iceUfrag), remoteUfrag: "b0DA", pwd: try #require(video.icePwd), useCandidate: true),
            to: server.localAddress)
        let pending = try WebRTCServerLoopbackTests.receive(player, timeout: .milliseconds(300))
        let (srtp, early) = try Self.handshake(player, pending: pending, certificate: playerCertificate, server: server)
        server.send(WebRTCServerLoopbackTests.accessUnit(keyframe: true, at: 0.033))
        var received = try Self.rtp(early + WebRTCServerLoopbackTests.receive(player, timeout: .milliseconds(400)), srtp: srtp)

        let media = received.filter { $0.header.ssrc == mediaSSRC }
        #expect(media.count >= 4 && media.allSatisfy { $0.header.payloadType == 108 })
        // GCC's start-up probe (3 × the 2 Mb/s start, capped at the ceiling): padding-only packets on RTX.
        let probes = received.filter { $0.header.ssrc == rtxSSRC }
        #expect(probes.count >= 5, "a probe cluster's minimum: \(probes.count) RTX packets")
        #expect(probes.allSatisfy { $0.header.payloadType == 109 && $0.payload.isEmpty && $0.paddingSize == 255 })
        var stats = try #require(server.statistics().first)
        #expect(stats.rtxSSRC == rtxSSRC && stats.probeClustersSent >= 1 && stats.paddingPacketsSent == probes.count)
        #expect(stats.probesNotSent == 0)

        // transport-cc feedback on everything received (media and probes): the server matches all of it.
        let numbers = received.compactMap { packet in
            packet.header.extension?.element(id: UInt8(transportCCID)).map { UInt16($0[$0.startIndex]) << 8 | UInt16($0[$0.startIndex + 1]) }
        }
        #expect(numbers.count == received.count, "every packet carries its transport-wide number")
        let base = try #require(numbers.min()), last = try #require(numbers.max())
        let statuses = (base ... last).map { numbers.contains($0) ? TransportCCFeedback.PacketStatus.receivedSmallDelta(4) : .notReceived }
        try Self.sendRTCP(.transportCC(TransportCCFeedback(senderSSRC: 1, mediaSSRC: mediaSSRC, baseSequenceNumber: base, referenceTime: 1,
                                                           feedbackPacketCount: 0, statuses: statuses)),
                          from: player, srtp: srtp, to: server)

        // A NACK for the second media packet: it comes back on RTX, OSN first (RFC 4588 §4).
        let lost = media[1]
        try Self.sendRTCP(.genericNACK(GenericNACK(senderSSRC: 1, mediaSSRC: mediaSSRC, pairs: [.init(packetID: lost.header.sequenceNumber, lostBitmask: 0)])),
                          from: player, srtp: srtp, to: server)
        received = try Self.rtp(WebRTCServerLoopbackTests.receive(player, timeout: .milliseconds(300)), srtp: srtp)
        let retransmitted = try #require(received.first { $0.header.ssrc == rtxSSRC && !$0.payload.isEmpty }, "an RTX packet")
        #expect(retransmitted.header.payloadType == 109)
        #expect(Array(retransmitted.payload.prefix(2)) == [UInt8(lost.header.sequenceNumber >> 8), UInt8(lost.header.sequenceNumber & 0xFF)])
        #expect(Array(retransmitted.payload.dropFirst(2)) == Array(lost.payload))
        #expect(retransmitted.header.timestamp == lost.header.timestamp)
        #expect(!received.contains { $0.header.ssrc == mediaSSRC && $0.header.sequenceNumber == lost.header.sequenceNumber },
                "not re-sent on the media SSRC")
        stats = try #require(server.statistics().first)
        #expect(stats.retransmissionsSent == 1)
        #expect(stats.feedbackPacketsReceived == numbers.count, "the feedback matched every packet it named, probes included")
    }

    /// Chromium's H.264-only offer (the player page's codec preferences left rtx out): no RTX, NACKs are answered on
    /// the media SSRC as before, and the controller's probes are counted as not sent.
    @Test(.timeLimit(.minutes(1))) func withoutRTXTheProbesAreCounted() throws {
        var configuration = try WebRTCServerConfiguration(
            bind: SocketAddress(host: "127.0.0.1", port: 0), encoding: .h264(profile: .constrainedBaseline, level: .level3_1),
            sequenceParameterSet: [0x67, 0x42, 0xC0, 0x1F, 0x8C], pictureParameterSet: [0x68, 0xCE, 0x3C, 0x80],
            bitrateCeiling: 2_000_000)
        configuration.congestionController = CongestionControllers.named("gcc")
        let server = try WebRTCServer(configuration: configuration)
        defer { server.stop() }
        let playerCertificate = try DTLSCertificate()
        let (answerText, _) = try server.createSession(offer: WebRTCServerLoopbackTests.offer(fingerprint: playerCertificate.fingerprint))
        let video = try #require(try WebRTCSDP.Description(parsing: answerText).media.first)
        #expect(video.formats == ["108"] && !answerText.contains("ssrc-group"))
        let player = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        try WebRTCServerLoopbackTests.send(player, WebRTCServerLoopbackTests.check(
            ufrag: try #require(video.iceUfrag), remoteUfrag: "3Pux", pwd: try #require(video.icePwd), useCandidate: true),
            to: server.localAddress)
        let pending = try WebRTCServerLoopbackTests.receive(player, timeout: .milliseconds(300))
        let srtp = try WebRTCServerLoopbackTests.handshake(player, pending: pending, certificate: playerCertificate, server: server)
        server.send(WebRTCServerLoopbackTests.accessUnit(keyframe: true, at: 0.033))
        let received = try Self.rtp(WebRTCServerLoopbackTests.receive(player, timeout: .milliseconds(300)), srtp: srtp)
        #expect(Set(received.map(\.header.ssrc)).count == 1, "one stream: no RTX")
        let stats = try #require(server.statistics().first)
        #expect(stats.rtxSSRC == nil && stats.paddingPacketsSent == 0 && stats.probesNotSent >= 1)
    }
}
