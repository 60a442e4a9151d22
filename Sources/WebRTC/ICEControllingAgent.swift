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
    /// Remote candidates the agent cannot use (not UDP, not component 1, an mDNS name): kept so the caller can say why.
    public private(set) var ignoredRemoteCandidates: [ICECandidate] = []
    /// True while this agent is the controlling one; a role conflict can hand the role to the peer.
    public private(set) var isControlling = true
    /// The 64-bit tie-breaker sent in ICE-CONTROLLING/ICE-CONTROLLED (RFC 8445 §16.1).
    public let tieBreaker: UInt64
    /// The pair media uses, once selected.
    public private(set) var selected: (local: TransportAddress, remote: TransportAddress)?
    public private(set) var isClosed = false

    private let crypto: any STUNCrypto
    private var random: any RandomNumberGenerator & Sendable
    private let localKey: [UInt8]
    private let remoteKey: [UInt8]
    private let startedAt: Instant
    private var pairs: [ICECandidatePair] = []
    /// Indices into `pairs`, oldest first (§6.1.4.1's triggered-check queue).
    private var triggered: [Int] = []
    private var transactions: [Transaction] = []
    private var nextCheckAt: Instant
    /// The pair a USE-CANDIDATE check is out for.
    private var nominating: Int?
    private var lastConsent: Instant
    private var nextConsentAt: Instant
    private var transmits: [ICETransmit] = []
    private var events: [ICEEvent] = []

    private struct Transaction: Sendable {
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
        service(at: now)
    }

    /// A remote candidate learnt later (trickle ICE): paired with every local candidate of its family.
    public mutating func addRemoteCandidate(_ candidate: ICECandidate) {
        guard candidate.isUDP, candidate.component == 1, let remote = candidate.transportAddress else {
            ignoredRemoteCandidates.append(candidate)
            return
        }
        for local in localCandidates {
            _ = addPair(local: local, remote: remote, remotePriority: candidate.priority, remoteFoundation: candidate.foundation)
        }
    }

    /// Adds the pair unless the checklist has it or is full; returns its index.
    private mutating func addPair(local: ICECandidate, remote: TransportAddress, remotePriority: UInt32, remoteFoundation: String) -> Int? {
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

    // MARK: - Input

    /// A STUN datagram from `remote` that arrived on the local address `local` (which socket; nil when there is one
    /// local address). Responses to it are queued for `pollTransmit()`.
    public mutating func handle(stun datagram: ArraySlice<UInt8>, from remote: TransportAddress, to local: TransportAddress? = nil, at now: Instant) {
        service(at: now)
        guard !isClosed, let local = local ?? (configuration.localAddresses.count == 1 ? configuration.localAddresses[0] : nil),
              let localCandidate = localCandidates.first(where: { $0.transportAddress == local })
        else { return }
        if let header = try? STUNReceivedMessage.Header(parsing: datagram), header.type.messageClass == .successResponse || header.type.messageClass == .errorResponse {
            handleResponse(datagram, from: remote, to: local, at: now)
        } else {
            handleRequest(datagram, from: remote, to: localCandidate, at: now)
        }
        service(at: now)
    }

    private mutating func handleRequest(_ datagram: ArraySlice<UInt8>, from remote: TransportAddress, to local: ICECandidate, at now: Instant) {
        let localAddress = local.transportAddress!  // local candidates are made from addresses
        let verdict = ICERequestCheck.verdict(
            datagram: datagram, local: configuration.local, localKey: localKey, remoteUfrag: configuration.remote.ufrag,
            crypto: crypto)
        let request: STUNMessage
        switch verdict {
        case .drop: return
        case .reject(let response):
            transmits.append(ICETransmit(datagram: response, source: localAddress, destination: remote))
            return
        case .accept(let message): request = message
        }
        // §7.3.1.1: settle a role conflict by the tie-breakers.
        if isControlling, let theirs = request.iceControlling {
            if tieBreaker >= theirs {
                transmits.append(ICETransmit(
                    datagram: ICERequestCheck.errorResponse(.roleConflict, transactionID: request.transactionID, key: localKey, crypto: crypto),
                    source: localAddress, destination: remote))
                return
            }
            switchRole()
        } else if !isControlling, let theirs = request.iceControlled {
            if tieBreaker < theirs {
                transmits.append(ICETransmit(
                    datagram: ICERequestCheck.errorResponse(.roleConflict, transactionID: request.transactionID, key: localKey, crypto: crypto),
                    source: localAddress, destination: remote))
                return
            }
            switchRole()
        }
        transmits.append(ICETransmit(
            datagram: ICERequestCheck.successResponse(to: request, source: remote, key: localKey, crypto: crypto),
            source: localAddress, destination: remote))
        guard selected == nil else { return }

        // §7.3.1.3: a source that is no remote candidate is a peer-reflexive one, with the PRIORITY of the check.
        let index: Int
        if let known = pairs.firstIndex(where: { $0.local == localAddress && $0.remote == remote }) {
            index = known
        } else {
            let priority = request.priority ?? ICECandidate.priority(kind: .prflx, localPreference: 65535)
            let foundation = ICECandidate.foundation(kind: .prflx, base: remote.ip)
            guard let added = addPair(local: local, remote: remote, remotePriority: priority, remoteFoundation: foundation) else { return }
            index = added
        }
        // §7.3.1.5: the controlled agent selects the pair the controlling one nominates.
        if !isControlling, request.useCandidate {
            if pairs[index].state == .succeeded {
                select(index, at: now)
                return
            }
            pairs[index].nominateOnSuccess = true
        }
        // §7.3.1.4: a triggered check of the pair.
        switch pairs[index].state {
        case .succeeded: return
        case .inProgress:
            for t in transactions.indices where transactions[t].pair == index { transactions[t].cancelled = true }
        case .frozen, .waiting, .failed: break
        }
        pairs[index].state = .waiting
        if !triggered.contains(index) { triggered.append(index) }
    }

    private mutating func handleResponse(_ datagram: ArraySlice<UInt8>, from remote: TransportAddress, to local: TransportAddress, at now: Instant) {
        guard let received = try? STUNReceivedMessage(parsing: datagram, crypto: crypto),
              let t = transactions.firstIndex(where: { $0.id == received.message.transactionID }),
              received.hasValidIntegrity(key: remoteKey, crypto: crypto)
        else { return }  // unknown transactions and bad integrity are dropped (RFC 8445 §7.2.5.1)
        let transaction = transactions.remove(at: t)
        let index = transaction.pair
        // §7.2.5.2.1: a response from elsewhere than the request went to fails the pair.
        guard remote == pairs[index].remote, local == pairs[index].local else {
            if case .check = transaction.purpose { fail(index) }
            return
        }
        switch (received.message.type.messageClass, transaction.purpose) {
        case (.successResponse, .consent):
            lastConsent = now
        case (.successResponse, .check(let nominating)):
            for other in transactions.indices.reversed() where transactions[other].pair == index { transactions.remove(at: other) }
            // Local peer-reflexive candidates (XOR-MAPPED-ADDRESS ≠ local) would send from the same socket: the pair
            // as checked is the valid pair (§7.2.5.3.2).
            pairs[index].state = .succeeded
            triggered.removeAll { $0 == index }
            for p in pairs.indices where pairs[p].state == .frozen && pairs[p].foundation == pairs[index].foundation {
                pairs[p].state = .waiting  // §7.2.5.3.3
            }
            if nominating || pairs[index].nominateOnSuccess { select(index, at: now) }
        case (.errorResponse, .check):
            if received.message.errorCode?.code == STUNErrorResponseCode.roleConflict.code {
                // §7.2.5.1: take the role opposite to the one the request claimed, and check again.
                if transaction.sentAsControlling == isControlling { switchRole() }
                pairs[index].state = .waiting
                if !triggered.contains(index) { triggered.append(index) }
            } else if !transactions.contains(where: { $0.pair == index }) {
                fail(index)
            }
        default:
            break
        }
    }

    private mutating func switchRole() {
        isControlling.toggle()
        nominating = nil
    }

    private mutating func fail(_ index: Int) {
        pairs[index].state = .failed
        if nominating == index { nominating = nil }
    }

    private mutating func select(_ index: Int, at now: Instant) {
        let pair = pairs[index]
        selected = (pair.local, pair.remote)
        events.append(.selected(remote: pair.remote, local: pair.local))
        // §8.1.2: the checklist is done; only consent checks on the selected pair from now on.
        transactions.removeAll()
        triggered.removeAll()
        nominating = nil
        lastConsent = now
        nextConsentAt = now + drawConsentInterval()
    }

    private mutating func drawConsentInterval() -> Duration {
        let range = configuration.consentInterval
        let span = UInt64(max(0, (range.upperBound - range.lowerBound).nanoseconds))
        return range.lowerBound + .nanoseconds(Int64(random.next(upperBound: span + 1)))
    }

    // MARK: - Time

    public mutating func handleTimeout(at now: Instant) { service(at: now) }

    /// Does what is due at `now`: deadlines, retransmissions, the next paced check, consent.
    private mutating func service(at now: Instant) {
        guard !isClosed else { return }
        if let selected {
            if now >= lastConsent + configuration.consentTimeout {
                close(.consentLost(remote: selected.remote))
                return
            }
        } else if now >= startedAt + configuration.connectTimeout {
            close(.expired)
            return
        }
        retransmit(at: now)
        if let selected {
            if now >= nextConsentAt, let index = pairs.firstIndex(where: { $0.local == selected.local && $0.remote == selected.remote }) {
                send(pair: index, purpose: .consent, at: now)
                nextConsentAt = now + drawConsentInterval()
            }
            return
        }
        if now >= nextCheckAt, let next = nextCheck() {
            send(pair: next.pair, purpose: .check(nominating: next.nominate), at: now)
            nextCheckAt = now + configuration.pacing
        }
        if !pairs.isEmpty, pairs.allSatisfy({ $0.state == .failed }), triggered.isEmpty, transactions.isEmpty {
            close(.failed)
        }
    }

    private mutating func close(_ event: ICEEvent) {
        isClosed = true
        transactions.removeAll()
        triggered.removeAll()
        events.append(event)
    }

    private mutating func retransmit(at now: Instant) {
        var t = 0
        while t < transactions.count {
            guard transactions[t].nextAt <= now else {
                t += 1
                continue
            }
            let transaction = transactions[t]
            let isConsent = if case .consent = transaction.purpose { true } else { false }
            if isConsent {
                // Consent checks are not retransmitted: the next one, 4–6 s later, is the retry (RFC 7675 §5.1).
                // A late response still counts until consent would have run out anyway.
                if now >= transaction.nextAt + configuration.consentTimeout { transactions.remove(at: t) } else { t += 1 }
                continue
            }
            if transaction.cancelled || transaction.transmissions >= configuration.maxTransmissions {
                transactions.remove(at: t)
                if !transaction.cancelled, !transactions.contains(where: { $0.pair == transaction.pair }),
                   pairs[transaction.pair].state == .inProgress
                {
                    fail(transaction.pair)
                }
                continue
            }
            transmits.append(ICETransmit(datagram: transaction.datagram, source: pairs[transaction.pair].local, destination: pairs[transaction.pair].remote))
            transactions[t].transmissions += 1
            transactions[t].nextAt = now + rto(afterTransmission: transactions[t].transmissions)
            t += 1
        }
    }

    /// The wait after the n-th transmission (1-based): initialRTO × 2^(n−1), at most maxRTO.
    private func rto(afterTransmission n: Int) -> Duration {
        var rto = configuration.initialRTO
        for _ in 1..<max(n, 1) where rto < configuration.maxRTO { rto *= 2 }
        return min(rto, configuration.maxRTO)
    }

    /// §6.1.4.2: a triggered check first, then nomination of a valid pair, then the highest-priority Waiting pair,
    /// then the highest-priority Frozen pair whose foundation has nothing Waiting or In-Progress.
    private mutating func nextCheck() -> (pair: Int, nominate: Bool)? {
        if !triggered.isEmpty {
            let index = triggered.removeFirst()
            return (index, isControlling && (index == nominating || (nominating == nil && pairs[index].state == .succeeded)))
        }
        if isControlling, nominating == nil, let valid = highest(where: { $0.state == .succeeded }) {
            nominating = valid
            return (valid, true)
        }
        if let waiting = highest(where: { $0.state == .waiting }) { return (waiting, false) }
        let busy = Set(pairs.filter { $0.state == .waiting || $0.state == .inProgress }.map(\.foundation))
        if let frozen = highest(where: { $0.state == .frozen && !busy.contains($0.foundation) }) { return (frozen, false) }
        return nil
    }

    private func highest(where predicate: (ICECandidatePair) -> Bool) -> Int? {
        pairs.indices.filter { predicate(pairs[$0]) }.max { pairs[$0].priority(weAreControlling: isControlling) < pairs[$1].priority(weAreControlling: isControlling) }
    }

    /// Builds and sends a Binding request on `pair` (RFC 8445 §7.2.2): USERNAME "<remote ufrag>:<local ufrag>",
    /// PRIORITY as a peer-reflexive candidate of the local base (§7.1.1), the role with the tie-breaker,
    /// USE-CANDIDATE when nominating, MESSAGE-INTEGRITY with the remote password, FINGERPRINT.
    private mutating func send(pair index: Int, purpose: Transaction.Purpose, at now: Instant) {
        let pair = pairs[index]
        let id = STUNTransactionID(using: &random)
        let localPreference = UInt16(truncatingIfNeeded: pair.localPriority >> 8)
        var attributes: [STUNAttribute] = [
            .username(configuration.remote.ufrag + ":" + configuration.local.ufrag),
            .priority(ICECandidate.priority(kind: .prflx, localPreference: localPreference)),
            isControlling ? .iceControlling(tieBreaker: tieBreaker) : .iceControlled(tieBreaker: tieBreaker),
        ]
        if case .check(nominating: true) = purpose { attributes.append(.useCandidate) }
        let message = STUNMessage(type: .bindingRequest, transactionID: id, attributes: attributes)
        // A ufrag pair of at most 513 bytes and fixed attributes: far below the wire limits.
        let datagram = try! message.serialized(integrityKey: remoteKey, fingerprint: true, crypto: crypto)
        transmits.append(ICETransmit(datagram: datagram, source: pair.local, destination: pair.remote))
        if case .check = purpose {
            for t in transactions.indices where transactions[t].pair == index { transactions[t].cancelled = true }
            pairs[index].state = .inProgress
        }
        transactions.append(Transaction(
            id: id, pair: index, purpose: purpose, sentAsControlling: isControlling, datagram: datagram,
            nextAt: now + rto(afterTransmission: 1)))
    }

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

    /// Whether `nextCheck()` would find something: the same rules, without taking anything.
    private var hasCheckToSend: Bool {
        if !triggered.isEmpty || pairs.contains(where: { $0.state == .waiting }) { return true }
        if isControlling, nominating == nil, pairs.contains(where: { $0.state == .succeeded }) { return true }
        let busy = Set(pairs.filter { $0.state == .waiting || $0.state == .inProgress }.map(\.foundation))
        return pairs.contains { $0.state == .frozen && !busy.contains($0.foundation) }
    }

    public mutating func pollTransmit() -> ICETransmit? { transmits.isEmpty ? nil : transmits.removeFirst() }

    public mutating func pollEvent() -> ICEEvent? { events.isEmpty ? nil : events.removeFirst() }
}
