import MediaCore

/// The controlling agent's schedule: deadlines, retransmissions, paced checks (RFC 8445 §6.1.4.2) and consent
/// (RFC 7675).
extension ICEControllingAgent {
    /// Does what is due at `now`: deadlines, retransmissions, the next paced check, consent.
    mutating func service(at now: Instant) {
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

    mutating func close(_ event: ICEEvent) {
        isClosed = true
        transactions.removeAll()
        triggered.removeAll()
        events.append(event)
    }

    mutating func retransmit(at now: Instant) {
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
    func rto(afterTransmission n: Int) -> Duration {
        var rto = configuration.initialRTO
        for _ in 1..<max(n, 1) where rto < configuration.maxRTO { rto *= 2 }
        return min(rto, configuration.maxRTO)
    }

    /// §6.1.4.2: a triggered check first, then nomination of a valid pair, then the highest-priority Waiting pair,
    /// then the highest-priority Frozen pair whose foundation has nothing Waiting or In-Progress.
    mutating func nextCheck() -> (pair: Int, nominate: Bool)? {
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

    func highest(where predicate: (ICECandidatePair) -> Bool) -> Int? {
        pairs.indices.filter { predicate(pairs[$0]) }.max { pairs[$0].priority(weAreControlling: isControlling) < pairs[$1].priority(weAreControlling: isControlling) }
    }

    /// Builds and sends a Binding request on `pair` (RFC 8445 §7.2.2): USERNAME "<remote ufrag>:<local ufrag>",
    /// PRIORITY as a peer-reflexive candidate of the local base (§7.1.1), the role with the tie-breaker,
    /// USE-CANDIDATE when nominating, MESSAGE-INTEGRITY with the remote password, FINGERPRINT.
    mutating func send(pair index: Int, purpose: Transaction.Purpose, at now: Instant) {
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

    /// Whether `nextCheck()` would find something: the same rules, without taking anything.
    var hasCheckToSend: Bool {
        if !triggered.isEmpty || pairs.contains(where: { $0.state == .waiting }) { return true }
        if isControlling, nominating == nil, pairs.contains(where: { $0.state == .succeeded }) { return true }
        let busy = Set(pairs.filter { $0.state == .waiting || $0.state == .inProgress }.map(\.foundation))
        return pairs.contains { $0.state == .frozen && !busy.contains($0.foundation) }
    }

    mutating func drawConsentInterval() -> Duration {
        let range = configuration.consentInterval
        let span = UInt64(max(0, (range.upperBound - range.lowerBound).nanoseconds))
        return range.lowerBound + .nanoseconds(Int64(random.next(upperBound: span + 1)))
    }
}
