import MediaCore

/// rtenc's side of ICE when it answers WHEP: an ICE-lite agent (RFC 8445 §2.5, §6.1.1), always controlled. It sends
/// no checks; it answers the browser's, latches the media destination and keeps consent (RFC 7675).
///
/// Sans-IO: the driver feeds it every STUN datagram with its source and arrival time (`handle(stun:from:at:)`, which
/// returns the response to send back to that source), calls `handleTimeout(at:)` when `nextTimeout()` passes, and
/// drains `pollEvent()` after each call. It reads no clock and opens no socket.
///
/// - Answers an authenticated Binding request (USERNAME "<local ufrag>:<remote ufrag>", MESSAGE-INTEGRITY with the
///   local password) with a success carrying XOR-MAPPED-ADDRESS = the source, MESSAGE-INTEGRITY and FINGERPRINT.
/// - 400 for a request without USERNAME, MESSAGE-INTEGRITY or an ICE role; 401 for an unknown USERNAME; 420 for
///   unknown comprehension-required attributes; 487 when the peer claims ICE-CONTROLLED too (a lite agent cannot take
///   the controlling role, so under RFC 8445 §7.3.1.1 the full peer must switch). A request whose MESSAGE-INTEGRITY
///   fails is dropped unanswered.
/// - Latches: the source of the latest authenticated request with USE-CANDIDATE is the selected address
///   (`ICEEvent.selected`, again whenever it moves).
/// - Consent: lost when no authenticated request has come from the selected address for 30 s (`consentLost`); a
///   session not nominated within 30 s of its start `expired`. Either closes the agent: later datagrams are dropped.
public struct ICELiteAgent: Sendable {
    public struct Configuration: Sendable {
        /// rtenc's ufrag and password (`a=ice-ufrag`/`a=ice-pwd` of the answer).
        public var local: ICECredentials
        /// The peer's ufrag from its offer; nil accepts any (the USERNAME's second half is then not checked).
        public var remoteUfrag: String?
        /// RFC 7675 §5.1: consent expires 30 s after the last authenticated check.
        public var consentTimeout: Duration = .seconds(30)
        /// How long a session may wait for its first nomination.
        public var connectTimeout: Duration = .seconds(30)

        public init(local: ICECredentials, remoteUfrag: String?) {
            self.local = local
            self.remoteUfrag = remoteUfrag
        }
    }

    public let configuration: Configuration
    /// Where media goes: the source of the latest nominating check; nil until the first.
    public private(set) var selected: TransportAddress?
    /// True after `consentLost` or `expired`: the session is over.
    public private(set) var isClosed = false

    private let crypto: any STUNCrypto
    private let key: [UInt8]
    /// Before selection: when the session expires; after: when consent runs out.
    private var deadline: Instant
    private var events: [ICEEvent] = []

    public init(configuration: Configuration, startedAt now: Instant, crypto: any STUNCrypto = STUNSoftwareCrypto()) {
        self.configuration = configuration
        self.crypto = crypto
        key = STUNMessage.shortTermKey(password: configuration.local.pwd)
        deadline = now + configuration.connectTimeout
    }

    /// A STUN datagram from `source` (the demultiplexer's `.stun` class). Returns the response to send back to
    /// `source`, or nil when there is nothing to send.
    public mutating func handle(stun datagram: ArraySlice<UInt8>, from source: TransportAddress, at now: Instant) -> [UInt8]? {
        handleTimeout(at: now)
        guard !isClosed else { return nil }
        let verdict = ICERequestCheck.verdict(
            datagram: datagram, local: configuration.local, localKey: key, remoteUfrag: configuration.remoteUfrag,
            crypto: crypto)
        switch verdict {
        case .drop: return nil
        case .reject(let response): return response
        case .accept(let request):
            if request.iceControlled != nil {
                return ICERequestCheck.errorResponse(.roleConflict, transactionID: request.transactionID, key: key, crypto: crypto)
            }
            if request.useCandidate {
                if selected != source {
                    selected = source
                    events.append(.selected(remote: source, local: nil))
                }
                deadline = now + configuration.consentTimeout
            } else if source == selected {
                deadline = now + configuration.consentTimeout
            }
            return ICERequestCheck.successResponse(to: request, source: source, key: key, crypto: crypto)
        }
    }

    /// The ufrag a Binding request is addressed to (the USERNAME before its colon, RFC 8445 §7.2.2), unchecked: how a
    /// server with many sessions on one UDP port picks the agent for a source it has not latched yet (its agent then
    /// authenticates the request). nil for anything else.
    public static func recipientUfrag(of datagram: ArraySlice<UInt8>) -> Substring? {
        guard let message = try? STUNReceivedMessage(parsing: datagram).message, message.type == .bindingRequest,
              let username = message.username, let colon = username.firstIndex(of: ":")
        else { return nil }
        return Substring(username[..<colon])
    }

    /// Lets time pass: consent lost or session expired when the deadline is reached (at exactly 30 s, not after).
    public mutating func handleTimeout(at now: Instant) {
        guard !isClosed, now >= deadline else { return }
        isClosed = true
        if let selected {
            events.append(.consentLost(remote: selected))
        } else {
            events.append(.expired)
        }
    }

    /// When `handleTimeout(at:)` next has something to do; nil once closed.
    public func nextTimeout() -> Instant? { isClosed ? nil : deadline }

    public mutating func pollEvent() -> ICEEvent? { events.isEmpty ? nil : events.removeFirst() }
}
