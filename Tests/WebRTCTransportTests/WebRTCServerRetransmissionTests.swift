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
    static let defaultOffer = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../WebRTCTests/Fixtures/chromium-156-recvonly-default.sdp").standardized

    /// A connected viewer: a server whose transport-cc viewers run GCC, the offer in `file` answered, the nominating
    /// check, the DTLS handshake (the RTP that came meanwhile kept in `early`), then one keyframe sent.
    struct Viewer {
        var server: WebRTCServer
        var player: UDPSocket
        var srtp: SRTPSession
        var video: WebRTCSDP.MediaSection
        var early: [[UInt8]]
    }

    static func connectedViewer(offer file: URL, remoteUfrag: String) throws -> Viewer {
        var configuration = try WebRTCServerConfiguration(
            bind: SocketAddress(host: "127.0.0.1", port: 0), encoding: .h264(profile: .constrainedBaseline, level: .level3_1),
            sequenceParameterSet: [0x67, 0x42, 0xC0, 0x1F, 0x8C], pictureParameterSet: [0x68, 0xCE, 0x3C, 0x80],
            bitrateCeiling: 2_000_000)
        configuration.congestionController = CongestionControllers.named("gcc")
        let server = try WebRTCServer(configuration: configuration)
        let playerCertificate = try DTLSCertificate()
        let (answerText, _) = try server.createSession(
            offer: WebRTCServerLoopbackTests.offer(fingerprint: playerCertificate.fingerprint, file: file))
        let video = try #require(try WebRTCSDP.Description(parsing: answerText).media.first)
        let player = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        try WebRTCServerLoopbackTests.send(player, WebRTCServerLoopbackTests.check(
            ufrag: try #require(video.iceUfrag), remoteUfrag: remoteUfrag, pwd: try #require(video.icePwd), useCandidate: true),
            to: server.localAddress)
        let pending = try WebRTCServerLoopbackTests.receive(player, timeout: .milliseconds(300))
        let (srtp, _, early) = try WebRTCServerLoopbackTests.handshakeKeepingDTLS(
            player, pending: pending, certificate: playerCertificate, server: server)
        server.send(WebRTCServerLoopbackTests.accessUnit(keyframe: true, at: 0.033))
        return Viewer(server: server, player: player, srtp: srtp, video: video, early: early)
    }

    /// The decrypted RTP packets among `datagrams`.
    static func rtp(_ datagrams: [[UInt8]], srtp: SRTPSession) throws -> [RTPPacket] {
        try datagrams.filter { PacketClass(classifying: $0) == .rtp }.map { datagram in
            var packet = datagram
            let length = try packet.withUnsafeMutableBytes { try srtp.unprotect(rtp: $0, length: $0.count) }
            return try RTPPacket(parsing: Array(packet[..<length])[...])
        }
    }

    static func sendRTCP(_ packet: RTCPPacket, from player: UDPSocket, srtp: SRTPSession, to server: WebRTCServer) throws {
        var bytes = try packet.marshal()
        let length = bytes.count
        bytes += [UInt8](repeating: 0, count: SRTPSession.maxRTCPTrailer)
        let protected = try bytes.withUnsafeMutableBytes { try srtp.protectRTCP($0, length: length) }
        try WebRTCServerLoopbackTests.send(player, Array(bytes[..<protected]), to: server.localAddress)
    }

    @Test(.timeLimit(.minutes(1))) func nacksGoOutOnRTXAndProbesAsRTXPadding() throws {
        let viewer = try Self.connectedViewer(offer: Self.defaultOffer, remoteUfrag: "b0DA")
        let (server, player, srtp, video) = (viewer.server, viewer.player, viewer.srtp, viewer.video)
        defer { server.stop() }
        #expect(video.formats == ["108", "109"])
        #expect(video.codec(payloadType: 109)?.associatedPayloadType == 108)
        let group = try #require(video.otherAttributes.first { $0.name == "ssrc-group" }?.value)
        let ssrcs = group.split(separator: " ").dropFirst().compactMap { UInt32($0) }
        #expect(group.hasPrefix("FID ") && ssrcs.count == 2 && ssrcs[0] != ssrcs[1], "\(group)")
        let (mediaSSRC, rtxSSRC) = (ssrcs[0], ssrcs[1])
        let transportCCID = try #require(video.extmapID(WebRTCSDP.Extmap.transportWideCCURI))
        var received = try Self.rtp(viewer.early + WebRTCServerLoopbackTests.receive(player, timeout: .milliseconds(400)), srtp: srtp)

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

    /// Chromium's H.264-only offer (codec preferences that leave rtx out): no RTX stream, one SSRC on the wire, and
    /// the controller's start probe is counted as not sent.
    @Test(.timeLimit(.minutes(1))) func withoutRTXTheProbesAreCounted() throws {
        let viewer = try Self.connectedViewer(offer: WebRTCServerLoopbackTests.offerFile, remoteUfrag: "3Pux")
        defer { viewer.server.stop() }
        #expect(viewer.video.formats == ["108"] && !viewer.video.otherAttributes.contains { $0.name == "ssrc-group" })
        let received = try Self.rtp(viewer.early + WebRTCServerLoopbackTests.receive(viewer.player, timeout: .milliseconds(300)),
                                    srtp: viewer.srtp)
        #expect(Set(received.map(\.header.ssrc)).count == 1, "one stream: no RTX")
        let stats = try #require(viewer.server.statistics().first)
        #expect(stats.rtxSSRC == nil && stats.paddingPacketsSent == 0 && stats.probesNotSent >= 1)
    }
}
