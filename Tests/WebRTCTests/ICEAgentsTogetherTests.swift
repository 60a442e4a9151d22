import MediaCore
import NetworkEmulator
import Testing
import WebRTC

/// rtenc publishing (controlling, full ICE) to rtenc serving (ICE-lite), through an in-memory network on a manual
/// clock: datagrams arrive `latency` after they are sent, and `drop` may lose any of them.
@Suite struct ICEAgentsTogetherTests {
    static let publisherAddress = address("10.0.0.1:5000")
    static let serverAddress = address("10.0.0.2:8189")

    struct Network {
        var controlling: ICEControllingAgent
        var lite: ICELiteAgent
        var now = Instant.zero
        /// (arrival, to the lite agent?, datagram, from, to)
        var inFlight: [(at: Instant, toLite: Bool, datagram: [UInt8], from: TransportAddress, to: TransportAddress)] = []
        var controllingEvents: [(Instant, ICEEvent)] = []
        var liteEvents: [(Instant, ICEEvent)] = []
        var delivered = 0
        var dropped = 0

        mutating func drain(latency: Duration, drop: (Int) -> Bool) {
            while let transmit = controlling.pollTransmit() {
                let index = delivered + dropped
                if drop(index) { dropped += 1; continue }
                delivered += 1
                inFlight.append((now + latency, true, transmit.datagram, transmit.source, transmit.destination))
            }
            while let event = controlling.pollEvent() { controllingEvents.append((now, event)) }
            while let event = lite.pollEvent() { liteEvents.append((now, event)) }
        }

        /// Runs until `end`: the earliest of the agents' timeouts and the arrivals, in order.
        mutating func run(until end: Instant, latency: Duration = .milliseconds(5), cut: Instant? = nil, drop: (Int) -> Bool = { _ in false }) {
            drain(latency: latency, drop: drop)
            var steps = 0
            while true {
                // A timeout that does nothing would spin here: a bound turns that bug into a failure, not a hang.
                steps += 1
                guard steps <= 10_000 else {
                    Issue.record("no progress at \(now)")
                    break
                }
                let arrival = inFlight.map(\.at).min()
                let next = [controlling.nextTimeout(), lite.nextTimeout(), arrival].compactMap { $0 }.min()
                guard let next, next <= end else { break }
                now = next
                if let i = inFlight.firstIndex(where: { $0.at == next }) {
                    let packet = inFlight.remove(at: i)
                    if let cut, now >= cut {
                        // The link is down: nothing arrives any more.
                    } else if packet.toLite {
                        if let response = lite.handle(stun: packet.datagram[...], from: packet.from, at: now) {
                            inFlight.append((now + latency, false, response, packet.to, packet.from))
                        }
                    } else {
                        controlling.handle(stun: packet.datagram[...], from: packet.from, to: packet.to, at: now)
                    }
                } else {
                    controlling.handleTimeout(at: now)
                    lite.handleTimeout(at: now)
                }
                drain(latency: latency, drop: drop)
            }
        }
    }

    static func network(seed: UInt64 = 11) throws -> Network {
        var random = SeededGenerator(seed: seed)
        let serverCredentials = ICECredentials.random(using: &random)
        let publisherCredentials = ICECredentials.random(using: &random)
        let lite = ICELiteAgent(configuration: .init(local: serverCredentials, remoteUfrag: publisherCredentials.ufrag), startedAt: .zero)
        // What the WHIP answer would carry: the server's credentials and its one host candidate.
        let candidate = try ICECandidate(parsing: "a=candidate:1 1 udp 2130706431 \(serverAddress.ip) \(serverAddress.port) typ host")
        let controlling = ICEControllingAgent(
            configuration: .init(local: publisherCredentials, remote: serverCredentials, localAddresses: [publisherAddress],
                                 remoteCandidates: [candidate]),
            startedAt: .zero, random: random)
        return Network(controlling: controlling, lite: lite)
    }

    @Test func reachANominatedPair() throws {
        var net = try Self.network()
        net.run(until: .seconds(1))
        #expect(net.controllingEvents.map(\.1) == [.selected(remote: Self.serverAddress, local: Self.publisherAddress)])
        #expect(net.liteEvents.map(\.1) == [.selected(remote: Self.publisherAddress, local: nil)])
        // Check (0 ms) → response (10 ms) → nomination at the next Ta (50 ms) → response (60 ms).
        #expect(net.liteEvents.first?.0 == .ms(55))
        #expect(net.controllingEvents.first?.0 == .ms(60))
        #expect(net.dropped == 0 && net.delivered == 2)
    }

    /// Consent checks every 4–6 s keep both sides alive for minutes; when the link goes down both lose consent 30 s
    /// after the last check (lite) or response (controlling) got through.
    @Test func consentKeepsAliveThenLapses() throws {
        var net = try Self.network()
        let cut = Instant.seconds(120)
        net.run(until: .seconds(400), cut: cut)
        let liteLost = try #require(net.liteEvents.first { if case .consentLost = $0.1 { true } else { false } })
        let controllingLost = try #require(net.controllingEvents.first { if case .consentLost = $0.1 { true } else { false } })
        #expect(liteLost.0 > cut + .seconds(24) && liteLost.0 <= cut + .seconds(30), "30 s after the last check before the cut")
        #expect(controllingLost.0 > cut + .seconds(24) && controllingLost.0 <= cut + .seconds(30))
        #expect(net.liteEvents.count == 2 && net.controllingEvents.count == 2, "selected, then consent lost; nothing else")
        #expect(net.lite.isClosed && net.controlling.isClosed)
        // A consent check every 4–6 s until consent ran out (about 150 s), plus the check and the nomination.
        #expect((25...40).contains(net.delivered), "\(net.delivered) datagrams sent")
    }

    /// The first three datagrams are lost: retransmission (250, 500, 1000 ms) gets through.
    @Test func recoversFromLoss() throws {
        var net = try Self.network()
        net.run(until: .seconds(5), drop: { $0 < 3 })
        #expect(net.controllingEvents.map(\.1) == [.selected(remote: Self.serverAddress, local: Self.publisherAddress)])
        #expect(net.liteEvents.map(\.1) == [.selected(remote: Self.publisherAddress, local: nil)])
        // The 4th transmission (1750 ms) gets through; its response (1760 ms) finds Ta long passed, so the nomination
        // goes at once and its response arrives at 1770 ms.
        #expect(net.controllingEvents.first!.0 == .ms(1_770))
    }

}

extension Instant {
    static func seconds(_ s: Int64) -> Instant { .ms(s * 1_000) }
}
