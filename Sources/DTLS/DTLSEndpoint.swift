import MediaCore

/// One DTLS 1.2 association with DTLS-SRTP (RFC 5764), sans-IO in str0m's shape: the owner hands in received
/// datagrams and the time, and polls for datagrams to send, events, and when it next wants to be woken. It opens no
/// socket, starts no thread and reads no clock of its own.
///
/// ```
/// endpoint.start(at: now)                       // the client sends its ClientHello; a server waits
/// try endpoint.handle(datagram: bytes, at: now) // each datagram the RFC 7983 demultiplexer classed as DTLS
/// while let datagram = endpoint.pollTransmit() { send(datagram) }
/// while let event = endpoint.pollEvent() { … }  // .connected(keys…), .failed(reason), .closed
/// if let due = endpoint.nextTimeout(), now >= due { endpoint.handleTimeout(at: now) }
/// ```
/// After each call, drain `pollTransmit` and `pollEvent`, then sleep until `nextTimeout()` or the next datagram.
///
/// **Time.** OpenSSL 3.0 keeps the DTLS retransmission timer itself, on the real clock (gettimeofday inside libssl);
/// it has no way to be handed the time, only the timer's durations (`DTLS_set_timer_cb`, which serves the
/// configuration's RFC 6347 schedule). So the endpoint maps the timer onto the caller's clock: after every call made
/// at `now` it asks OpenSSL how long the timer has left (`DTLSv1_get_timeout`) and reports `now + left` as
/// `nextTimeout()`; `handleTimeout(at:)` at or after that instant lets OpenSSL retransmit (`DTLSv1_handle_timeout`).
/// The edge runs on a real monotonic clock, so when its `now` passes the deadline, real time has passed too; if
/// OpenSSL's clock still says a little is left (under 15 ms it counts as run out), nothing is sent and the deadline
/// moves to what is left. A caller on a virtual clock (tests) must let as much real time pass as it advances the clock
/// before `handleTimeout`, or OpenSSL will find its timer still running. OpenSSL also retransmits by itself when a
/// datagram arrives after its timer ran out.
///
/// **The peer's identity.** Any certificate is accepted during the handshake (WebRTC certificates are self-signed)
/// and its SHA-256 recorded; when the handshake finishes it must equal `remoteFingerprint` (the remote SDP's
/// `a=fingerprint`, RFC 5763 §5), or the endpoint fails with `.fingerprintMismatch`, sends close_notify and exports
/// no keys.
///
/// Not thread-safe: its owner serializes the calls (`@unchecked Sendable` so a mutex-guarded transport can hold it,
/// as with `SRTPSession`).
public final class DTLSEndpoint: @unchecked Sendable {
    public enum State: Sendable, Equatable {
        /// Made, not started.
        case idle
        case handshaking
        case connected
        case failed
        case closed
    }

    /// The largest datagram `handle(datagram:at:)` takes: what a UDP payload over IPv4 can hold.
    public static let maximumDatagramLength = 65_507
    /// RFC 7983 §7: a datagram whose first byte is 20…63 is DTLS (its record content type).
    public static let contentTypeRange: ClosedRange<UInt8> = 20 ... 63

    public let role: DTLSRole
    public let certificate: DTLSCertificate
    /// What the remote SDP's `a=fingerprint` says the peer's certificate hashes to.
    public let remoteFingerprint: DTLSFingerprint
    public let configuration: DTLSEndpointConfiguration
    public private(set) var state: State = .idle

    private let handle: OpaquePointer
    private var events: [DTLSEvent] = []
    private var eventIndex = 0
    private var deadline: Instant?

    public init(role: DTLSRole, certificate: DTLSCertificate, remoteFingerprint: DTLSFingerprint,
                configuration: DTLSEndpointConfiguration = .init()) throws(DTLSError) {
        let configuration = try configuration.validated()
        handle = try CDTLSCalls.newEndpoint(
            certificate: certificate.handle, isServer: role == .server, mtu: configuration.mtu,
            initialTimeout: configuration.initialRetransmissionTimeout,
            maximumTimeout: configuration.maximumRetransmissionTimeout)
        self.role = role
        self.certificate = certificate
        self.remoteFingerprint = remoteFingerprint
        self.configuration = configuration
    }

    deinit { CDTLSCalls.freeEndpoint(handle) }

    /// Begins the handshake: a client queues its ClientHello (send it once ICE has an authenticated path: the first
    /// nominated check), a server starts waiting for one. A second call does nothing.
    public func start(at now: Instant) {
        guard state == .idle else { return }
        state = .handshaking
        advance(at: now)
    }

    /// Takes one received datagram the RFC 7983 demultiplexer classed as DTLS (starting the handshake if `start` was
    /// not called). Records OpenSSL cannot use (wrong epoch, bad MAC, truncated) are dropped silently as RFC 6347
    /// §4.1.2.7 asks; a handshake that cannot go on becomes a `.failed` event.
    ///
    /// Throws, changing nothing, for a datagram that cannot be DTLS at all (`.invalidDatagram`) and once the
    /// endpoint has failed or closed (`.closed`).
    public func handle(datagram: UnsafeRawBufferPointer, at now: Instant) throws(DTLSError) {
        guard !datagram.isEmpty, datagram.count <= Self.maximumDatagramLength else {
            throw .make(.invalidDatagram, "a datagram of \(datagram.count) bytes (1…\(Self.maximumDatagramLength))")
        }
        guard Self.contentTypeRange.contains(datagram[0]) else {
            throw .make(.invalidDatagram, "first byte \(datagram[0]) is not a DTLS content type (RFC 7983: 20…63)")
        }
        switch state {
        case .failed, .closed:
            throw DTLSError(code: .closed, reason: "the DTLS endpoint is \(state); datagram of \(datagram.count) bytes dropped")
        case .idle:
            state = .handshaking
        case .handshaking, .connected:
            break
        }
        do {
            try CDTLSCalls.feed(handle, datagram)
        } catch {
            fail(error, at: now)
            return
        }
        advance(at: now)
    }

    public func handle(datagram: [UInt8], at now: Instant) throws(DTLSError) {
        // Array.withUnsafeBytes rethrows untyped: carry the typed error out in a Result.
        let result: Result<Void, DTLSError> = datagram.withUnsafeBytes { bytes in
            do throws(DTLSError) { return .success(try handle(datagram: bytes, at: now)) } catch { return .failure(error) }
        }
        try result.get()
    }

    /// The next datagram to send to the peer, nil when there is none.
    public func pollTransmit() -> [UInt8]? { CDTLSCalls.pull(handle) }

    /// The next event, nil when there is none.
    public func pollEvent() -> DTLSEvent? {
        guard eventIndex < events.count else {
            events.removeAll(keepingCapacity: true)
            eventIndex = 0
            return nil
        }
        defer { eventIndex += 1 }
        return events[eventIndex]
    }

    /// When the retransmission timer runs out, on the caller's clock (see "Time" above); nil while none runs.
    public func nextTimeout() -> Instant? { deadline }

    /// Lets OpenSSL retransmit the last flight if the timer has run out; a flight unanswered through every
    /// retransmission becomes `.failed(.timedOut)`. Calls before `nextTimeout()` do nothing.
    public func handleTimeout(at now: Instant) {
        guard state == .handshaking || state == .connected, let deadline, now >= deadline else { return }
        do {
            _ = try CDTLSCalls.handleTimeout(handle)
        } catch {
            fail(error, at: now)
            return
        }
        refreshDeadline(at: now)
    }

    /// Sends close_notify (queued for `pollTransmit`) and ends the association; `.closed` follows.
    public func close(at now: Instant) {
        switch state {
        case .failed, .closed: return
        case .connected: _ = CDTLSCalls.close(handle)
        case .idle, .handshaking: break
        }
        state = .closed
        deadline = nil
        events.append(.closed)
    }

    // MARK: The state machine

    /// Runs OpenSSL on what was fed and turns its state into ours.
    private func advance(at now: Instant) {
        let wasConnected = state == .connected
        switch CDTLSCalls.step(handle) {
        case .handshaking:
            break
        case .connected:
            if !wasConnected { connect(at: now) }
        case .peerClosed:
            state = .closed
            deadline = nil
            events.append(.closed)
            return
        case .failed(let error):
            fail(error, at: now)
            return
        }
        if state == .handshaking || state == .connected { refreshDeadline(at: now) }
    }

    /// The handshake finished: check the peer against the SDP, then export the keys.
    private func connect(at now: Instant) {
        guard let digest = CDTLSCalls.peerFingerprint(handle), let presented = try? DTLSFingerprint(sha256: digest) else {
            fail(DTLSError(code: .fingerprintMismatch, reason: "the peer presented no certificate"), at: now)
            return
        }
        guard presented == remoteFingerprint else {
            _ = CDTLSCalls.close(handle)
            fail(DTLSError(code: .fingerprintMismatch,
                           reason: "the peer's certificate is \(presented.sdpValue), the SDP said \(remoteFingerprint.sdpValue)"),
                 at: now)
            return
        }
        do throws(DTLSError) {
            // The profile is one rtenc offered; its lengths size the export.
            guard let negotiated = CDTLSCalls.srtpProfile(handle) else {
                throw DTLSError(code: .srtp, reason: "the peer negotiated no SRTP protection profile (use_srtp)")
            }
            let profile = DTLSSRTPProfile(rawValue: negotiated)
            guard let (key, salt) = profile.keyAndSaltLengths else {
                throw DTLSError(code: .unsupported, reason: "the peer negotiated \(profile), which rtenc cannot key")
            }
            let exported = try CDTLSCalls.exportSRTP(
                handle, length: DTLSSRTPKeys.keyingMaterialLength(key: key, salt: salt))
            let keys = try DTLSSRTPKeys(profile: profile, keyingMaterial: exported.material)
            state = .connected
            events.append(.connected(DTLSConnection(
                keys: keys, peerFingerprint: presented, cipherSuite: CDTLSCalls.cipherName(handle),
                protocolVersion: UInt16(truncatingIfNeeded: CDTLSCalls.version(handle)))))
        } catch {
            fail(error, at: now)
        }
    }

    private func fail(_ error: DTLSError, at now: Instant) {
        state = .failed
        deadline = nil
        events.append(.failed(error))
    }

    private func refreshDeadline(at now: Instant) {
        deadline = CDTLSCalls.timeout(handle).map { now + $0 }
    }
}
