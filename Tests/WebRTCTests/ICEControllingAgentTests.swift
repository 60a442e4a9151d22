import MediaCore
import NetworkEmulator
import Testing
import WebRTC

@Suite struct ICEControllingAgentTests {
    static let local = try! ICECredentials(ufrag: "rtnc", pwd: "Local+password/0123456789")
    static let remote = try! ICECredentials(ufrag: "srvr", pwd: "Remote+password/0123456789")
    static let localKey = STUNMessage.shortTermKey(password: local.pwd)
    static let remoteKey = STUNMessage.shortTermKey(password: remote.pwd)
    static let me = address("10.0.0.1:5000")

    static func candidates(_ lines: [String]) -> [ICECandidate] { lines.map { try! ICECandidate(parsing: $0) } }

    /// Three remote host candidates of different foundations and priorities (and one rtenc cannot use).
    static let threeRemotes = candidates([
        "a=candidate:1 1 udp 2130706431 10.0.0.2 6000 typ host",
        "a=candidate:2 1 udp 2130706175 10.0.0.3 6000 typ host",
        "a=candidate:3 1 udp 1694498815 198.51.100.9 7000 typ srflx raddr 10.0.0.9 rport 7000",
        "a=candidate:4 1 tcp 1518280447 10.0.0.2 9 typ host tcptype active",
    ])

    static func agent(remotes: [ICECandidate] = threeRemotes, locals: [TransportAddress] = [me], seed: UInt64 = 1) -> ICEControllingAgent {
        ICEControllingAgent(
            configuration: .init(local: local, remote: remote, localAddresses: locals, remoteCandidates: remotes),
            startedAt: .zero, random: SeededGenerator(seed: seed))
    }

    struct Sent {
        let at: Instant
        let transmit: ICETransmit
        let message: STUNMessage
    }

    /// Runs the agent alone on a manual clock until `end`: at each `nextTimeout()` it lets time pass and collects what
    /// the agent sends; `reply` may answer a request (its response is fed back at the same instant).
    static func run(
        _ agent: inout ICEControllingAgent, until end: Instant, reply: (Sent) -> [UInt8]? = { _ in nil }
    ) -> [Sent] {
        var sent: [Sent] = []
        var now = Instant.zero
        func drain(_ agent: inout ICEControllingAgent) {
            while let transmit = agent.pollTransmit() {
                let message = try! STUNReceivedMessage(parsing: transmit.datagram[...]).message
                let s = Sent(at: now, transmit: transmit, message: message)
                sent.append(s)
                if let response = reply(s) {
                    agent.handle(stun: response[...], from: transmit.destination, to: transmit.source, at: now)
                }
            }
        }
        drain(&agent)
        var steps = 0
        while let next = agent.nextTimeout(), next <= end {
            // A timeout that does nothing would spin here: a bound turns that bug into a failure, not a hang.
            steps += 1
            guard steps <= 10_000 else {
                Issue.record("no progress at \(next)")
                break
            }
            now = max(now, next)
            agent.handleTimeout(at: now)
            drain(&agent)
        }
        return sent
    }

    static func success(to request: STUNMessage, mapped: TransportAddress, key: [UInt8] = remoteKey) -> [UInt8] {
        try! STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: [.xorMappedAddress(mapped)])
            .serialized(integrityKey: key, fingerprint: true)
    }

    // MARK: - Checklist

    @Test func pairsAndPriorities() {
        let agent = Self.agent()
        #expect(agent.ignoredRemoteCandidates.map(\.foundation) == ["4"], "TCP is not paired")
        #expect(agent.localCandidates.count == 1)
        #expect(agent.localCandidates[0].priority == 2_130_706_431, "host, local preference 65535, component 1")
        #expect(agent.localCandidates[0].kind == .host)
    }

    /// Two remote candidates of one foundation: the higher-priority pair is checked first, the other stays Frozen
    /// until the first succeeds (RFC 8445 §6.1.2.6, §7.2.5.3.3).
    @Test func frozenUntilTheFoundationSucceeds() throws {
        var agent = Self.agent(remotes: Self.candidates([
            "candidate:7 1 udp 2130706175 10.0.0.2 6001 typ host",  // lower priority, listed first
            "candidate:7 1 udp 2130706431 10.0.0.2 6000 typ host",
        ]))
        let first = try required(agent.pollTransmit())
        #expect(first.destination == address("10.0.0.2:6000"))
        agent.handleTimeout(at: .ms(50))
        #expect(agent.pollTransmit() == nil, "the other pair of the foundation is Frozen")
        #expect(agent.nextTimeout() == .ms(250), "only the retransmission is due")
        let request = try STUNReceivedMessage(parsing: first.datagram[...]).message
        agent.handle(stun: Self.success(to: request, mapped: Self.me)[...], from: first.destination, to: Self.me, at: .ms(60))
        agent.handleTimeout(at: .ms(100))
        let nomination = try STUNReceivedMessage(parsing: try required(agent.pollTransmit()).datagram[...]).message
        #expect(nomination.useCandidate, "nomination first")
        agent.handleTimeout(at: .ms(150))
        #expect(try required(agent.pollTransmit()).destination == address("10.0.0.2:6001"), "then the unfrozen pair")
    }

    /// Candidates rtenc cannot pair are set aside, not checked; a candidate trickled in later is.
    @Test func unusableAndTrickledCandidates() throws {
        var agent = Self.agent(remotes: Self.candidates([
            "candidate:1 1 udp 2113937151 6c8f5a8e-7b4a-4a4f-9e61-3f1e7d0c9a2b.local 54321 typ host",
            "candidate:2 2 udp 2130706430 10.0.0.2 6001 typ host",
            "candidate:3 1 udp 2130706431 2001:db8::2 6000 typ host",
        ]))
        #expect(agent.ignoredRemoteCandidates.map(\.foundation) == ["1", "2", "3"], "mDNS, component 2, IPv6 without an IPv6 socket")
        #expect(agent.pollTransmit() == nil)
        #expect(agent.nextTimeout() == .seconds(30), "nothing to check: only the connect deadline")
        agent.addRemoteCandidate(try ICECandidate(parsing: "candidate:4 1 udp 2130706431 10.0.0.2 6000 typ host"))
        agent.handleTimeout(at: .ms(5))
        #expect(agent.pollTransmit()?.destination == address("10.0.0.2:6000"), "a trickled candidate is checked")
    }

    /// RFC 8445 §6.1.2.3 with the controlling agent's priority G and the controlled one's D.
    static let pairPriorities: [(g: UInt32, d: UInt32, expected: UInt64)] = [
        (2_130_706_431, 2_130_706_431, 0x7EFF_FFFF_FDFF_FFFE),
        (2_130_706_431, 1_694_498_815, 0x64FF_FFFF_FDFF_FFFF),  // 1694498815 << 32 + 2 × 2130706431 + 1
        (1_694_498_815, 2_130_706_431, 0x64FF_FFFF_FDFF_FFFE),
        (1, 0, 3),
    ]

    @Test(arguments: pairPriorities)
    func pairPriority(_ c: (g: UInt32, d: UInt32, expected: UInt64)) {
        let (g, d, expected) = c
        #expect(ICECandidate.priority(kind: .host, localPreference: 65535) == 2_130_706_431)
        #expect(ICECandidate.priority(kind: .srflx, localPreference: 65535) == 1_694_498_815)
        #expect(ICECandidate.priority(kind: .prflx, localPreference: 65535) == 1_862_270_975)
        #expect(ICECandidate.priority(kind: .relay, localPreference: 0, component: 2) == 254)
        #expect(ICECandidate.pairPriority(controlling: g, controlled: d) == expected)
    }

    // MARK: - Pacing and retransmission

    /// No responses: first checks paced at Ta = 50 ms in pair-priority order, each retransmitted after 250, 500, 1000,
    /// 2000, 4000 and 8000 ms (7 transmissions), each pair failing 8 s after its last; then `failed`.
    @Test func pacingAndRetransmissionTimeline() {
        var agent = Self.agent()
        let sent = Self.run(&agent, until: .ms(60_000))
        let timeline = sent.map { ($0.at, $0.transmit.destination) }
        let firstTransmissions: [Int64] = [0, 250, 750, 1_750, 3_750, 7_750, 15_750]
        var expected: [(Instant, TransportAddress)] = []
        for (offset, destination) in [(Int64(0), address("10.0.0.2:6000")), (50, address("10.0.0.3:6000")), (100, address("198.51.100.9:7000"))] {
            expected += firstTransmissions.map { (.ms($0 + offset), destination) }
        }
        expected.sort { $0.0 < $1.0 }
        #expect(timeline.map(\.0) == expected.map(\.0))
        #expect(timeline.map(\.1) == expected.map(\.1))
        // Each pair's 7 transmissions are one transaction, byte for byte.
        for destination in Set(timeline.map(\.1)) {
            let bytes = Set(sent.filter { $0.transmit.destination == destination }.map(\.transmit.datagram))
            #expect(bytes.count == 1, "retransmissions repeat the request")
        }
        #expect(agent.pollEvent() == .failed)
        #expect(agent.isClosed)
        #expect(agent.nextTimeout() == nil)
        // The last pair failed at 100 + 15 750 + 8 000 ms.
        #expect(sent.last?.at == .ms(15_850))
    }

    /// A table of (RTO, max RTO, transmissions) settings and the transmission times they give for one pair.
    static let schedules: [(rto: Duration, maxRTO: Duration, transmissions: Int, expected: [Int64])] = [
        (.milliseconds(250), .seconds(8), 7, [0, 250, 750, 1_750, 3_750, 7_750, 15_750]),
        (.milliseconds(100), .milliseconds(300), 5, [0, 100, 300, 600, 900]),
        (.milliseconds(500), .seconds(8), 1, [0]),
    ]

    @Test(arguments: schedules)
    func retransmissionSchedule(_ c: (rto: Duration, maxRTO: Duration, transmissions: Int, expected: [Int64])) {
        let (rto, maxRTO, transmissions, expected) = c
        var configuration = ICEControllingAgent.Configuration(
            local: Self.local, remote: Self.remote, localAddresses: [Self.me],
            remoteCandidates: Self.candidates(["candidate:1 1 UDP 2130706431 10.0.0.2 6000 typ host"]))
        configuration.initialRTO = rto
        configuration.maxRTO = maxRTO
        configuration.maxTransmissions = transmissions
        configuration.connectTimeout = .seconds(120)
        var agent = ICEControllingAgent(configuration: configuration, startedAt: .zero, random: SeededGenerator(seed: 3))
        let sent = Self.run(&agent, until: .seconds(100))
        #expect(sent.map(\.at) == expected.map { .ms($0) })
        #expect(agent.pollEvent() == .failed)
    }

    @Test func checkContents() throws {
        var agent = Self.agent()
        let transmit = try required(agent.pollTransmit())
        #expect(transmit.source == Self.me)
        #expect(transmit.destination == address("10.0.0.2:6000"))
        let received = try STUNReceivedMessage(parsing: transmit.datagram[...])
        let message = received.message
        #expect(message.type == .bindingRequest)
        #expect(message.username == "srvr:rtnc")
        #expect(message.priority == ICECandidate.priority(kind: .prflx, localPreference: 65535))
        #expect(message.iceControlling == agent.tieBreaker)
        #expect(!message.useCandidate)
        #expect(received.hasValidIntegrity(key: Self.remoteKey))
        #expect(received.hasFingerprint)
        #expect(agent.pollTransmit() == nil, "one check per Ta")
        #expect(agent.nextTimeout() == .ms(50))
    }

    // MARK: - Nomination and consent

    /// The first pair to succeed is nominated with USE-CANDIDATE at the next Ta; when that succeeds the pair is
    /// selected, the other checks stop, and consent checks follow every 4–6 s.
    @Test func nominatesTheFirstSucceededPair() throws {
        var agent = Self.agent()
        let answering = address("10.0.0.3:6000")
        let sent = Self.run(&agent, until: .seconds(40)) { s in
            s.transmit.destination == answering ? Self.success(to: s.message, mapped: Self.me) : nil
        }
        #expect(agent.pollEvent() == .selected(remote: answering, local: Self.me))
        #expect(agent.selected?.remote == answering)
        let toAnswering = sent.filter { $0.transmit.destination == answering }
        #expect(toAnswering[0].at == .ms(50) && !toAnswering[0].message.useCandidate, "its ordinary check")
        #expect(toAnswering[1].at == .ms(100) && toAnswering[1].message.useCandidate, "nomination at the next Ta")
        // After selection: nothing to the other pairs; consent requests without USE-CANDIDATE 4–6 s apart.
        let after = sent.filter { $0.at > .ms(100) }
        #expect(after.allSatisfy { $0.transmit.destination == answering && !$0.message.useCandidate })
        let gaps = zip(after.dropFirst(), after).map { $0.at - $1.at }
        #expect(after.count >= 6)
        #expect(after.first.map { $0.at - .ms(100) }.map { $0 >= .seconds(4) && $0 <= .seconds(6) } == true)
        #expect(gaps.allSatisfy { $0 >= .seconds(4) && $0 <= .seconds(6) }, "\(gaps)")
        #expect(Set(gaps).count > 1, "the interval is random")
        #expect(!agent.isClosed, "consent answered")
        #expect(agent.pollEvent() == nil)
    }

    /// Consent is lost 30 s after the last authenticated response; forged responses do not count.
    @Test func consentLost30sAfterLastResponse() throws {
        var agent = Self.agent(remotes: Self.candidates(["candidate:1 1 udp 2130706431 10.0.0.2 6000 typ host"]))
        var lastAnswered = Instant.zero
        let cutoff = Instant.ms(12_000)
        let sent = Self.run(&agent, until: .seconds(100)) { s in
            if s.at <= cutoff {
                lastAnswered = s.at
                return Self.success(to: s.message, mapped: Self.me)
            }
            return Self.success(to: s.message, mapped: Self.me, key: Self.localKey)  // the wrong password: dropped
        }
        #expect(agent.pollEvent() == .selected(remote: address("10.0.0.2:6000"), local: Self.me))
        #expect(agent.pollEvent() == .consentLost(remote: address("10.0.0.2:6000")))
        #expect(agent.isClosed)
        #expect(sent.last!.at < lastAnswered + .seconds(30))
        // Run again, stopping a nanosecond before the deadline: still open.
        var again = Self.agent(remotes: Self.candidates(["candidate:1 1 udp 2130706431 10.0.0.2 6000 typ host"]))
        _ = Self.run(&again, until: lastAnswered + .seconds(30) - .nanoseconds(1)) { s in
            s.at <= cutoff ? Self.success(to: s.message, mapped: Self.me) : nil
        }
        #expect(!again.isClosed)
        #expect(again.nextTimeout() == lastAnswered + .seconds(30))
        again.handleTimeout(at: lastAnswered + .seconds(30))
        _ = again.pollEvent()
        #expect(again.pollEvent() == .consentLost(remote: address("10.0.0.2:6000")))
    }

    @Test func badIntegrityResponseDropped() {
        var agent = Self.agent(remotes: Self.candidates(["candidate:1 1 udp 2130706431 10.0.0.2 6000 typ host"]))
        let sent = Self.run(&agent, until: .seconds(25)) { s in Self.success(to: s.message, mapped: Self.me, key: Self.localKey) }
        #expect(agent.selected == nil)
        #expect(sent.count == 7, "retransmitted as if unanswered")
        #expect(agent.pollEvent() == .failed)
    }

    /// A response from another address than the check went to fails the pair (RFC 8445 §7.2.5.2.1).
    @Test func asymmetricResponseFailsThePair() {
        var agent = Self.agent(remotes: Self.candidates(["candidate:1 1 udp 2130706431 10.0.0.2 6000 typ host"]))
        let check = agent.pollTransmit()!
        let request = try! STUNReceivedMessage(parsing: check.datagram[...]).message
        agent.handle(stun: Self.success(to: request, mapped: Self.me)[...], from: address("10.0.0.2:6001"), at: .ms(10))
        #expect(agent.pollEvent() == .failed)
    }

    // MARK: - The peer's checks

    /// A check from an address rtenc did not know: answered, learnt as peer-reflexive, checked back (triggered), and
    /// — since it succeeds — nominated.
    @Test func triggeredCheckToPeerReflexive() throws {
        var agent = Self.agent(remotes: [])
        #expect(agent.pollTransmit() == nil, "no remote candidates: nothing to check")
        let peer = address("10.9.9.9:40000")
        let check = try STUNMessage(
            type: .bindingRequest, transactionID: STUNTransactionID(bytes: [UInt8](repeating: 5, count: 12))!,
            attributes: [.username("rtnc:srvr"), .priority(1_862_270_975), .iceControlled(tieBreaker: 1)]
        ).serialized(integrityKey: Self.localKey, fingerprint: true)
        agent.handle(stun: check[...], from: peer, to: Self.me, at: .ms(1_000))
        let response = try required(agent.pollTransmit())
        #expect(response.destination == peer && response.source == Self.me)
        let answer = try STUNReceivedMessage(parsing: response.datagram[...])
        #expect(answer.message.type == .bindingSuccess)
        #expect(answer.message.xorMappedAddress == peer)
        #expect(answer.hasValidIntegrity(key: Self.localKey))
        let triggered = try required(agent.pollTransmit())
        #expect(triggered.destination == peer, "the triggered check goes out at once: Ta has long passed")
        let triggeredRequest = try STUNReceivedMessage(parsing: triggered.datagram[...]).message
        agent.handle(stun: Self.success(to: triggeredRequest, mapped: Self.me)[...], from: peer, to: Self.me, at: .ms(1_010))
        #expect(agent.pollTransmit() == nil, "nomination waits for the next Ta")
        #expect(agent.nextTimeout() == .ms(1_050))
        agent.handleTimeout(at: .ms(1_050))
        let nomination = try required(agent.pollTransmit())
        let nominationRequest = try STUNReceivedMessage(parsing: nomination.datagram[...]).message
        #expect(nominationRequest.useCandidate && nomination.destination == peer)
        agent.handle(stun: Self.success(to: nominationRequest, mapped: Self.me)[...], from: peer, to: Self.me, at: .ms(1_060))
        #expect(agent.pollEvent() == .selected(remote: peer, local: Self.me))
    }

    static func peerCheck(role: STUNAttribute, useCandidate: Bool = false) -> [UInt8] {
        var attributes: [STUNAttribute] = [.username("rtnc:srvr"), .priority(2_130_706_431), role]
        if useCandidate { attributes.append(.useCandidate) }
        return try! STUNMessage(type: .bindingRequest, transactionID: STUNTransactionID(bytes: [UInt8](repeating: 6, count: 12))!,
                                attributes: attributes).serialized(integrityKey: localKey, fingerprint: true)
    }

    /// RFC 8445 §7.3.1.1 from the controlling side: the peer also claims controlling; the larger tie-breaker keeps it.
    @Test func roleConflictOnRequest() throws {
        var agent = Self.agent(seed: 1)
        while agent.pollTransmit() != nil {}
        let peer = address("10.0.0.2:6000")
        agent.handle(stun: Self.peerCheck(role: .iceControlling(tieBreaker: agent.tieBreaker - 1))[...], from: peer, to: Self.me, at: .ms(10))
        let refusal = try STUNReceivedMessage(parsing: try required(agent.pollTransmit()).datagram[...])
        #expect(refusal.message.errorCode?.code == 487)
        #expect(refusal.hasValidIntegrity(key: Self.localKey))
        #expect(agent.isControlling)

        agent.handle(stun: Self.peerCheck(role: .iceControlling(tieBreaker: agent.tieBreaker + 1))[...], from: peer, to: Self.me, at: .ms(20))
        let accepted = try STUNReceivedMessage(parsing: try required(agent.pollTransmit()).datagram[...])
        #expect(accepted.message.type == .bindingSuccess)
        #expect(!agent.isControlling, "the peer's tie-breaker is larger: rtenc switches to controlled")
        #expect(agent.pollTransmit() == nil, "the triggered check waits for the next Ta")
        // Controlled now: its checks carry ICE-CONTROLLED, and the peer's nomination selects once the pair succeeds.
        agent.handleTimeout(at: .ms(50))
        let triggered = try required(agent.pollTransmit())
        #expect(triggered.destination == peer, "the triggered check goes before the other Waiting pairs")
        let request = try STUNReceivedMessage(parsing: triggered.datagram[...]).message
        #expect(request.iceControlled == agent.tieBreaker && !request.useCandidate)
        agent.handle(stun: Self.peerCheck(role: .iceControlling(tieBreaker: .max), useCandidate: true)[...], from: peer, to: Self.me, at: .ms(60))
        #expect(agent.pollEvent() == nil, "nominated before its own check succeeded")
        agent.handle(stun: Self.success(to: request, mapped: Self.me)[...], from: peer, to: Self.me, at: .ms(70))
        #expect(agent.pollEvent() == .selected(remote: peer, local: Self.me))
    }

    /// A 487 to rtenc's ICE-CONTROLLING check: rtenc takes the controlled role and checks the pair again.
    @Test func roleConflictResponse() throws {
        var agent = Self.agent(remotes: Self.candidates(["candidate:1 1 udp 2130706431 10.0.0.2 6000 typ host"]))
        let first = try STUNReceivedMessage(parsing: agent.pollTransmit()!.datagram[...]).message
        let conflict = try STUNMessage(type: .bindingError, transactionID: first.transactionID, attributes: [.errorCode(.roleConflict)])
            .serialized(integrityKey: Self.remoteKey, fingerprint: true)
        agent.handle(stun: conflict[...], from: address("10.0.0.2:6000"), to: Self.me, at: .ms(5))
        #expect(!agent.isControlling)
        agent.handleTimeout(at: .ms(50))
        let retry = try STUNReceivedMessage(parsing: try required(agent.pollTransmit()).datagram[...]).message
        #expect(retry.iceControlled == agent.tieBreaker)
        #expect(retry.transactionID != first.transactionID)

        // Controlled now, a peer that claims controlled too: the larger tie-breaker takes the controlling role.
        let peer = address("10.0.0.2:6000")
        agent.handle(stun: Self.peerCheck(role: .iceControlled(tieBreaker: .max))[...], from: peer, to: Self.me, at: .ms(60))
        let refusal = try STUNReceivedMessage(parsing: try required(agent.pollTransmit()).datagram[...])
        #expect(refusal.message.errorCode?.code == 487, "theirs is larger: they must switch")
        #expect(!agent.isControlling)
        agent.handle(stun: Self.peerCheck(role: .iceControlled(tieBreaker: 0))[...], from: peer, to: Self.me, at: .ms(70))
        let accepted = try STUNReceivedMessage(parsing: try required(agent.pollTransmit()).datagram[...])
        #expect(accepted.message.type == .bindingSuccess)
        #expect(agent.isControlling, "ours is larger: rtenc takes the controlling role back")
    }

    @Test func expiresWhenNothingAnswers() {
        var agent = Self.agent(remotes: [])
        #expect(agent.nextTimeout() == .seconds(30))
        agent.handleTimeout(at: .seconds(30))
        #expect(agent.pollEvent() == .expired)
    }
}
