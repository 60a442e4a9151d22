import MediaCore

/// The controlling agent's input: the peer's checks (RFC 8445 §7.3) and the responses to its own (§7.2.5).
extension ICEControllingAgent {
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

    mutating func handleRequest(_ datagram: ArraySlice<UInt8>, from remote: TransportAddress, to local: ICECandidate, at now: Instant) {
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
        // §7.3.1.1: settle a role conflict by the tie-breakers. Controlling, the larger-or-equal tie-breaker keeps the
        // role and answers 487; controlled, the larger-or-equal one takes the controlling role and the other gets 487.
        let theirs = isControlling ? request.iceControlling : request.iceControlled
        if let theirs {
            if isControlling == (tieBreaker >= theirs) {
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

    mutating func handleResponse(_ datagram: ArraySlice<UInt8>, from remote: TransportAddress, to local: TransportAddress, at now: Instant) {
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

    mutating func switchRole() {
        isControlling.toggle()
        nominating = nil
    }

    mutating func fail(_ index: Int) {
        pairs[index].state = .failed
        if nominating == index { nominating = nil }
    }

    mutating func select(_ index: Int, at now: Instant) {
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
}
