import CongestionControl
import DTLS
import MediaCore
import RTPOut
import WebRTC

/// Everything a `WebRTCPublisher`'s lock guards: its one peer (full ICE as the controlling agent, then the same DTLS,
/// SRTP and RTP session as a WHEP viewer: `WebRTCPeerLink`), the rate policy, the log. Memory work only; what must go
/// out is returned for the I/O thread to send after the lock is released.
struct PublisherState: DatagramMachine, EncoderFacingState, ~Copyable {
    typealias Peer = WebRTCPeerLink<ICEControllingAgent>

    /// Nil until the answer came.
    var peer: Peer?
    /// The answer's candidates: the only sources DTLS is taken from before ICE selects a pair.
    var answeredAddresses: Set<SocketAddress> = []
    var policy: ViewerBitratePolicy
    var decider = FrameDecider()
    var keyframeWanted = false
    var log: [String] = []
    /// Why publishing ended (consent lost, ICE or DTLS failed, stopped), once it has.
    var endReason: String?
    /// Datagrams from elsewhere than the peer, or of a class we do not serve.
    var unmatched = 0
    /// Reused for SRTCP: room for the largest datagram.
    private var scratch = [UInt8](repeating: 0, count: 65_536)

    init(policy: ViewerBitratePolicy) { self.policy = policy }

    // MARK: Input

    mutating func handle(datagram: ArraySlice<UInt8>, from source: SocketAddress, at now: ServerTime, into out: inout [OutgoingDatagram]) {
        guard let peer, peer.phase != .closed else {
            unmatched += 1
            return
        }
        switch PacketClass(classifying: datagram) {
        case .stun:
            // The agent authenticates: responses by transaction and MESSAGE-INTEGRITY, the server's checks by USERNAME.
            guard let transport = source.transportAddress else {
                unmatched += 1
                return
            }
            peer.agent.handle(stun: datagram, from: transport, at: now.instant)
            drainAgent(peer, at: now, into: &out)
        case .dtls:
            // Before ICE selects a pair, a DTLS client (the server answered active) may already have sent its
            // ClientHello from a pair it saw succeed: take it from the answer's candidates (so a stranger cannot
            // start the handshake first), our replies waiting for the selected address; a ClientHello from a
            // peer-reflexive address waits for its retransmission. The handshake checks the answer's fingerprint.
            guard peer.remote == source || (peer.remote == nil && answeredAddresses.contains(source)) else {
                unmatched += 1
                return
            }
            apply(peer.receive(dtls: datagram, at: now, into: &out), at: now, into: &out)
        case .rtcp:
            guard peer.remote == source, let events = peer.receive(srtcp: datagram, scratch: &scratch, at: now, into: &out) else {
                unmatched += 1
                return
            }
            apply(events, at: now, into: &out)
        default:
            unmatched += 1
        }
    }

    // MARK: Time

    mutating func service(at now: ServerTime, into out: inout [OutgoingDatagram]) -> Instant? {
        guard let peer, peer.phase != .closed else { return nil }
        peer.agent.handleTimeout(at: now.instant)
        drainAgent(peer, at: now, into: &out)
        apply(peer.handleTimeout(at: now, into: &out), at: now, into: &out)
        guard peer.phase != .closed else { return nil }
        return [peer.agent.nextTimeout(), peer.nextTimeout(at: now)].compactMap { $0 }.min()
    }

    // MARK: The machines' outputs

    private mutating func drainAgent(_ peer: Peer, at now: ServerTime, into out: inout [OutgoingDatagram]) {
        while let transmit = peer.agent.pollTransmit() {
            guard let destination = transmit.destination.socketAddress else { continue }
            out.append(OutgoingDatagram(bytes: transmit.datagram, destination: destination))
        }
        while let event = peer.agent.pollEvent() {
            switch event {
            case .selected(let remote, _):
                guard let address = remote.socketAddress else { continue }
                peer.remote = address
                if peer.phase == .checking {
                    peer.phase = .handshaking
                    log.append("ICE selected \(address), DTLS \(peer.role)")
                    peer.dtls.start(at: now.instant)  // a client sends its ClientHello now; a server waits for one
                }
                apply(peer.pollDTLS(at: now, into: &out), at: now, into: &out)
            case .consentLost:
                end(reason: "consent lost (no answer to our ICE consent checks for 30 s)", at: now)
            case .expired:
                end(reason: "ICE found no path to the server in 30 s", at: now)
            case .failed:
                end(reason: "ICE failed: every candidate pair timed out or was refused", at: now)
            }
        }
    }

    /// Acts on what the peer's DTLS and RTP session said.
    private mutating func apply(_ events: [PeerLinkEvent], at now: ServerTime, into out: inout [OutgoingDatagram]) {
        for event in events {
            switch event {
            case .connected(let text):
                keyframeWanted = true  // the server's first picture is an IDR with SPS/PPS
                log.append(text)
            case .mustEnd(let reason):
                end(reason: reason, at: now)
            case .keyframeRequested:
                keyframeWanted = true
            case .controllerTarget:
                break  // `encoderTarget` reads the peer's controller whenever asked: nothing to move here
            case .bitrateLimit:
                guard let peer else { continue }
                policy.update([ViewerBitratePolicy.Viewer(
                    peerLimit: peer.peerLimit, sendRate: UInt64(peer.session.statistics(at: now.rtp).bitrate))], at: now.instant)
                peer.session.setTargetBitrate(policy.target)
            case .finished:
                peer?.phase = .closed
            }
        }
    }

    // MARK: Media

    /// Queues an access unit once SRTP is ready (from the first keyframe on); true when it was queued.
    mutating func enqueue(_ accessUnit: CodedAccessUnit, captureTime: RTPInstant, at now: ServerTime) -> Bool {
        decider.encoded(bytes: accessUnit.bytes.count)
        guard let peer, peer.phase == .connected else { return false }
        do {
            return try peer.enqueue(accessUnit, captureTime: captureTime, at: now)
        } catch {
            end(reason: "cannot send to the server: \(error)", at: now)
            return false
        }
    }

    /// The next frame's fate (`FrameDecider`), as a WHEP server's over its viewers: the peer's pacer queue against
    /// the pushback bound, and its own controller's target and budget (asked first) when transport-cc was kept.
    mutating func frameDecision(at now: ServerTime, mustEncode: Bool = false) -> WebRTCFrameDecision {
        let connected = peer.flatMap { $0.phase == .connected ? $0 : nil }
        if let connected, connected.rate != nil { _ = connected.decideRate(at: now) }
        let queueTime = connected?.session.expectedQueueTime
        let decision = frameDecision(queueTime: queueTime, target: encoderTarget, frameByteLimit: connected?.frameByteLimit,
                                     mustEncode: mustEncode, at: now)
        if decision.flushed, let connected, connected.flushIfStale(bound: decider.flushBound, at: now) {
            log.append("pacer queue over \(decider.flushBound), given up; an IDR follows")
        }
        if decision.skip { connected?.frameSkipped(at: now) }
        return decision
    }

    /// The peer's own controller's target when it runs one (transport-cc), else the REMB policy's.
    var encoderTarget: UInt64 {
        peer?.rate.map { UInt64(max(0, $0.current.encoderBitRate)) } ?? policy.target
    }

    // MARK: Ending

    /// Ends publishing: RTCP BYE once the queue drained (at most 1 s), then DTLS close_notify.
    mutating func end(reason: String, at now: ServerTime) {
        guard endReason == nil else { return }
        endReason = reason
        log.append("publishing ended: \(reason)")
        guard let peer, peer.phase != .closing, peer.phase != .closed else { return }
        if !peer.beginEnding(reason: reason, at: now) { peer.phase = .closed }
    }

    mutating func beginStop(at now: ServerTime) { end(reason: "stopped", at: now) }

    var isDrained: Bool { peer.map { $0.phase == .closed } ?? true }
}
