/// One entry of the controlling agent's checklist (RFC 8445 §6.1.2): a local host candidate and a remote candidate
/// of the same address family, with the state of its checks.
struct ICECandidatePair: Sendable {
    /// RFC 8445 §6.1.2.6.
    enum State: Sendable, Hashable { case frozen, waiting, inProgress, succeeded, failed }

    let local: TransportAddress
    let localPriority: UInt32
    let remote: TransportAddress
    let remotePriority: UInt32
    /// The pair's foundation: the local and remote candidates' foundations joined (§6.1.2.6).
    let foundation: String
    var state: State = .frozen
    /// The controlled side saw USE-CANDIDATE for this pair before its own check succeeded (§7.3.1.5).
    var nominateOnSuccess = false

    func priority(weAreControlling: Bool) -> UInt64 {
        weAreControlling
            ? ICECandidate.pairPriority(controlling: localPriority, controlled: remotePriority)
            : ICECandidate.pairPriority(controlling: remotePriority, controlled: localPriority)
    }
}
