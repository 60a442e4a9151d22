import DTLS
import Foundation
import MediaCore
import RTPOut
import Testing
import WebRTC
import WebRTCTransport

/// A `WebRTCServer` on 127.0.0.1 and a player made of rtenc's own pieces on another socket (its STUN checks by hand,
/// a DTLS server endpoint, libsrtp2): the demultiplexing by USERNAME and by address, the DTLS handshake the first
/// nominated check starts, media only after SRTP and from a keyframe on, a keyframe requested for the new viewer,
/// and the BYE a DELETE sends.
@Suite(.serialized) struct WebRTCServerLoopbackTests {
    static let offerFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../WebRTCTests/Fixtures/chromium-156-whep-recvonly-h264.sdp").standardized

    /// Chromium's recorded offer (or the one in `file`) with the player's own certificate fingerprint.
    static func offer(fingerprint: DTLSFingerprint, file: URL = offerFile) throws -> String {
        let text = try String(contentsOf: file, encoding: .utf8)
        return text.split(separator: "\r\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("a=fingerprint:") ? "a=fingerprint:\(fingerprint.sdpValue)" : String(line)
        }.joined(separator: "\r\n")
    }

    static func check(ufrag: String, remoteUfrag: String, pwd: String, useCandidate: Bool) throws -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        var attributes: [STUNAttribute] = [.username("\(ufrag):\(remoteUfrag)"), .priority(0x6E00_01FF),
                                           .iceControlling(tieBreaker: 42)]
        if useCandidate { attributes.append(.useCandidate) }
        let message = STUNMessage(type: .bindingRequest, transactionID: STUNTransactionID(using: &random), attributes: attributes)
        return try message.serialized(integrityKey: STUNMessage.shortTermKey(password: pwd), fingerprint: true)
    }

    /// Datagrams the player gets within `timeout`.
    static func receive(_ socket: UDPSocket, timeout: Duration) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            let got = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0) }
            if let got { out.append(Array(buffer[0 ..< got.count])) } else { usleep(2000) }
        }
        return out
    }

    static func send(_ socket: UDPSocket, _ bytes: [UInt8], to address: SocketAddress) throws {
        _ = try bytes.withUnsafeBytes { try socket.send($0, to: address) }
    }

    static func accessUnit(keyframe: Bool, at seconds: Double) -> CodedAccessUnit {
        // A stand-in picture: NAL type 5 (IDR) or 1, 3000 bytes (three FU-A fragments at 1200).
        let bytes = [UInt8(keyframe ? 0x65 : 0x41)] + [UInt8](repeating: 0xAB, count: 2999)
        return CodedAccessUnit(codec: .h264, bytes: bytes, framing: .annexB, nalUnits: [.init(type: keyframe ? 5 : 1, range: 0 ..< 3000)],
                               isKeyframe: keyframe, presentationTime: MediaTime(seconds: seconds))
    }

    @Test(.timeLimit(.minutes(1))) func aViewerFromCheckToBye() throws {
        let server = try WebRTCServer(configuration: .init(
            bind: SocketAddress(host: "127.0.0.1", port: 0), encoding: .h264(profile: .constrainedBaseline, level: .level3_1),
            sequenceParameterSet: [0x67, 0x42, 0xC0, 0x1F, 0x8C], pictureParameterSet: [0x68, 0xCE, 0x3C, 0x80],
            bitrateCeiling: 2_000_000))
        defer { server.stop() }
        let playerCertificate = try DTLSCertificate()
        let (answerText, id) = try server.createSession(offer: Self.offer(fingerprint: playerCertificate.fingerprint))
        #expect(id.count == 22)
        let answer = try WebRTCSDP.Description(parsing: answerText)
        let video = try #require(answer.media.first)
        let ufrag = try #require(video.iceUfrag), pwd = try #require(video.icePwd)
        #expect(answer.iceLite)
        #expect(video.setup == .active)
        #expect(video.candidates.first?.port == server.localAddress.port)
        #expect(video.candidates.first?.address == "127.0.0.1", "loopback is a candidate like any other")

        let player = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        // A check naming another ufrag is nobody's: no answer, no DTLS.
        try Self.send(player, Self.check(ufrag: "nobody", remoteUfrag: "3Pux", pwd: pwd, useCandidate: true), to: server.localAddress)
        #expect(try Self.receive(player, timeout: .milliseconds(200)).isEmpty)
        // DTLS before ICE selected the address: dropped.
        try Self.send(player, [22, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 20), to: server.localAddress)
        #expect(try Self.receive(player, timeout: .milliseconds(100)).isEmpty)

        // The nominating check: a success response, then (setup:active) the ClientHello.
        try Self.send(player, Self.check(ufrag: ufrag, remoteUfrag: "3Pux", pwd: pwd, useCandidate: true), to: server.localAddress)
        var pending = try Self.receive(player, timeout: .milliseconds(300))
        let classes = pending.map { PacketClass(classifying: $0) }
        #expect(classes.first == .stun, "\(classes)")
        #expect(classes.contains(.dtls), "the ClientHello follows the nominated check: \(classes)")
        let response = try STUNReceivedMessage(parsing: pending[0][...])
        #expect(response.message.type == .bindingSuccess)
        #expect(response.message.xorMappedAddress?.port == player.localAddress.port)
        #expect(server.takeKeyframeRequest() == false, "no keyframe before SRTP is ready")

        let srtp = try Self.handshake(player, pending: pending, certificate: playerCertificate, server: server)
        usleep(100_000)  // the server's last flight reaches it and it exports too
        #expect(server.takeKeyframeRequest(), "a new viewer asks for an IDR")
        #expect(server.takeKeyframeRequest() == false, "once")

        // A delta frame first: not sent (undecodable without its keyframe); then the IDR, with SPS and PPS.
        server.send(Self.accessUnit(keyframe: false, at: 0))
        #expect(try Self.receive(player, timeout: .milliseconds(150)).filter { PacketClass(classifying: $0) == .rtp }.isEmpty)
        server.send(Self.accessUnit(keyframe: true, at: 0.033))
        let media = try Self.receive(player, timeout: .milliseconds(300)).filter { PacketClass(classifying: $0) == .rtp }
        #expect(media.count >= 4, "STAP-A (SPS, PPS) + three FU-A fragments")
        var payloadTypes: Set<UInt8> = []
        var firstNALTypes: [UInt8] = []
        for var packet in media {
            let length = try packet.withUnsafeMutableBytes { try srtp.unprotect(rtp: $0, length: $0.count) }
            let parsed = try RTPPacket(parsing: packet[..<length])  // header extensions (abs-send-time) skipped
            payloadTypes.insert(parsed.header.payloadType)
            firstNALTypes.append(try #require(parsed.payload.first) & 0x1F)
            #expect(parsed.header.extension != nil, "abs-send-time, as answered")
        }
        #expect(payloadTypes == [UInt8(video.formats[0])!], "the answered payload type")
        #expect(firstNALTypes.first == 24, "the IDR starts with its parameter sets (STAP-A): \(firstNALTypes)")
        let stats = try #require(server.statistics().first)
        #expect(stats.state == "connected" && stats.keyframesSent == 1)

        // DELETE: an SRTCP BYE.
        #expect(server.endSession(id: id))
        #expect(server.endSession(id: "unknown") == false)
        #expect(try rtcpTypes(Self.receive(player, timeout: .milliseconds(1500)), srtp: srtp).contains(203))
        #expect(server.viewerCount == 0)
    }

    /// The DTLS handshake as the player (DTLS server), starting from the datagrams already received; its SRTP.
    static func handshake(_ player: UDPSocket, pending: [[UInt8]], certificate: DTLSCertificate, server: WebRTCServer) throws -> SRTPSession {
        try handshakeKeepingDTLS(player, pending: pending, certificate: certificate, server: server).srtp
    }

    /// `handshake`, also handing back the player's DTLS endpoint (to close it) and the RTP that arrived before the
    /// player's side finished (the server may start sending once its own side has: a controller's start probe).
    static func handshakeKeepingDTLS(
        _ player: UDPSocket, pending: [[UInt8]], certificate: DTLSCertificate, server: WebRTCServer
    ) throws -> (srtp: SRTPSession, dtls: DTLSEndpoint, early: [[UInt8]]) {
        var pending = pending
        var early: [[UInt8]] = []
        let dtls = try DTLSEndpoint(role: .server, certificate: certificate, remoteFingerprint: server.certificate.fingerprint)
        var keys: DTLSSRTPKeys?
        let deadline = ContinuousClock.now + .seconds(10)
        while keys == nil, ContinuousClock.now < deadline {
            let now = Instant(nanoseconds: Int64(Date().timeIntervalSince1970 * 1e9))
            for datagram in pending where PacketClass(classifying: datagram) == .dtls { try dtls.handle(datagram: datagram, at: now) }
            early += pending.filter { PacketClass(classifying: $0) == .rtp }
            while let out = dtls.pollTransmit() { try Self.send(player, out, to: server.localAddress) }
            while let event = dtls.pollEvent() {
                if case .connected(let connection) = event { keys = connection.keys }
                if case .failed(let error) = event { Issue.record("DTLS failed: \(error)") }
            }
            pending = try Self.receive(player, timeout: .milliseconds(50))
        }
        early += pending.filter { PacketClass(classifying: $0) == .rtp }
        let exported = try #require(keys, "the handshake finished")
        let srtp = try SRTPSession(outbound: SRTPConfiguration(masterKeyAndSalt: exported.outbound(for: .server)),
                                   inbound: SRTPConfiguration(masterKeyAndSalt: exported.inbound(for: .server)))
        return (srtp, dtls, early)
    }

    /// A player that closes DTLS (close_notify: `pc.close()`, a tab closed without DELETE) is ended at once, not 30 s
    /// later when its consent would lapse.
    @Test(.timeLimit(.minutes(1))) func closeNotifyEndsTheViewer() throws {
        let server = try WebRTCServer(configuration: .init(
            bind: SocketAddress(host: "127.0.0.1", port: 0), encoding: .h264(profile: .constrainedBaseline, level: .level3_1),
            sequenceParameterSet: [0x67, 0x42, 0xC0, 0x1F, 0x8C], pictureParameterSet: [0x68, 0xCE, 0x3C, 0x80],
            bitrateCeiling: 2_000_000))
        defer { server.stop() }
        let playerCertificate = try DTLSCertificate()
        let (answerText, _) = try server.createSession(offer: Self.offer(fingerprint: playerCertificate.fingerprint))
        let video = try #require(try WebRTCSDP.Description(parsing: answerText).media.first)
        let ufrag = try #require(video.iceUfrag), pwd = try #require(video.icePwd)
        let player = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        try Self.send(player, Self.check(ufrag: ufrag, remoteUfrag: "3Pux", pwd: pwd, useCandidate: true), to: server.localAddress)
        let pending = try Self.receive(player, timeout: .milliseconds(300))
        let (_, dtls, _) = try Self.handshakeKeepingDTLS(player, pending: pending, certificate: playerCertificate, server: server)
        usleep(100_000)
        #expect(server.statistics().first?.state == "connected")
        dtls.close(at: Instant(nanoseconds: Int64(Date().timeIntervalSince1970 * 1e9)))
        while let out = dtls.pollTransmit() { try Self.send(player, out, to: server.localAddress) }
        let deadline = ContinuousClock.now + .seconds(3)
        while server.viewerCount > 0, ContinuousClock.now < deadline { usleep(20_000) }
        #expect(server.viewerCount == 0, "the viewer outlived its close_notify")
    }

    /// A viewer that never checks is gone after the connect timeout; one whose checks stop loses consent and gets a BYE.
    @Test(.timeLimit(.minutes(1))) func silentViewersEnd() throws {
        var configuration = WebRTCServerConfiguration(
            bind: try SocketAddress(host: "127.0.0.1", port: 0), encoding: .h264(profile: .constrainedBaseline, level: .level3_1),
            bitrateCeiling: 1_000_000)
        configuration.connectTimeout = .milliseconds(300)
        configuration.consentTimeout = .milliseconds(1500)  // room for the handshake on a loaded machine
        let server = try WebRTCServer(configuration: configuration)
        defer { server.stop() }
        let playerCertificate = try DTLSCertificate()
        let offer = try Self.offer(fingerprint: playerCertificate.fingerprint)

        _ = try server.createSession(offer: offer)
        #expect(server.viewerCount == 1)
        usleep(500_000)
        #expect(server.viewerCount == 0)
        #expect(server.takeLog().contains { $0.contains("never connected") })

        let (answerText, _) = try server.createSession(offer: offer)
        let video = try #require(try WebRTCSDP.Description(parsing: answerText).media.first)
        let player = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        try Self.send(player, Self.check(ufrag: try #require(video.iceUfrag), remoteUfrag: "3Pux", pwd: try #require(video.icePwd),
                                         useCandidate: true), to: server.localAddress)
        let srtp = try Self.handshake(player, pending: try Self.receive(player, timeout: .milliseconds(200)),
                                      certificate: playerCertificate, server: server)
        // No more checks: consent runs out 1.5 s after the last one; an SRTCP BYE follows.
        #expect(try rtcpTypes(Self.receive(player, timeout: .milliseconds(3000)), srtp: srtp).contains(203))
        #expect(server.viewerCount == 0)
        #expect(server.takeLog().contains { $0.contains("consent lost") })
    }

    /// A player whose certificate is not the one its offer's fingerprint names is refused when the handshake ends:
    /// no SRTP, no media, the viewer gone with the reason.
    @Test(.timeLimit(.minutes(1))) func aCertificateOtherThanTheOfferedFingerprintIsRefused() throws {
        let server = try WebRTCServer(configuration: .init(
            bind: SocketAddress(host: "127.0.0.1", port: 0), encoding: .h264(profile: .constrainedBaseline, level: .level3_1),
            bitrateCeiling: 1_000_000))
        defer { server.stop() }
        let (answerText, _) = try server.createSession(offer: Self.offer(fingerprint: DTLSCertificate().fingerprint))
        let video = try #require(try WebRTCSDP.Description(parsing: answerText).media.first)
        let player = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        try Self.send(player, Self.check(ufrag: try #require(video.iceUfrag), remoteUfrag: "3Pux", pwd: try #require(video.icePwd),
                                         useCandidate: true), to: server.localAddress)
        _ = try Self.handshake(player, pending: try Self.receive(player, timeout: .milliseconds(200)),
                               certificate: DTLSCertificate(), server: server)  // another certificate than offered
        usleep(300_000)
        #expect(server.viewerCount == 0)
        #expect(server.takeKeyframeRequest() == false, "no SRTP, so no viewer to start")
        #expect(server.takeLog().contains { $0.contains("DTLS failed") })
    }

    @Test func refusalsCarryTheSDPLayersReason() throws {
        let server = try WebRTCServer(configuration: .init(
            bind: SocketAddress(host: "127.0.0.1", port: 0), encoding: .h264(profile: .high, level: .level3_1), bitrateCeiling: 1_000_000))
        defer { server.stop() }
        let offer = try Self.offer(fingerprint: DTLSCertificate().fingerprint)
        #expect {
            _ = try server.createSession(offer: offer)
        } throws: { error in
            guard let error = error as? WebRTCTransportError else { return false }
            return error.code == .unacceptableOffer && error.httpStatus == 406 && error.reason.contains("High")
        }
        #expect {
            _ = try server.createSession(offer: "not sdp")
        } throws: { error in (error as? WebRTCTransportError)?.httpStatus == 400 }
    }
}

/// The server's life as an embedder sees it: dropping it stops it, and the caps on viewers say when to come back.
@Suite(.serialized) struct WebRTCServerLifecycleTests {
    static func configuration(port: UInt16 = 0) throws -> WebRTCServerConfiguration {
        try WebRTCServerConfiguration(
            bind: SocketAddress(host: "127.0.0.1", port: port), encoding: .h264(profile: .constrainedBaseline, level: .level3_1),
            bitrateCeiling: 1_000_000)
    }

    /// The I/O thread holds the server's core, not the server: the last reference dropped runs `deinit`, which stops
    /// the thread, and the socket is closed (its port can be bound again at once).
    @Test(.timeLimit(.minutes(1))) func aDroppedServerFreesItsPort() throws {
        weak var dropped: WebRTCServer?
        var port: UInt16 = 0
        do {
            let server = try WebRTCServer(configuration: Self.configuration())
            _ = try server.createSession(offer: WebRTCServerLoopbackTests.offer(fingerprint: DTLSCertificate().fingerprint))
            port = server.localAddress.port
            dropped = server
        }
        #expect(dropped == nil, "nothing else keeps the server alive")
        #expect(throws: Never.self, "the port is free again") {
            _ = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: port))
        }
        // And a server on that very port works.
        let again = try WebRTCServer(configuration: Self.configuration(port: port))
        #expect(again.localAddress.port == port)
    }

    /// Viewers still connecting are capped apart from all viewers: both refusals are 503 with a Retry-After and say why.
    @Test(.timeLimit(.minutes(1))) func capsOnViewersAndOnPendingOnes() throws {
        var configuration = try Self.configuration()
        configuration.maxViewers = 3
        configuration.maxPendingViewers = 2
        let server = try WebRTCServer(configuration: configuration)
        defer { server.stop() }
        let offer = try WebRTCServerLoopbackTests.offer(fingerprint: DTLSCertificate().fingerprint)
        _ = try server.createSession(offer: offer)
        _ = try server.createSession(offer: offer)
        #expect {
            _ = try server.createSession(offer: offer)
        } throws: { error in
            guard let error = error as? WebRTCTransportError else { return false }
            return error.code == .tooManyPendingViewers && error.httpStatus == 503 && error.retryAfterSeconds == 2
                && error.reason.contains("still connecting")
        }
        #expect(server.viewerCount == 2, "the refused offer left nothing behind")

        // A third viewer connects (ICE and DTLS done): no longer pending, so one more may start; then the server is full.
        var full = configuration
        full.maxPendingViewers = 3
        let roomy = try WebRTCServer(configuration: full)
        defer { roomy.stop() }
        for _ in 0 ..< 3 { _ = try roomy.createSession(offer: offer) }
        #expect {
            _ = try roomy.createSession(offer: offer)
        } throws: { error in
            guard let error = error as? WebRTCTransportError else { return false }
            return error.code == .tooManyViewers && error.httpStatus == 503 && error.retryAfterSeconds == 10
                && error.reason.contains("3 viewers")
        }
    }

    /// A viewer that finished connecting leaves the pending count: the next offer is taken although the pending cap is 1.
    @Test(.timeLimit(.minutes(1))) func aConnectedViewerIsNoLongerPending() throws {
        var configuration = try Self.configuration()
        configuration.maxPendingViewers = 1
        let server = try WebRTCServer(configuration: configuration)
        defer { server.stop() }
        let playerCertificate = try DTLSCertificate()
        let offer = try WebRTCServerLoopbackTests.offer(fingerprint: playerCertificate.fingerprint)
        let (answerText, _) = try server.createSession(offer: offer)
        #expect(throws: WebRTCTransportError.self) { _ = try server.createSession(offer: offer) }
        let video = try #require(try WebRTCSDP.Description(parsing: answerText).media.first)
        let player = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        try WebRTCServerLoopbackTests.send(player, WebRTCServerLoopbackTests.check(
            ufrag: try #require(video.iceUfrag), remoteUfrag: "3Pux", pwd: try #require(video.icePwd), useCandidate: true),
            to: server.localAddress)
        _ = try WebRTCServerLoopbackTests.handshake(
            player, pending: try WebRTCServerLoopbackTests.receive(player, timeout: .milliseconds(200)),
            certificate: playerCertificate, server: server)
        let deadline = ContinuousClock.now + .seconds(3)
        while server.statistics().first?.state != "connected", ContinuousClock.now < deadline { usleep(20_000) }
        #expect(throws: Never.self) { _ = try server.createSession(offer: offer) }
        #expect(server.viewerCount == 2)
    }
}
