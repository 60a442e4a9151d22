import MediaCore
import NetworkEmulator
import Testing
import WebRTC

@Suite struct ICELiteAgentTests {
    static let local = try! ICECredentials(ufrag: "rtnc", pwd: "Local+password/0123456789")
    static let remote = try! ICECredentials(ufrag: "brws", pwd: "Remote+password/0123456789")
    static let browser = address("192.0.2.7:50001")
    static let otherBrowserAddress = address("[2001:db8::7]:50002")

    static func agent(at start: Instant = .zero, remoteUfrag: String? = remote.ufrag) -> ICELiteAgent {
        ICELiteAgent(configuration: .init(local: local, remoteUfrag: remoteUfrag), startedAt: start)
    }

    /// A browser's connectivity check as Chromium sends one: USERNAME, PRIORITY, ICE-CONTROLLING, USE-CANDIDATE when
    /// nominating, MESSAGE-INTEGRITY with rtenc's password, FINGERPRINT.
    static func check(
        id: UInt8 = 1, useCandidate: Bool = false, username: String = "rtnc:brws",
        role: STUNAttribute? = .iceControlling(tieBreaker: 42), key: [UInt8]? = STUNMessage.shortTermKey(password: local.pwd),
        extra: [STUNAttribute] = [], type: STUNMessageType = .bindingRequest
    ) -> [UInt8] {
        var attributes: [STUNAttribute] = [.username(username), .priority(1_845_501_695)]
        if let role { attributes.append(role) }
        if useCandidate { attributes.append(.useCandidate) }
        attributes += extra
        let message = STUNMessage(type: type, transactionID: STUNTransactionID(bytes: [UInt8](repeating: id, count: 12))!, attributes: attributes)
        return try! message.serialized(integrityKey: key, fingerprint: true)
    }

    @Test func answersACheck() throws {
        var agent = Self.agent()
        let response = try required(agent.handle(stun: Self.check(id: 9)[...], from: Self.browser, at: .ms(10)))
        let received = try STUNReceivedMessage(parsing: response[...])
        #expect(received.message.type == .bindingSuccess)
        #expect(received.message.transactionID.bytes == [UInt8](repeating: 9, count: 12))
        #expect(received.message.attributes == [.xorMappedAddress(Self.browser)])
        #expect(received.hasValidIntegrity(key: STUNMessage.shortTermKey(password: Self.local.pwd)))
        #expect(received.hasFingerprint)
        #expect(agent.pollEvent() == nil, "answered, not nominated")
        #expect(agent.selected == nil)
    }

    /// What comes back for each kind of bad or foreign datagram: nil (dropped silently), or an error response with
    /// its code and whether it carries MESSAGE-INTEGRITY.
    static let badInputs: [(datagram: [UInt8], response: (code: Int, signed: Bool)?, why: String)] = [
        (check(key: STUNMessage.shortTermKey(password: remote.pwd)), nil, "MESSAGE-INTEGRITY under the wrong password"),
        (check(key: nil), (400, false), "no MESSAGE-INTEGRITY"),
        (try! STUNMessage(type: .bindingRequest, transactionID: STUNTransactionID(bytes: Array(1...12))!,
                          attributes: [.iceControlling(tieBreaker: 1)]).serialized(integrityKey: STUNMessage.shortTermKey(password: local.pwd)),
         (400, false), "no USERNAME"),
        (check(username: "xxxx:brws"), (401, false), "someone else's ufrag"),
        (check(username: "rtnc:other"), (401, false), "the wrong remote ufrag"),
        (check(username: "rtncbrws"), (401, false), "USERNAME without a colon"),
        (check(role: nil), (400, true), "neither ICE-CONTROLLING nor ICE-CONTROLLED"),
        (check(role: .iceControlled(tieBreaker: 1)), (487, true), "the peer claims controlled too"),
        (check(useCandidate: true, role: .iceControlled(tieBreaker: .max)), (487, true), "controlled, whatever its tie-breaker"),
        (check(extra: [.other(type: STUNAttributeType(rawValue: 0x7F00), value: [1])]), (420, true),
         "an unknown comprehension-required attribute"),
        (check(extra: [.other(type: STUNAttributeType(rawValue: 0xC057), value: [0, 1, 0, 10])]), (-1, true),
         "an unknown comprehension-optional attribute is fine"),
        (check(type: .bindingIndication), nil, "a Binding indication (keepalive)"),
        (check(type: .bindingSuccess), nil, "a response to nothing"),
        (check(type: STUNMessageType(method: STUNMethod(rawValue: 3), messageClass: .request)), (400, false), "not Binding"),
        (rawSTUN(attributes: [(0x0024, [0, 0, 1])]), (400, false), "a malformed PRIORITY"),
        (Array(check().dropLast(4)), nil, "truncated"),
        ([0x80, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 1], nil, "RTP"),
        ([], nil, "empty"),
    ]

    @Test(arguments: badInputs)
    func badInput(_ c: (datagram: [UInt8], response: (code: Int, signed: Bool)?, why: String)) throws {
        var agent = Self.agent()
        let response = agent.handle(stun: c.datagram[...], from: Self.browser, at: .ms(1))
        guard let expected = c.response else {
            #expect(response == nil, "\(c.why)")
            return
        }
        let received = try STUNReceivedMessage(parsing: try #require(response, "\(c.why)")[...])
        #expect(received.hasFingerprint)
        #expect(received.hasValidIntegrity(key: STUNMessage.shortTermKey(password: Self.local.pwd)) == expected.signed, "\(c.why)")
        if expected.code < 0 {
            #expect(received.message.type == .bindingSuccess, "\(c.why)")
        } else {
            #expect(received.message.type == .bindingError, "\(c.why)")
            #expect(received.message.errorCode?.code == expected.code, "\(c.why)")
        }
        if expected.code == 420 {
            #expect(received.message.first(.unknownAttributes) == .unknownAttributes([STUNAttributeType(rawValue: 0x7F00)]))
        }
        #expect(agent.selected == nil)
        #expect(agent.pollEvent() == nil)
    }

    @Test func recipientUfrag() {
        #expect(ICELiteAgent.recipientUfrag(of: Self.check()[...]) == "rtnc")
        #expect(ICELiteAgent.recipientUfrag(of: Self.check(username: "ab:cd:ef")[...]) == "ab", "up to the first colon")
        #expect(ICELiteAgent.recipientUfrag(of: Self.check(username: "nocolon")[...]) == nil)
        #expect(ICELiteAgent.recipientUfrag(of: Self.check(type: .bindingSuccess)[...]) == nil, "not a request")
        #expect(ICELiteAgent.recipientUfrag(of: [0x80, 0x60, 0, 1][...]) == nil, "RTP")
    }

    @Test func anyRemoteUfragWhenTheOfferHadNone() {
        var agent = Self.agent(remoteUfrag: nil)
        #expect(agent.handle(stun: Self.check(username: "rtnc:anything")[...], from: Self.browser, at: .ms(1)).flatMap {
            try? STUNReceivedMessage(parsing: $0[...]).message.type
        } == .bindingSuccess)
    }

    /// The destination is the source of the latest authenticated check with USE-CANDIDATE.
    @Test func latchesOnUseCandidate() {
        var agent = Self.agent()
        _ = agent.handle(stun: Self.check()[...], from: Self.browser, at: .ms(1))
        #expect(agent.selected == nil, "a check without USE-CANDIDATE selects nothing")
        _ = agent.handle(stun: Self.check(useCandidate: true, key: STUNMessage.shortTermKey(password: "x"))[...], from: Self.browser, at: .ms(2))
        #expect(agent.selected == nil, "an unauthenticated USE-CANDIDATE selects nothing")
        _ = agent.handle(stun: Self.check(useCandidate: true, role: .iceControlled(tieBreaker: 1))[...], from: Self.browser, at: .ms(2))
        #expect(agent.selected == nil, "a role conflict selects nothing")

        _ = agent.handle(stun: Self.check(useCandidate: true)[...], from: Self.browser, at: .ms(3))
        #expect(agent.pollEvent() == .selected(remote: Self.browser, local: nil))
        _ = agent.handle(stun: Self.check(useCandidate: true)[...], from: Self.browser, at: .ms(4))
        #expect(agent.pollEvent() == nil, "the same address again: no event")

        _ = agent.handle(stun: Self.check()[...], from: Self.otherBrowserAddress, at: .ms(5))
        #expect(agent.selected == Self.browser, "a check elsewhere without USE-CANDIDATE does not move the latch")
        _ = agent.handle(stun: Self.check(useCandidate: true)[...], from: Self.otherBrowserAddress, at: .ms(6))
        #expect(agent.pollEvent() == .selected(remote: Self.otherBrowserAddress, local: nil))
        #expect(agent.selected == Self.otherBrowserAddress)
        #expect(agent.pollEvent() == nil)
    }

    /// Consent is lost exactly 30 s after the last authenticated check from the selected address, not a nanosecond
    /// before; checks from elsewhere, or failing integrity, do not refresh it.
    @Test func consentExpiresAtExactly30s() {
        var agent = Self.agent()
        _ = agent.handle(stun: Self.check(useCandidate: true)[...], from: Self.browser, at: .ms(1_000))
        #expect(agent.pollEvent() == .selected(remote: Self.browser, local: nil))
        #expect(agent.nextTimeout() == .ms(31_000))
        _ = agent.handle(stun: Self.check()[...], from: Self.browser, at: .ms(5_000))
        #expect(agent.nextTimeout() == .ms(35_000), "a consent check without USE-CANDIDATE refreshes")
        _ = agent.handle(stun: Self.check()[...], from: Self.otherBrowserAddress, at: .ms(6_000))
        _ = agent.handle(stun: Self.check(key: STUNMessage.shortTermKey(password: "wrong"))[...], from: Self.browser, at: .ms(7_000))
        #expect(agent.nextTimeout() == .ms(35_000), "neither another address nor a forged check refreshes")

        agent.handleTimeout(at: .ms(35_000) - .nanoseconds(1))
        #expect(agent.pollEvent() == nil)
        #expect(!agent.isClosed)
        agent.handleTimeout(at: .ms(35_000))
        #expect(agent.pollEvent() == .consentLost(remote: Self.browser))
        #expect(agent.isClosed)
        #expect(agent.nextTimeout() == nil)
        #expect(agent.handle(stun: Self.check(useCandidate: true)[...], from: Self.browser, at: .ms(35_001)) == nil, "closed")
        #expect(agent.pollEvent() == nil)
    }

    /// A late check finds consent already gone: the deadline is applied before the datagram.
    @Test func lateCheckDoesNotRevive() {
        var agent = Self.agent()
        _ = agent.handle(stun: Self.check(useCandidate: true)[...], from: Self.browser, at: .ms(0))
        #expect(agent.handle(stun: Self.check()[...], from: Self.browser, at: .ms(30_000)) == nil)
        #expect(agent.pollEvent() == .selected(remote: Self.browser, local: nil))
        #expect(agent.pollEvent() == .consentLost(remote: Self.browser))
    }

    /// Never nominated: expired 30 s after the start, however many checks arrived without USE-CANDIDATE.
    @Test func expiresWithoutNomination() {
        var agent = Self.agent(at: .ms(500))
        for t in stride(from: Int64(1_000), to: 30_000, by: 2_500) {
            #expect(agent.handle(stun: Self.check()[...], from: Self.browser, at: .ms(t)) != nil)
        }
        #expect(agent.nextTimeout() == .ms(30_500))
        agent.handleTimeout(at: .ms(30_499))
        #expect(agent.pollEvent() == nil)
        agent.handleTimeout(at: .ms(30_500))
        #expect(agent.pollEvent() == .expired)
        #expect(agent.isClosed)
    }
}

@Suite struct ICECredentialsTests {
    @Test func randomCredentials() throws {
        var random = SeededGenerator(seed: 7)
        let a = ICECredentials.random(using: &random)
        #expect(a.ufrag.count == 8)
        #expect(a.pwd.count == 24)
        let iceChars = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        #expect(a.ufrag.allSatisfy(iceChars.contains) && a.pwd.allSatisfy(iceChars.contains))
        #expect(try ICECredentials(ufrag: a.ufrag, pwd: a.pwd) == a)
        var again = SeededGenerator(seed: 7)
        #expect(ICECredentials.random(using: &again) == a, "the same generator, the same credentials")
        #expect(ICECredentials.random(using: &random) != a)
        // Over many draws every one of the 64 characters turns up (a biased or short alphabet would not).
        var seen = Set<Character>()
        for _ in 0..<200 { seen.formUnion(ICECredentials.random(using: &random).pwd) }
        #expect(seen == iceChars)
    }

    @Test(arguments: [
        ("abc", "0123456789012345678901", "ufrag of 3"),
        ("abcd", "012345678901234567890", "pwd of 21"),
        ("ab:d", "0123456789012345678901", "ufrag with a colon"),
        ("abcd", "01234567890123456789-1", "pwd with a dash"),
        ("abcé", "0123456789012345678901", "non-ASCII letter"),
        (String(repeating: "a", count: 257), "0123456789012345678901", "ufrag of 257"),
    ])
    func refused(_ ufrag: String, _ pwd: String, _ why: String) {
        #expect(throws: WebRTCError.self, "\(why)") { try ICECredentials(ufrag: ufrag, pwd: pwd) }
    }

    @Test func accepted() throws {
        _ = try ICECredentials(ufrag: "a+/9", pwd: "0123456789012345678901")
        _ = try ICECredentials(ufrag: String(repeating: "Z", count: 256), pwd: String(repeating: "/", count: 256))
    }
}
