import DTLS
import Glibc
import MediaCore
import NetworkEmulator
import Testing

/// A lossy datagram shim between two endpoints: each datagram is dropped, duplicated or held back to arrive after the
/// next one, as a seeded generator decides, so a run can be repeated.
struct LossyShim {
    var random: SeededGenerator
    var drop = 0.0
    var duplicate = 0.0
    var reorder = 0.0
    /// Datagrams dropped whatever the generator says: to this receiver, matching, up to `budget` of them.
    var forcedDrop: (to: Int, matches: ([UInt8]) -> Bool, budget: Int)?
    private(set) var dropped = 0
    private(set) var duplicated = 0
    private(set) var reordered = 0
    /// The largest datagram either side sent.
    private(set) var largest = 0
    /// Datagrams on the way: (index of the receiving endpoint, bytes).
    private var inFlight: [(to: Int, bytes: [UInt8])] = []
    private var heldBack: [(to: Int, bytes: [UInt8])] = []

    init(seed: UInt64, drop: Double = 0, duplicate: Double = 0, reorder: Double = 0) {
        random = SeededGenerator(seed: seed)
        self.drop = drop
        self.duplicate = duplicate
        self.reorder = reorder
    }

    mutating func send(_ datagram: [UInt8], to receiver: Int) {
        largest = max(largest, datagram.count)
        if let rule = forcedDrop, rule.budget > 0, rule.to == receiver, rule.matches(datagram) {
            forcedDrop?.budget -= 1
            dropped += 1
            return
        }
        if random.chance(drop) {
            dropped += 1
            return
        }
        if random.chance(reorder) {
            reordered += 1
            heldBack.append((receiver, datagram))
            return
        }
        inFlight.append((receiver, datagram))
        if random.chance(duplicate) {
            duplicated += 1
            inFlight.append((receiver, datagram))
        }
    }

    /// What arrives now: the datagrams sent, then the ones held back (so they land after a later one).
    mutating func deliver() -> [(to: Int, bytes: [UInt8])] {
        let arriving = inFlight + heldBack
        inFlight.removeAll()
        heldBack.removeAll()
        return arriving
    }
}

/// Two endpoints made for each other (each knows the other's fingerprint), run through a `LossyShim` on a manual
/// clock. OpenSSL's retransmission timer runs on the real clock (see `DTLSEndpoint`), so when both sides wait for
/// a timer the driver sleeps as long as it advances the manual clock; short timers keep that to milliseconds.
final class DTLSPair {
    static let fastTimers = DTLSEndpointConfiguration(
        initialRetransmissionTimeout: .milliseconds(40), maximumRetransmissionTimeout: .milliseconds(320))

    let endpoints: [DTLSEndpoint]
    let clock = ManualClock(start: Instant(nanoseconds: 1_000_000_000))
    var shim: LossyShim
    private(set) var events: [[DTLSEvent]] = [[], []]
    private(set) var timerWaits = 0

    /// `roles[0]` is the first endpoint's role; the second takes the other.
    init(firstRole: DTLSRole = .client, shim: LossyShim = LossyShim(seed: 1), wrongFingerprintAt wrong: Int? = nil,
         configuration: DTLSEndpointConfiguration = DTLSPair.fastTimers) throws {
        let certificates = [try DTLSCertificate(commonName: "first"), try DTLSCertificate(commonName: "second")]
        let stranger = try DTLSCertificate(commonName: "stranger")
        endpoints = try [0, 1].map { index in
            let expected = index == wrong ? stranger.fingerprint : certificates[1 - index].fingerprint
            return try DTLSEndpoint(
                role: index == 0 ? firstRole : firstRole.peer, certificate: certificates[index],
                remoteFingerprint: expected, configuration: configuration)
        }
        self.shim = shim
    }

    var connections: [DTLSConnection?] {
        events.map { list in
            list.lazy.compactMap { if case .connected(let connection) = $0 { connection } else { nil } }.first
        }
    }

    var failures: [DTLSError?] {
        events.map { list in list.lazy.compactMap { if case .failed(let error) = $0 { error } else { nil } }.first }
    }

    /// Moves datagrams and timers until `done` holds, nothing more can happen, or `limit` of virtual time passed.
    /// Returns whether `done` held.
    @discardableResult
    func run(limit: Duration = .seconds(20), until done: (DTLSPair) -> Bool) throws -> Bool {
        let start = clock.now
        for endpoint in endpoints { endpoint.start(at: clock.now) }
        while clock.now - start < limit {
            var moved = false
            for (index, endpoint) in endpoints.enumerated() {
                while let datagram = endpoint.pollTransmit() {
                    shim.send(datagram, to: 1 - index)
                    moved = true
                }
            }
            for (receiver, datagram) in shim.deliver() {
                moved = true
                // A datagram for an endpoint that has already failed or closed is dropped, as a transport would.
                let endpoint = endpoints[receiver]
                if endpoint.state != .failed, endpoint.state != .closed {
                    try endpoint.handle(datagram: datagram, at: clock.now)
                }
            }
            drainEvents()
            if done(self) { return true }
            if moved { continue }
            // Quiet: both wait for a timer.
            guard let due = endpoints.compactMap({ $0.nextTimeout() }).min() else { return done(self) }
            let wait = due - clock.now
            if wait > .zero {
                sleepReal(wait)
                _ = clock.advance(to: due)
            }
            timerWaits += 1
            for endpoint in endpoints { endpoint.handleTimeout(at: clock.now) }
            drainEvents()
        }
        return done(self)
    }

    func drainEvents() {
        for (index, endpoint) in endpoints.enumerated() {
            while let event = endpoint.pollEvent() { events[index].append(event) }
        }
    }

    static func bothConnected(_ pair: DTLSPair) -> Bool { pair.connections.allSatisfy { $0 != nil } }
}

/// Real time, for OpenSSL's timer: the driver's virtual clock moves by as much.
func sleepReal(_ duration: Duration) {
    var request = timespec(tv_sec: Int(duration.components.seconds), tv_nsec: Int(duration.components.attoseconds / 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
}
