/// What an ICE agent tells its driver (str0m's `poll_event`): drained with `pollEvent()` after every input.
public enum ICEEvent: Sendable, Hashable {
    /// Media may flow to `remote`, sent from `local`: the first selected pair, or a new one (the lite agent latches
    /// the source of the latest nominating check). `local` is nil for the lite agent, which answers from whatever
    /// address the check reached.
    case selected(remote: TransportAddress, local: TransportAddress?)
    /// RFC 7675: no authenticated check (lite) or consent response (controlling) for the consent timeout (30 s) on
    /// the selected pair: stop sending to `remote`. The agent is closed.
    case consentLost(remote: TransportAddress)
    /// No pair was selected before the connect timeout (30 s). The agent is closed.
    case expired
    /// The controlling agent's checks all failed (every pair timed out or was refused). The agent is closed.
    case failed
}

/// A datagram an agent wants sent: from the local address `source` (which socket) to `destination`.
public struct ICETransmit: Sendable, Hashable {
    public var datagram: [UInt8]
    public var source: TransportAddress
    public var destination: TransportAddress

    public init(datagram: [UInt8], source: TransportAddress, destination: TransportAddress) {
        self.datagram = datagram
        self.source = source
        self.destination = destination
    }
}
