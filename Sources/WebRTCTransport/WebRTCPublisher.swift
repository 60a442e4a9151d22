import CongestionControl
import DTLS
import MediaCore
import RTPOut
import Synchronization
import WebRTC

/// Publishes one encoder's stream to a WebRTC server (WHIP, RFC 9725; design/webrtc.md §6.3): rtenc makes the offer,
/// runs full ICE as the controlling agent (paced checks, retransmissions, nomination, consent every 4–6 s), takes the
/// DTLS role the answer's `a=setup` leaves it (`active` → rtenc is the server), keys SRTP per direction, and sends
/// with the same `RTPSendSession` a WHEP viewer gets (pacer, NACK history, PLI/FIR → `takeKeyframeRequest()`,
/// REMB → `encoderTarget` through `ViewerBitratePolicy`).
///
/// The embedder's loop: POST `offer` to the WHIP endpoint (`WHIPClient` does it), `connect(answer:)` with the
/// 201's body, then for every encoded access unit `send(_:)`, asking `nextFrame()` before encoding the next frame (skip
/// it, or its bit rate, byte budget and IDR: `FrameDecider`, as a WHEP server's); `endReason` turns non-nil when
/// publishing ended on its own (consent lost, ICE or DTLS failed). `stop()` says goodbye (RTCP BYE, close_notify); the
/// HTTP DELETE is the caller's.
///
/// One UDP socket and one I/O thread (`DatagramIOLoop`, shared with `WebRTCServer`); the sans-IO machines run under
/// one lock, the socket is read and written outside it.
public final class WebRTCPublisher: @unchecked Sendable {
    public let configuration: WebRTCPublisherConfiguration
    /// The UDP address media leaves from.
    public let localAddress: SocketAddress
    public let certificate: DTLSCertificate
    /// The SDP offer to POST (CRLF line endings).
    public let offer: String

    /// What the I/O thread holds (socket, wake-up, state) and the thread: never the publisher itself, so dropping the
    /// last reference to the publisher runs its `deinit`, which stops the thread, and the socket closes with the core
    /// (as `WebRTCServer`'s).
    let core: TransportCore<PublisherState>
    private let whipOffer: WHIPOffer
    private let credentials: ICECredentials
    private let ssrc: UInt32
    private let cname: String

    /// Binds the socket, makes the DTLS certificate and the offer, starts the I/O thread. Nothing is sent before
    /// `connect(answer:)`.
    /// - Throws: `.transport` (socket, certificate, thread, a wildcard bind without candidates), `.badOffer` when the local
    ///   values cannot make an offer.
    public init(configuration: WebRTCPublisherConfiguration) throws(WebRTCTransportError) {
        let endpoint = try TransportEndpoint(bind: configuration.bind, candidates: configuration.candidates)
        certificate = endpoint.certificate
        var configuration = configuration
        configuration.candidates = endpoint.candidates
        self.configuration = configuration
        localAddress = endpoint.socket.localAddress
        var random = SystemRandomNumberGenerator()  // getrandom(2)
        let parameters = endpoint.localParameters(using: &random)
        var local = parameters.0
        let credentials = parameters.1
        // A controller on transport-cc: offered beside REMB; the answer decides (`connect(answer:)`).
        local.transportCC = configuration.congestionController?.usesTransportFeedback ?? false
        local.playoutDelay = configuration.immediatePlayout
        (self.credentials, ssrc, cname) = (credentials, local.ssrc, local.cname)
        do {
            whipOffer = try WHIPOffer(encoding: configuration.encoding, local: local)
        } catch {
            throw WebRTCTransportError(code: .badOffer, reason: "cannot make the offer: \(error.reason)")
        }
        offer = whipOffer.text
        // The thread idles (nothing to read, no timer) until `connect(answer:)` hands it the peer.
        core = try TransportCore.start(
            socket: endpoint.socket, wake: endpoint.wake,
            state: PublisherState(policy: ViewerBitratePolicy(ceiling: configuration.bitrateCeiling, floor: configuration.bitrateFloor)),
            threadName: "rtenc-whip-io")
    }

    deinit { stop() }

    /// Takes the server's answer and starts ICE, then DTLS and media, on the I/O thread. Returns the answer's
    /// warnings (tolerated deviations: no BUNDLE group, sendrecv…).
    /// - Throws: `.badAnswer` for an answer that is not SDP or does not accept our offer (the SDP layer's reason),
    ///   `.codecRefused` when it does not take our codec as offered (another payload type, H.265 of another profile
    ///   or tier, a lower level),
    ///   `.transport` when DTLS or RTP cannot be set up, `.closed` after `stop()` or a second call.
    @discardableResult
    public func connect(answer text: String) throws(WebRTCTransportError) -> [String] {
        let answer: WHIPAnswer
        do {
            answer = try WHIPAnswer(answerText: text, offer: whipOffer)
        } catch {
            // Not our codec (or profile, tier, level): the encoder cannot change now; the caller names the other one.
            throw WebRTCTransportError(code: error.code == .noCompatibleCodec ? .codecRefused : .badAnswer,
                                       reason: error.reason + (error.detail.map { " (\($0))" } ?? ""))
        }
        guard let remoteFingerprint = TransportEndpoint.sha256Fingerprint(answer.remote.fingerprints) else {
            throw WebRTCTransportError(code: .badAnswer, reason: "the answer has no a=fingerprint:sha-256 of 32 bytes; rtenc checks the server's DTLS certificate with one")
        }
        let remoteCredentials: ICECredentials
        do {
            remoteCredentials = try ICECredentials(ufrag: answer.remote.iceUfrag, pwd: answer.remote.icePwd)
        } catch {
            throw WebRTCTransportError(code: .badAnswer, reason: "the answer's ICE credentials: \(error)")
        }
        let role: DTLSRole = answer.video.dtlsRole == .client ? .client : .server
        // The server kept transport-cc (the feedback and the extension): the controller runs on its reports; else REMB.
        let transportCC = configuration.congestionController != nil && answer.video.transportCCExtensionID != nil
            && answer.video.feedback.contains(.transportCC)
        let now = WebRTCServer.now()
        var random = SystemRandomNumberGenerator()
        let peer: PublisherState.Peer
        do {
            var ice = ICEControllingAgent.Configuration(
                local: credentials, remote: remoteCredentials, localAddresses: configuration.candidates.compactMap(\.transportAddress),
                remoteCandidates: answer.remote.candidates.compactMap(ICECandidate.init(sdp:)))
            ice.consentTimeout = configuration.consentTimeout
            ice.connectTimeout = configuration.connectTimeout
            let agent = ICEControllingAgent(configuration: ice, startedAt: now.instant, random: SystemRandomNumberGenerator())
            let session = try RTPSendSession.webRTC(
                payloadType: answer.video.payloadType, ssrc: ssrc, cname: cname, absSendTimeID: answer.video.absSendTimeID,
                maxPayloadSize: configuration.maxPayloadSize, targetBitrate: configuration.bitrateCeiling,
                sequenceParameterSet: configuration.sequenceParameterSet, pictureParameterSet: configuration.pictureParameterSet,
                codec: configuration.encoding.codec, videoParameterSet: configuration.videoParameterSet,
                transportCCExtensionID: transportCC ? answer.video.transportCCExtensionID : nil, playoutDelayID: answer.video.playoutDelayID,
                retransmission: answer.video.retransmission, using: &random)
            let dtls = try DTLSEndpoint(role: role, certificate: certificate, remoteFingerprint: remoteFingerprint)
            peer = PublisherState.Peer(id: "whip", localUfrag: credentials.ufrag, agent: agent, dtls: dtls, role: role,
                                       session: session, startedAt: now.instant)
            if transportCC {
                // Started at the ceiling, as a WHEP viewer's at the encoder's target: goog_cc probes (on RTX, when the
                // answer kept it) only at start, so a low start would be climbed out of by AIMD.
                peer.rate = try configuration.media.peerController(start: configuration.bitrateCeiling, at: now.instant)
            }
        } catch {
            throw WebRTCTransportError(code: .transport, reason: "setting up the publication: \(error)")
        }
        let ignored = peer.agent.ignoredRemoteCandidates
        let installed = core.state.withLock { state -> Bool in
            guard state.peer == nil, state.endReason == nil else { return false }
            state.peer = peer
            state.answeredAddresses = Set(peer.agent.configuration.remoteCandidates.compactMap { $0.transportAddress?.socketAddress })
            state.log.append("answer accepted: payload type \(answer.video.payloadType), DTLS \(role), "
                + "\(answer.remote.candidates.count) remote candidates\(ignored.isEmpty ? "" : " (\(ignored.count) not usable)")")
            return true
        }
        guard installed, !core.isStopping else {
            throw WebRTCTransportError(code: .closed, reason: "the publisher is stopped or already connected")
        }
        core.wake.signal()  // the first checks go out now
        return answer.warnings
    }

    /// Says goodbye (RTCP BYE after the queue drained, DTLS close_notify) and stops the I/O thread (after at most
    /// about 2 s): when the first call returns, the thread has ended and sends nothing more. Idempotent. It waits only
    /// for the I/O thread, which runs none of the caller's code, so any thread may call it, an encoder's output
    /// handler in the middle of `encode()` included.
    public func stop() { core.stop() }

    // MARK: Media

    /// Queues one encoded access unit once SRTP is ready (the first is a keyframe: the frames before it cannot be
    /// decoded and are not sent).
    public func send(_ accessUnit: CodedAccessUnit, captureTime: RTPInstant? = nil) {
        let now = WebRTCServer.now()
        let queued = core.state.withLock { $0.enqueue(accessUnit, captureTime: captureTime ?? now.rtp, at: now) }
        if queued { core.wake.signal() }
    }

    /// True once after SRTP became ready or the server asked for a picture (PLI/FIR, throttled by the session): encode
    /// the next frame as an IDR.
    public func takeKeyframeRequest() -> Bool { core.state.withLock { $0.takeKeyframeRequest() } }

    /// Before each frame: skip it, or encode it at `encoderTarget` within `maxFrameBytes`, as an IDR when
    /// `forceKeyframe` (as `WebRTCServer.nextFrame()`, for the one peer).
    /// `mustEncode`: the caller forces this frame as an IDR (`--force-idr`); it is never skipped.
    public func nextFrame(mustEncode: Bool = false) -> WebRTCFrameDecision {
        let now = WebRTCServer.now()
        return core.state.withLock { $0.frameDecision(at: now, mustEncode: mustEncode) }
    }

    /// The encoder's target: the peer's controller's when transport-cc was kept, else the ceiling unless the server's
    /// REMB says the path is congested (`ViewerBitratePolicy`).
    public var encoderTarget: UInt64 { core.state.withLock { $0.encoderTarget } }

    /// What the per-frame decisions came to (`nextFrame()`): frames skipped and why, queues given up, budgets.
    public var frameStatistics: FrameDecider.Statistics { core.state.withLock { $0.decider.statistics } }

    /// What moves the target: "transport-cc" when the server kept it (the peer's own controller), else "REMB".
    public var rateSource: String { core.state.withLock { $0.peer?.rate != nil ? "transport-cc" : "REMB" } }

    /// True once DTLS finished and media flows.
    public var isConnected: Bool { core.state.withLock { $0.peer?.phase == .connected } }

    /// Why publishing ended on its own (consent lost, ICE or DTLS failed) or "stopped"; nil while it goes on.
    public var endReason: String? { core.state.withLock { $0.endReason } }

    /// The peer's numbers (state, rate, REMB, NACKs, PLIs, keyframes); nil before `connect(answer:)`.
    public func statistics() -> WebRTCViewerStatistics? {
        let now = WebRTCServer.now()
        return core.state.withLock { $0.peer?.statistics(at: now) }
    }

    /// Messages for the operator (answer accepted, ICE selected, DTLS connected, why it ended), oldest first; drained.
    public func takeLog() -> [String] { core.state.withLock { $0.takeLog() } }
}

extension ICECandidate {
    /// An answer's `a=candidate` as the ICE agent takes it; nil for a type it cannot rank.
    init?(sdp candidate: WebRTCSDP.Candidate) {
        guard let kind = Kind(rawValue: candidate.type) else { return nil }
        self.init(foundation: candidate.foundation, component: candidate.component, transport: candidate.transport,
                  priority: candidate.priority, connectionAddress: candidate.address, port: candidate.port, kind: kind,
                  relatedAddress: candidate.relatedAddress, relatedPort: candidate.relatedPort)
    }
}
