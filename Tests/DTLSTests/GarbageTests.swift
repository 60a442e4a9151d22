import DTLS
import MediaCore
import NetworkEmulator
import Testing

/// Datagrams that are not a proper handshake: refused with a typed error, dropped, or a failed handshake — never a
/// crash, never a connection.
struct GarbageTests {
    static func client(_ certificate: DTLSCertificate, expecting peer: DTLSCertificate) throws -> DTLSEndpoint {
        try DTLSEndpoint(role: .client, certificate: certificate, remoteFingerprint: peer.fingerprint,
                         configuration: DTLSPair.fastTimers)
    }

    static func server(_ certificate: DTLSCertificate, expecting peer: DTLSCertificate) throws -> DTLSEndpoint {
        try DTLSEndpoint(role: .server, certificate: certificate, remoteFingerprint: peer.fingerprint,
                         configuration: DTLSPair.fastTimers)
    }

    /// What cannot be DTLS at all is refused before OpenSSL sees it (RFC 7983 §7 first-byte ranges).
    @Test(arguments: [[UInt8](), [0], [19, 0xFE, 0xFD], [64, 0xFE, 0xFD], [0x80, 0x60, 0, 1], [0xFF]])
    func notDTLSIsRefused(datagram: [UInt8]) throws {
        let server = try Self.server(DTLSCertificate(), expecting: DTLSCertificate())
        do {
            try server.handle(datagram: datagram, at: .zero)
            Issue.record("took \(datagram)")
        } catch { #expect(error.code == .invalidDatagram) }
        #expect(server.state == .idle)
        #expect(server.pollTransmit() == nil)
    }

    @Test func oversizedDatagramIsRefused() throws {
        let server = try Self.server(DTLSCertificate(), expecting: DTLSCertificate())
        let datagram = [UInt8](repeating: 22, count: DTLSEndpoint.maximumDatagramLength + 1)
        #expect(throws: DTLSError.self) { try server.handle(datagram: datagram, at: .zero) }
    }

    /// Random bytes in the DTLS range, fed to a server waiting for a ClientHello and to a connected pair: each either
    /// is dropped or fails the handshake with a typed error; none connects anything, none crashes.
    @Test(arguments: UInt64(1) ... 8)
    func randomDatagramsFailCleanly(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let serverCertificate = try DTLSCertificate(), clientCertificate = try DTLSCertificate()
        for _ in 0 ..< 40 {
            let server = try Self.server(serverCertificate, expecting: clientCertificate)
            var datagram = (0 ..< Int.random(in: 1 ... 300, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            datagram[0] = UInt8.random(in: 20 ... 63, using: &random)
            if datagram.count > 3, Bool.random(using: &random) { datagram[1] = 0xFE; datagram[2] = 0xFD }  // a plausible version
            try server.handle(datagram: datagram, at: .zero)
            while server.pollTransmit() != nil {}
            while let event = server.pollEvent() {
                switch event {
                case .failed(let error): #expect(error.code == .handshakeFailed, "\(error)")
                case .connected, .closed: Issue.record("garbage gave \(event)")
                }
            }
            #expect(server.state == .handshaking || server.state == .failed)
        }
        // After the handshake, garbage records are dropped (they fail the MAC) and the association stays up.
        let pair = try DTLSPair()
        try pair.run(until: DTLSPair.bothConnected)
        for _ in 0 ..< 20 {
            var datagram = (0 ..< Int.random(in: 13 ... 200, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            datagram[0] = 23
            datagram[1] = 0xFE
            datagram[2] = 0xFD
            try pair.endpoints[1].handle(datagram: datagram, at: pair.clock.now)
        }
        pair.drainEvents()
        #expect(pair.endpoints.allSatisfy { $0.state == .connected })
    }

    /// Drip-feed: every strict prefix of the ClientHello datagram is dropped by a server (a truncated record), with
    /// nothing sent and no event; then the whole ClientHello gets the server's flight.
    @Test func everyPrefixOfTheClientHelloIsDropped() throws {
        let serverCertificate = try DTLSCertificate(), clientCertificate = try DTLSCertificate()
        let client = try Self.client(clientCertificate, expecting: serverCertificate)
        client.start(at: .zero)
        let hello = try #require(client.pollTransmit())
        let server = try Self.server(serverCertificate, expecting: clientCertificate)
        for length in 1 ..< hello.count {
            try server.handle(datagram: Array(hello[0 ..< length]), at: .zero)
            #expect(server.pollTransmit() == nil, "prefix of \(length) answered")
            if let event = server.pollEvent() { Issue.record("prefix of \(length) gave \(event)") }
            #expect(server.state == .handshaking)
        }
        try server.handle(datagram: hello, at: .zero)
        var flight = 0
        while server.pollTransmit() != nil { flight += 1 }
        #expect(flight >= 1)
        #expect(server.state == .handshaking)
    }

    @Test func configurationIsValidated() throws {
        let certificate = try DTLSCertificate()
        for configuration in [
            DTLSEndpointConfiguration(mtu: 100),
            DTLSEndpointConfiguration(mtu: 70_000),
            DTLSEndpointConfiguration(initialRetransmissionTimeout: .milliseconds(5)),
            DTLSEndpointConfiguration(initialRetransmissionTimeout: .seconds(2), maximumRetransmissionTimeout: .seconds(1)),
        ] {
            do {
                _ = try DTLSEndpoint(role: .client, certificate: certificate, remoteFingerprint: certificate.fingerprint,
                                     configuration: configuration)
                Issue.record("accepted \(configuration)")
            } catch { #expect(error.code == .invalidArgument) }
        }
    }
}
