import CongestionControl
import DTLS
import MediaCore
import RTPOut
import WebRTC

/// Everything the lock guards: the viewers and their sans-IO machines, the routing tables, the rate policy. Every
/// method is protocol work on memory (and SRTP, which is CPU only); what must go out is returned, to be sent by the
/// I/O thread after the lock is released.
struct ServerState: DatagramMachine, EncoderFacingState, ~Copyable {
    var viewers: [String: WebRTCViewer] = [:]
    /// The viewers by their ufrag: a STUN check is routed by its USERNAME before any address is latched.
    var byUfrag: [String: WebRTCViewer] = [:]
    /// The viewers by their latched address: DTLS and SRTCP are routed by source.
    var byAddress: [SocketAddress: WebRTCViewer] = [:]
    var policy: ViewerBitratePolicy
    /// The encoder's target before pushback: the REMB policy's, or lower when a viewer's own controller
    /// (transport-cc) says less — the lowest among the viewers.
    var encoderTarget: UInt64
    var decider = FrameDecider()
    var keyframeWanted = false
    var log: [String] = []
    /// Datagrams that matched no viewer (unknown source, unknown ufrag, an RFC 7983 class we do not serve).
    var unmatched = 0
    /// Reused for SRTP: room for the largest datagram and the longest trailer.
    private var scratch = [UInt8](repeating: 0, count: 65_536)

    init(policy: ViewerBitratePolicy) {
        self.policy = policy
        encoderTarget = policy.target
    }

    /// Why one more viewer does not fit (the caps of `WebRTCServerConfiguration`), or nil when it does.
    func admissionRefusal(maxViewers: Int, maxPending: Int) -> WebRTCTransportError? {
        if viewers.count >= maxViewers {
            return WebRTCTransportError(code: .tooManyViewers, reason: "\(viewers.count) viewers already, the most this server takes")
        }
        let pending = viewers.values.count { $0.phase == .checking || $0.phase == .handshaking }
        if pending >= maxPending {
            return WebRTCTransportError(
                code: .tooManyPendingViewers, reason: "\(pending) viewers are still connecting, the most this server lets connect at once")
        }
        return nil
    }

    mutating func add(_ viewer: WebRTCViewer) {
        viewers[viewer.id] = viewer
        byUfrag[viewer.localUfrag] = viewer
    }

    // MARK: Input

    /// One received datagram: routed by class and source (STUN by USERNAME until an address is latched).
    mutating func handle(datagram: ArraySlice<UInt8>, from source: SocketAddress, at now: ServerTime, into out: inout [OutgoingDatagram]) {
        switch PacketClass(classifying: datagram) {
        case .stun:
            guard let viewer = byAddress[source] ?? viewerNamed(in: datagram), let transport = source.transportAddress else {
                unmatched += 1
                return
            }
            if let response = viewer.agent.handle(stun: datagram, from: transport, at: now.instant) {
                out.append(OutgoingDatagram(bytes: response, destination: source))
            }
            drainAgent(viewer, at: now, into: &out)
        case .dtls:
            guard let viewer = byAddress[source] else {
                unmatched += 1
                return
            }
            apply(viewer.receive(dtls: datagram, at: now, into: &out), of: viewer, at: now, into: &out)
        case .rtcp:
            guard let viewer = byAddress[source], let events = viewer.receive(srtcp: datagram, scratch: &scratch, at: now, into: &out) else {
                unmatched += 1
                return
            }
            apply(events, of: viewer, at: now, into: &out)
        default:
            unmatched += 1
        }
    }

    /// The viewer a Binding request from an unlatched source is addressed to (its USERNAME's first half).
    private func viewerNamed(in datagram: ArraySlice<UInt8>) -> WebRTCViewer? {
        ICELiteAgent.recipientUfrag(of: datagram).flatMap { byUfrag[String($0)] }
    }

    // MARK: Time

    /// Lets time pass for every viewer (consent, DTLS retransmission, pacer, RTCP reports) and collects what is
    /// due. Returns when to be called again at the latest.
    mutating func service(at now: ServerTime, into out: inout [OutgoingDatagram]) -> Instant? {
        var next: Instant?
        func consider(_ time: Instant?) { if let time { next = min(next ?? time, time) } }
        for viewer in Array(viewers.values) {
            viewer.agent.handleTimeout(at: now.instant)
            drainAgent(viewer, at: now, into: &out)
            apply(viewer.handleTimeout(at: now, into: &out), of: viewer, at: now, into: &out)
            guard viewer.phase != .closed else { continue }
            consider(viewer.agent.nextTimeout())
            consider(viewer.nextTimeout(at: now))
        }
        return next
    }

    // MARK: The machines' outputs

    private mutating func drainAgent(_ viewer: WebRTCViewer, at now: ServerTime, into out: inout [OutgoingDatagram]) {
        while let event = viewer.agent.pollEvent() {
            switch event {
            case .selected(let remote, _):
                guard let address = remote.socketAddress else { continue }
                if let old = viewer.remote, byAddress[old] === viewer { byAddress[old] = nil }
                viewer.remote = address
                byAddress[address] = viewer
                if viewer.phase == .checking {
                    viewer.phase = .handshaking
                    log.append("viewer \(viewer.id): ICE nominated \(address), DTLS \(viewer.role)")
                    viewer.dtls.start(at: now.instant)  // setup:active: the ClientHello once the nominated check came
                }
                apply(viewer.pollDTLS(at: now, into: &out), of: viewer, at: now, into: &out)
            case .consentLost:
                end(viewer, reason: "consent lost (no ICE check for 30 s)", at: now)
            case .expired:
                end(viewer, reason: "never connected (no nominated ICE check in 30 s)", at: now)
            case .failed:
                end(viewer, reason: "ICE failed", at: now)
            }
        }
    }

    /// Acts on what a viewer's DTLS and RTP session said: the log, the encoder's keyframe flag and target, the end.
    mutating func apply(_ events: [PeerLinkEvent], of viewer: WebRTCViewer, at now: ServerTime, into out: inout [OutgoingDatagram]) {
        for event in events {
            switch event {
            case .connected(let text):
                keyframeWanted = true  // every new viewer gets an IDR with SPS/PPS
                log.append("viewer \(viewer.id): \(text)")
            case .mustEnd(let reason):
                end(viewer, reason: reason, at: now)
            case .keyframeRequested:
                keyframeWanted = true
            case .bitrateLimit, .controllerTarget:
                updateTarget(at: now)
            case .finished:
                finish(viewer)
                updateTarget(at: now)  // a departing viewer's limit no longer binds
            }
        }
    }

    // MARK: Media and rate

    /// Queues an access unit for each viewer with SRTP; true when any took it.
    mutating func enqueue(_ accessUnit: CodedAccessUnit, captureTime: RTPInstant, at now: ServerTime) -> Bool {
        decider.encoded(bytes: accessUnit.bytes.count)
        var queued = false
        for viewer in viewers.values where viewer.phase == .connected {
            do {
                queued = try viewer.enqueue(accessUnit, captureTime: captureTime, at: now) || queued
            } catch {
                end(viewer, reason: "cannot send to it: \(error)", at: now)
            }
        }
        return queued
    }

    /// The next frame's fate (`FrameDecider`): the worst connected viewer's pacer queue against the pushback bound,
    /// the encoder's target and the lowest budget among the viewers' own controllers, each asked first (as
    /// `LiveBitrateController.apply` asks the RTP path's before each frame). A queue over the flush bound is given up
    /// for an IDR; a skipped frame is told to every viewer's controller as one of 0 bytes.
    mutating func frameDecision(at now: ServerTime, mustEncode: Bool = false) -> WebRTCFrameDecision {
        let connected = viewers.values.filter { $0.phase == .connected }
        var moved = false
        for viewer in connected where viewer.rate != nil { moved = viewer.decideRate(at: now) || moved }
        if moved { updateTarget(at: now) }
        let queueTime = connected.compactMap { $0.session.expectedQueueTime }.max()
        let frameByteLimit = connected.compactMap(\.frameByteLimit).min()
        let decision = frameDecision(queueTime: queueTime, target: encoderTarget, frameByteLimit: frameByteLimit, mustEncode: mustEncode,
                                     at: now)
        if decision.flushed {
            for viewer in connected where viewer.flushIfStale(bound: decider.flushBound, at: now) {
                log.append("viewer \(viewer.id): pacer queue over \(decider.flushBound), given up; an IDR follows")
            }
        }
        if decision.skip { for viewer in connected { viewer.frameSkipped(at: now) } }
        return decision
    }

    /// The encoder's target from every connected viewer: the REMB policy over the viewers without a controller of
    /// their own (their pacers follow it), capped by the lowest target of those with one (each paced by its own).
    mutating func updateTarget(at now: ServerTime) {
        let before = policy.target
        let connected = viewers.values.filter { $0.phase == .connected }
        let inputs = connected.filter { $0.rate == nil }.map { viewer in
            ViewerBitratePolicy.Viewer(peerLimit: viewer.peerLimit, sendRate: UInt64(viewer.session.statistics(at: now.rtp).bitrate))
        }
        let target = policy.update(inputs, at: now.instant)
        let controlled = connected.compactMap { $0.rate.map { UInt64(max(0, $0.current.encoderBitRate)) } }.min()
        encoderTarget = min(target, controlled ?? target)
        guard target != before else { return }
        for viewer in viewers.values where viewer.rate == nil { viewer.session.setTargetBitrate(target) }
        if policy.atFloor { log.append("encoder target at the floor, \(target / 1000) kb/s: a viewer's path is narrower") }
    }

    /// Whether any connected viewer runs its own controller (for the log: what moved the target).
    var rateSource: String {
        viewers.values.contains { $0.phase == .connected && $0.rate != nil } ? "transport-cc" : "REMB"
    }

    // MARK: Ending

    mutating func beginStop(at now: ServerTime) {
        for viewer in Array(viewers.values) { end(viewer, reason: "server stopping", at: now) }
    }

    var isDrained: Bool { viewers.isEmpty }

    /// Starts a viewer's end: RTCP BYE once its queue drained (at most 1 s), DTLS close_notify. A viewer without
    /// SRTP has nothing to say goodbye with and goes at once.
    mutating func end(_ viewer: WebRTCViewer, reason: String, at now: ServerTime) {
        guard viewer.phase != .closing, viewer.phase != .closed else { return }
        log.append("viewer \(viewer.id): \(reason)")
        if !viewer.beginEnding(reason: reason, at: now) { finish(viewer) }
    }

    private mutating func finish(_ viewer: WebRTCViewer) {
        guard viewer.phase != .closed else { return }
        viewer.phase = .closed
        viewers[viewer.id] = nil
        byUfrag[viewer.localUfrag] = nil
        if let remote = viewer.remote, byAddress[remote] === viewer { byAddress[remote] = nil }
    }

    func statistics(at now: ServerTime) -> [WebRTCViewerStatistics] {
        viewers.values.sorted { $0.startedAt < $1.startedAt }.map { $0.statistics(at: now) }
    }
}
