import MediaCore

/// rtenc's side of ICE when it publishes over WHIP: a full ICE agent in the controlling role (RFC 8445), one data
/// stream, one component (BUNDLE + rtcp-mux), host candidates only.
///
/// - Checklist (§6.1.2): every local host candidate paired with every remote UDP candidate of the same address
///   family, ordered by pair priority (§6.1.2.3), one pair per foundation Waiting and the rest Frozen (§6.1.2.6).
/// - Checks (§6.1.4.2, §14): a new check every Ta = 50 ms at most — triggered checks first, then the
///   highest-priority Waiting pair, then unfreezing — each retransmitted on an RTO of 250 ms that doubles up to 8 s,
///   7 transmissions in all (RFC 8489 §6.2.1's Rc), the pair failing one last RTO after the last.
/// - The peer's checks are answered and trigger a check of their pair (§7.3.1.4); a source the agent does not know
///   becomes a peer-reflexive remote candidate (§7.3.1.3).
/// - Regular nomination (§8.1.1): the first pair to succeed is checked again with USE-CANDIDATE; when that check
///   succeeds the pair is selected (`ICEEvent.selected`) and the other checks stop.
/// - Role conflicts (§7.3.1.1, §7.2.5.1) are settled by the tie-breakers; the agent can end up controlled, and then
///   selects the pair the peer nominates.
/// - Consent (RFC 7675): on the selected pair a Binding request every 4–6 s (uniformly random); consent is lost 30 s
///   after the last authenticated success response.
///
/// Sans-IO like `ICELiteAgent`: feed `handle(stun:from:to:at:)`, call `handleTimeout(at:)` when `nextTimeout()`
/// passes, drain `pollTransmit()` and `pollEvent()` after each call.
public struct ICEControllingAgent: Sendable {
    public struct Configuration: Sendable {
        public var local: ICECredentials
        /// From the answer's `a=ice-ufrag`/`a=ice-pwd`.
        public var remote: ICECredentials
        /// The addresses rtenc's sockets are bound to: its host candidates, the first preferred.
        public var localAddresses: [TransportAddress]
        /// The answer's `a=candidate` lines. TCP candidates, components other than 1 and names (mDNS) are left out.
        public var remoteCandidates: [ICECandidate]
        /// Ta (RFC 8445 §14.2): the least time between two new checks.
        public var pacing: Duration = .milliseconds(50)
        /// The first retransmission timeout; it doubles after each transmission up to `maxRTO`.
        public var initialRTO: Duration = .milliseconds(250)
        public var maxRTO: Duration = .seconds(8)
        /// Transmissions of one check, the first included (RFC 8489 §6.2.1: Rc = 7).
        public var maxTransmissions = 7
        /// RFC 7675 §5.1: a consent check every 5 s ± 20 %, drawn uniformly.
        public var consentInterval: ClosedRange<Duration> = .seconds(4) ... .seconds(6)
        public var consentTimeout: Duration = .seconds(30)
        /// How long the agent may try before it gives up without a selected pair.
        public var connectTimeout: Duration = .seconds(30)

        public init(local: ICECredentials, remote: ICECredentials, localAddresses: [TransportAddress], remoteCandidates: [ICECandidate]) {
            self.local = local
            self.remote = remote
            self.localAddresses = localAddresses
            self.remoteCandidates = remoteCandidates
        }
    }

    /// The most pairs the checklist holds (RFC 8445 §6.1.2.5 asks for a limit; 100 is its suggestion).
    public static let maxPairs = 100

    public let configuration: Configuration
    /// rtenc's host candidates, for the offer's `a=candidate` lines (local preference falls with the list order).
    public let localCandidates: [ICECandidate]
    /// Remote candidates the agent cannot use (not UDP, not component 1, an mDNS name, no local address of their
    /// family): kept so the caller can say why.
    public private(set) var ignoredRemoteCandidates: [ICECandidate] = []
    /// True while this agent is the controlling one; a role conflict can hand the role to the peer.
    public internal(set) var isControlling = true
    /// The 64-bit tie-breaker sent in ICE-CONTROLLING/ICE-CONTROLLED (RFC 8445 §16.1).
    public let tieBreaker: UInt64
    /// The pair media uses, once selected.
    public internal(set) var selected: (local: TransportAddress, remote: TransportAddress)?
    public internal(set) var isClosed = false

    // State shared with the +Input and +Checks files (internal, not part of the API).
    let crypto: any STUNCrypto
    var random: any RandomNumberGenerator & Sendable
    let localKey: [UInt8]
    let remoteKey: [UInt8]
    let startedAt: Instant
    var pairs: [ICECandidatePair] = []
    /// Indices into `pairs`, oldest first (§6.1.4.1's triggered-check queue).
    var triggered: [Int] = []
    var transactions: [Transaction] = []
    var nextCheckAt: Instant
    /// The pair a USE-CANDIDATE check is out for.
    var nominating: Int?
    var lastConsent: Instant
    var nextConsentAt: Instant
    var transmits: [ICETransmit] = []
    var events: [ICEEvent] = []

    struct Transaction: Sendable {
        enum Purpose: Sendable { case check(nominating: Bool), consent }
        let id: STUNTransactionID
        let pair: Int
        let purpose: Purpose
        /// The role the request claimed: a 487 makes the agent take the other one (§7.2.5.1).
        let sentAsControlling: Bool
        let datagram: [UInt8]
        var transmissions = 1
        var nextAt: Instant
        /// A triggered check replaced it (§7.3.1.4): no more retransmissions and no failure on timeout, but a
        /// response still counts.
        var cancelled = false
    }

    public init(
        configuration: Configuration, startedAt now: Instant, random: some RandomNumberGenerator & Sendable,
        crypto: any STUNCrypto = STUNSoftwareCrypto()
    ) {
        self.configuration = configuration
        self.crypto = crypto
        var random = random
        tieBreaker = random.next()
        self.random = random
        localKey = STUNMessage.shortTermKey(password: configuration.local.pwd)
        remoteKey = STUNMessage.shortTermKey(password: configuration.remote.pwd)
        startedAt = now
        nextCheckAt = now
        lastConsent = now
        nextConsentAt = now
        localCandidates = configuration.localAddresses.enumerated().map { index, address in
            ICECandidate(host: address, localPreference: UInt16(clamping: 65535 - index))
        }
        for candidate in configuration.remoteCandidates { addRemoteCandidate(candidate) }
        // §6.1.2.6: of each foundation, the highest-priority pair starts Waiting, the others Frozen (`addPair` went by
        // the order of the answer's lines).
        for foundation in Set(pairs.map(\.foundation)) {
            let group = pairs.indices.filter { pairs[$0].foundation == foundation }
            let first = group.max { pairs[$0].priority(weAreControlling: true) < pairs[$1].priority(weAreControlling: true) }
            for p in group { pairs[p].state = p == first ? .waiting : .frozen }
        }
        service(at: now)
    }

    /// A remote candidate learnt later (trickle ICE): paired with every local candidate of its family. One that
    /// pairs with none (TCP, another component, an mDNS name, an address family rtenc has no socket for, a full
    /// checklist) goes to `ignoredRemoteCandidates`.
    public mutating func addRemoteCandidate(_ candidate: ICECandidate) {
        var paired = false
        if candidate.isUDP, candidate.component == 1, let remote = candidate.transportAddress {
            for local in localCandidates {
                let pair = addPair(local: local, remote: remote, remotePriority: candidate.priority, remoteFoundation: candidate.foundation)
                paired = paired || pair != nil
            }
        }
        if !paired { ignoredRemoteCandidates.append(candidate) }
    }

    /// Adds the pair unless the checklist has it or is full; returns its index.
    mutating func addPair(local: ICECandidate, remote: TransportAddress, remotePriority: UInt32, remoteFoundation: String) -> Int? {
        guard let localAddress = local.transportAddress, localAddress.ip.isIPv4 == remote.ip.isIPv4 else { return nil }
        if let existing = pairs.firstIndex(where: { $0.local == localAddress && $0.remote == remote }) { return existing }
        guard pairs.count < Self.maxPairs else { return nil }
        var pair = ICECandidatePair(
            local: localAddress, localPriority: local.priority, remote: remote, remotePriority: remotePriority,
            foundation: local.foundation + ":" + remoteFoundation)
        // One Waiting pair per foundation, the rest Frozen (§6.1.2.6); a later pair of a foundation that already
        // succeeded can go straight to Waiting (§7.2.5.3.3).
        let sameFoundation = pairs.filter { $0.foundation == pair.foundation }
        pair.state = sameFoundation.allSatisfy({ $0.state == .frozen || $0.state == .failed })
            || sameFoundation.contains(where: { $0.state == .succeeded }) ? .waiting : .frozen
        pairs.append(pair)
        return pairs.count - 1
    }

    // MARK: - Output

    public mutating func handleTimeout(at now: Instant) { service(at: now) }

    /// When `handleTimeout(at:)` next has something to do; nil once closed.
    public func nextTimeout() -> Instant? {
        guard !isClosed else { return nil }
        var next: Instant
        if selected != nil {
            next = min(lastConsent + configuration.consentTimeout, nextConsentAt)
        } else {
            next = startedAt + configuration.connectTimeout
            if hasCheckToSend { next = min(next, nextCheckAt) }
        }
        for transaction in transactions {
            let due = if case .consent = transaction.purpose { transaction.nextAt + configuration.consentTimeout } else { transaction.nextAt }
            next = min(next, due)
        }
        return next
    }

    public mutating func pollTransmit() -> ICETransmit? { transmits.isEmpty ? nil : transmits.removeFirst() }

    public mutating func pollEvent() -> ICEEvent? { events.isEmpty ? nil : events.removeFirst() }
}
