import DTLS
import MediaCore
import NetworkEmulator
import Testing

/// Two `DTLSEndpoint`s handshaking in memory: clean, through a lossy shim, with the wrong certificate, with garbage.
struct HandshakeTests {
    /// Both sides export the same keys: the client's client key is the server's client key, and so on.
    static func expectEqualKeys(_ pair: DTLSPair, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let first = pair.connections[0], let second = pair.connections[1] else {
            Issue.record("not both connected: \(pair.events)", sourceLocation: sourceLocation)
            return
        }
        #expect(first.keys == second.keys, sourceLocation: sourceLocation)
        #expect(first.keys.profile == .aes128CMHMACSHA1_80, sourceLocation: sourceLocation)
        #expect(first.keys.clientMasterKey.count == 16 && first.keys.clientMasterSalt.count == 14, sourceLocation: sourceLocation)
        #expect(first.keys.clientMasterKey != first.keys.serverMasterKey, sourceLocation: sourceLocation)
        let roles = pair.endpoints.map(\.role)
        // What one side sends with is what the other receives with.
        #expect(first.keys.outbound(for: roles[0]) == second.keys.inbound(for: roles[1]), sourceLocation: sourceLocation)
        #expect(first.keys.inbound(for: roles[0]) == second.keys.outbound(for: roles[1]), sourceLocation: sourceLocation)
        #expect(first.keys.outbound(for: roles[0]).count == 30, sourceLocation: sourceLocation)
        // Each side saw the other's certificate.
        #expect(first.peerFingerprint == pair.endpoints[1].certificate.fingerprint, sourceLocation: sourceLocation)
        #expect(second.peerFingerprint == pair.endpoints[0].certificate.fingerprint, sourceLocation: sourceLocation)
        #expect(first.protocolVersion == 0xFEFD, sourceLocation: sourceLocation)
        #expect(first.cipherSuite.hasPrefix("ECDHE-ECDSA-"), sourceLocation: sourceLocation)
    }

    @Test(arguments: DTLSRole.allCases)
    func cleanHandshake(firstRole: DTLSRole) throws {
        let pair = try DTLSPair(firstRole: firstRole)
        #expect(try pair.run(until: DTLSPair.bothConnected))
        Self.expectEqualKeys(pair)
        #expect(pair.timerWaits == 0)
        #expect(pair.shim.largest <= 1200)
        #expect(pair.endpoints.allSatisfy { $0.state == .connected })
        #expect(pair.endpoints[0].role == firstRole)
        // The keys are secret: printing them shows the profile only.
        #expect("\(pair.connections[0]!.keys)" == "DTLS-SRTP keys SRTP_AES128_CM_HMAC_SHA1_80 (not shown)")
    }

    /// At OpenSSL's smallest MTU every certificate message is fragmented across datagrams (as a browser's
    /// post-quantum ClientHello is): each side reassembles the other's, and no datagram exceeds the MTU.
    @Test(arguments: DTLSRole.allCases)
    func smallMTUFragmentsAndReassembles(firstRole: DTLSRole) throws {
        var configuration = DTLSPair.fastTimers
        configuration.mtu = 256
        let pair = try DTLSPair(firstRole: firstRole, shim: LossyShim(seed: 12, reorder: 0.3), configuration: configuration)
        #expect(try pair.run(until: DTLSPair.bothConnected), "\(pair.events)")
        Self.expectEqualKeys(pair)
        #expect(pair.shim.largest <= 256)
        #expect(pair.shim.reordered > 0)
    }

    /// Loss, duplicates and reordering from a seeded generator: the retransmission timer, driven by the manual clock
    /// calling `handleTimeout`, must recover, in both role arrangements.
    @Test(arguments: [(DTLSRole.client, UInt64(1)), (.server, 2), (.client, 3), (.server, 4), (.client, 5), (.server, 6)])
    func lossyHandshakeRecovers(firstRole: DTLSRole, seed: UInt64) throws {
        var shim = LossyShim(seed: seed, drop: 0.3, duplicate: 0.15, reorder: 0.2)
        // The ClientHello is always lost once, so every seed needs the timer at least once.
        let server = firstRole == .client ? 1 : 0
        shim.forcedDrop = (to: server, matches: { _ in true }, budget: 1)
        let pair = try DTLSPair(firstRole: firstRole, shim: shim)
        #expect(try pair.run(limit: .seconds(60), until: DTLSPair.bothConnected), "seed \(seed): \(pair.events)")
        Self.expectEqualKeys(pair)
        #expect(pair.timerWaits > 0)
        #expect(pair.failures.allSatisfy { $0 == nil })
    }

    /// The server's last flight (ChangeCipherSpec and Finished) lost: the server is connected, the client is not.
    /// The client's timer resends its flight, and the connected server answers it by resending its own (which needs
    /// the endpoint to keep reading records after the handshake).
    @Test func lostFinalFlightIsResent() throws {
        var shim = LossyShim(seed: 9)
        // To the client (index 0): ChangeCipherSpec (content type 20) and anything in epoch 1 (bytes 3–4).
        shim.forcedDrop = (to: 0, matches: { $0[0] == 20 || $0[3] != 0 || $0[4] != 0 }, budget: 2)
        let pair = try DTLSPair(firstRole: .client, shim: shim)
        #expect(try pair.run(until: DTLSPair.bothConnected), "\(pair.events)")
        Self.expectEqualKeys(pair)
        #expect(pair.shim.dropped == 2)
        #expect(pair.timerWaits >= 1)
    }

    /// The first flight lost: nothing is sent before the timer runs out, then the ClientHello again, and the next
    /// timer is twice as long (RFC 6347 §4.2.4.1).
    @Test func timerMapsOntoTheCallersClock() throws {
        let certificate = try DTLSCertificate(), peer = try DTLSCertificate()
        let client = try DTLSEndpoint(role: .client, certificate: certificate, remoteFingerprint: peer.fingerprint,
                                      configuration: DTLSPair.fastTimers)
        let clock = ManualClock(start: Instant(nanoseconds: 5_000_000_000))
        #expect(client.nextTimeout() == nil)
        client.start(at: clock.now)
        let hello = try #require(client.pollTransmit())
        #expect(hello[0] == 22)  // handshake record
        #expect(client.pollTransmit() == nil)
        let due = try #require(client.nextTimeout())
        // 40 ms less the moment between OpenSSL starting its timer and the endpoint asking (generous for a busy machine).
        #expect(due - clock.now <= .milliseconds(40) && due - clock.now > .milliseconds(10), "\(due - clock.now)")

        client.handleTimeout(at: clock.now + .milliseconds(5))
        #expect(client.pollTransmit() == nil)

        sleepReal(due - clock.now)
        _ = clock.advance(to: due)
        client.handleTimeout(at: clock.now)
        let again = try #require(client.pollTransmit())
        #expect(again.count == hello.count && again[0] == 22)
        let next = try #require(client.nextTimeout())
        #expect(next - clock.now <= .milliseconds(80) && next - clock.now > .milliseconds(45), "doubled: \(next - clock.now)")
        #expect(client.state == .handshaking)
    }

    /// A peer that never answers: after OpenSSL's last retransmission the endpoint fails with `.timedOut`.
    @Test func unansweredFlightsTimeOut() throws {
        let certificate = try DTLSCertificate(), peer = try DTLSCertificate()
        let configuration = DTLSEndpointConfiguration(
            initialRetransmissionTimeout: .milliseconds(20), maximumRetransmissionTimeout: .milliseconds(20))
        let client = try DTLSEndpoint(role: .client, certificate: certificate, remoteFingerprint: peer.fingerprint,
                                      configuration: configuration)
        let clock = ManualClock()
        client.start(at: clock.now)
        var sent = 0
        var failure: DTLSError?
        for _ in 0 ..< 40 where failure == nil {
            while client.pollTransmit() != nil { sent += 1 }
            guard let due = client.nextTimeout() else { break }
            sleepReal(due - clock.now)
            _ = clock.advance(to: due)
            client.handleTimeout(at: clock.now)
            while let event = client.pollEvent() { if case .failed(let error) = event { failure = error } }
        }
        #expect(failure?.code == .timedOut, "\(String(describing: failure))")
        #expect(sent > 5)
        #expect(client.state == .failed)
        #expect(client.nextTimeout() == nil)
        #expect(throws: DTLSError.self) { try client.handle(datagram: [22, 0xFE, 0xFD], at: clock.now) }
    }

    /// The certificate is not the one the SDP announced: the side that checks it fails with the typed error and
    /// exports no keys, whichever role it has.
    @Test(arguments: [(DTLSRole.client, 0), (.client, 1), (.server, 0), (.server, 1)])
    func fingerprintMismatchFails(firstRole: DTLSRole, wrongAt: Int) throws {
        let pair = try DTLSPair(firstRole: firstRole, wrongFingerprintAt: wrongAt)
        try pair.run { $0.failures[wrongAt] != nil && $0.endpoints[1 - wrongAt].state != .handshaking }
        let failure = try #require(pair.failures[wrongAt], "\(pair.events)")
        #expect(failure.code == .fingerprintMismatch)
        #expect(failure.reason.contains(pair.endpoints[1 - wrongAt].certificate.fingerprint.sdpValue))
        #expect(pair.connections[wrongAt] == nil)
        #expect(pair.endpoints[wrongAt].state == .failed)
        // The other side learns through close_notify (or never connects): it ends closed, never with media.
        pair.drainEvents()
        #expect(pair.endpoints[1 - wrongAt].state != .handshaking)
    }

    /// A peer that closes: close_notify reaches the other side as `.closed`.
    @Test func closeNotifyEndsTheOtherSide() throws {
        let pair = try DTLSPair()
        try pair.run(until: DTLSPair.bothConnected)
        pair.endpoints[0].close(at: pair.clock.now)
        try pair.run { $0.endpoints[1].state == .closed }
        #expect(pair.events[0].last.map { if case .closed = $0 { true } else { false } } == true)
        #expect(pair.events[1].last.map { if case .closed = $0 { true } else { false } } == true)
        do {
            try pair.endpoints[1].handle(datagram: [23, 0xFE, 0xFD, 0, 1], at: pair.clock.now)
            Issue.record("a closed endpoint took a datagram")
        } catch { #expect(error.code == .closed) }
    }
}
