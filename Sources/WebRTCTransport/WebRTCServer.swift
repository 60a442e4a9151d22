import CongestionControl
import DTLS
import Glibc
import MediaCore
import RTPOut
import Synchronization
import WebRTC

/// Serves one encoder's stream to WebRTC players (WHEP, design/webrtc.md §6.2): rtenc answers each player's offer as
/// an ICE-lite, `setup:active` sender and sends it SRTP on one UDP socket shared by every viewer.
///
/// The embedder's loop: `createSession(offer:)` for each player (a WHEP POST; `endSession(id:)` for its DELETE), then
/// for every encoded access unit `send(_:)`, asking `nextFrame()` before encoding the next one: skip it while a
/// viewer's pacer queue is too long (`QueuePushback`) or a viewer's controller leaves it no bytes, else its bit rate
/// (REMB through `ViewerBitratePolicy`, or the transport-cc viewers' own controllers; the lowest wins), its byte
/// budget (the lowest among those controllers: rtenc's gives one) and whether to make it an IDR (a new viewer's
/// first picture, PLI/FIR) — one `FrameDecider` decision. `takeKeyframeRequest()` and `encoderTarget` are the same
/// answers without the pushback.
///
/// Inside, one I/O thread demultiplexes datagrams by RFC 7983 class and by source: STUN to the viewer whose ufrag
/// the USERNAME names (or whose address is latched), DTLS to its endpoint, SRTCP unprotected to its
/// `RTPSendSession`. The sans-IO pieces run under one lock; the socket is read and written outside it.
public final class WebRTCServer: @unchecked Sendable {
    public let configuration: WebRTCServerConfiguration
    /// The UDP address every viewer's media leaves from.
    public let localAddress: SocketAddress
    public let certificate: DTLSCertificate

    /// What the I/O thread holds (socket, wake-up, state) and the thread: never the server itself, so dropping the
    /// last reference to the server runs its `deinit`, which stops the thread, and the socket closes with the core.
    let core: TransportCore<ServerState>
    private let endpoint: TransportEndpoint

    /// Binds the socket, makes the DTLS certificate and starts the I/O thread.
    public init(configuration: WebRTCServerConfiguration) throws(WebRTCTransportError) {
        let endpoint = try TransportEndpoint(bind: configuration.bind, candidates: configuration.candidates)
        certificate = endpoint.certificate
        var configuration = configuration
        configuration.candidates = endpoint.candidates
        self.configuration = configuration
        self.endpoint = endpoint
        localAddress = endpoint.socket.localAddress
        core = try TransportCore.start(
            socket: endpoint.socket, wake: endpoint.wake, state: ServerState(
                policy: ViewerBitratePolicy(ceiling: configuration.bitrateCeiling, floor: configuration.bitrateFloor)),
            threadName: "rtenc-whep-io")
    }

    deinit { stop() }

    /// Ends every viewer (RTCP BYE, DTLS close_notify) and stops the I/O thread (after at most about 2 s): when the
    /// first call returns, the thread has ended. Idempotent.
    public func stop() { core.stop() }

    // MARK: Sessions

    /// Answers a player's offer and starts serving it. Returns the SDP answer and the session's id (22 random
    /// URL-safe characters, the only credential its DELETE needs).
    /// - Throws: `.badOffer` (400), `.unacceptableOffer` (406, with the SDP layer's reason: what would work),
    ///   `.tooManyViewers` or `.tooManyPendingViewers` (503, `retryAfterSeconds`), `.transport` (DTLS or RTP set-up).
    public func createSession(offer: String) throws(WebRTCTransportError) -> (answer: String, id: String) {
        let (maxViewers, maxPending) = (configuration.maxViewers, configuration.maxPendingViewers)
        // Refused before any work (a flood of offers costs no certificate checks or sessions); checked again on adding.
        if let refusal = core.state.withLock({ $0.admissionRefusal(maxViewers: maxViewers, maxPending: maxPending) }) { throw refusal }
        var random = SystemRandomNumberGenerator()  // getrandom(2)
        let parameters = endpoint.localParameters(using: &random)
        var local = parameters.0
        let credentials = parameters.1
        let controller = configuration.congestionController.flatMap { $0.usesTransportFeedback ? $0 : nil }
        local.transportCC = controller != nil  // taken only when the offer has it (WHEPAnswer); REMB otherwise
        local.playoutDelay = configuration.immediatePlayout
        let ssrc = local.ssrc
        let id = TransportEndpoint.randomToken(length: 22, using: &random)
        let answer: WHEPAnswer
        do {
            answer = try WHEPAnswer(offerText: offer, encoding: configuration.encoding, local: local)
        } catch {
            let code: WebRTCTransportError.Code = [.malformed, .limitExceeded].contains(error.code) ? .badOffer : .unacceptableOffer
            throw WebRTCTransportError(code: code, reason: error.reason + (error.detail.map { " (\($0))" } ?? ""))
        }
        guard let remoteFingerprint = TransportEndpoint.sha256Fingerprint(answer.remote.fingerprints) else {
            throw WebRTCTransportError(code: .unacceptableOffer, reason: "the offer has no a=fingerprint:sha-256 of 32 bytes; rtenc checks the player's DTLS certificate with one")
        }
        let ourSetup = answer.description.media.first { $0.kind == "video" && $0.port != 0 }?.setup
        let role: DTLSRole = ourSetup == .passive ? .server : .client
        let now = Self.now()
        let viewer: WebRTCViewer
        do {
            let dtls = try DTLSEndpoint(role: role, certificate: certificate, remoteFingerprint: remoteFingerprint)
            let session = try RTPSendSession.webRTC(
                payloadType: answer.video.payloadType, ssrc: ssrc, cname: local.cname, absSendTimeID: answer.video.absSendTimeID,
                maxPayloadSize: configuration.maxPayloadSize, targetBitrate: core.state.withLock { $0.policy.target },
                sequenceParameterSet: configuration.sequenceParameterSet, pictureParameterSet: configuration.pictureParameterSet,
                codec: configuration.encoding.codec, videoParameterSet: configuration.videoParameterSet,
                transportCCExtensionID: answer.video.transportCCExtensionID, playoutDelayID: answer.video.playoutDelayID,
                retransmission: answer.video.retransmission,
                using: &random)
            var iceConfiguration = ICELiteAgent.Configuration(local: credentials, remoteUfrag: answer.remote.iceUfrag)
            iceConfiguration.consentTimeout = configuration.consentTimeout
            iceConfiguration.connectTimeout = configuration.connectTimeout
            let agent = ICELiteAgent(configuration: iceConfiguration, startedAt: now.instant)
            viewer = WebRTCViewer(id: id, localUfrag: credentials.ufrag, agent: agent, dtls: dtls, role: role, session: session,
                                  startedAt: now.instant)
            // A transport-cc viewer's own controller starts at the encoder's target now rather than at the controller's
            // own start rate (goog_cc's 300 kb/s): the target is the lowest among the viewers, so a newcomer starting
            // low would take every viewer's picture down with it. Its probes would not lift it back soon enough: goog_cc
            // probes at the start (3× and 6× the start rate, as padding on the viewer's RTX stream — none without one)
            // and in ALR, and climbs by AIMD above that. A path narrower than the target is found by the delay-based
            // estimator within a few hundred milliseconds instead.
            if controller != nil, answer.video.transportCCExtensionID != nil {
                viewer.rate = try configuration.media.peerController(start: core.state.withLock { $0.encoderTarget }, at: now.instant)
            }
        } catch {
            throw WebRTCTransportError(code: .transport, reason: "setting up the viewer: \(error)")
        }
        let refusal = core.state.withLock { state -> WebRTCTransportError? in
            if let refusal = state.admissionRefusal(maxViewers: maxViewers, maxPending: maxPending) { return refusal }
            state.add(viewer)
            return nil
        }
        if let refusal { throw refusal }
        core.wake.signal()
        return (answer.text, id)
    }

    /// Ends a viewer (a WHEP DELETE): RTCP BYE and DTLS close_notify go out. False for an unknown id.
    public func endSession(id: String) -> Bool {
        let found = core.state.withLock { state -> Bool in
            guard let viewer = state.viewers[id] else { return false }
            state.end(viewer, reason: "ended by DELETE", at: Self.now())
            return true
        }
        if found { core.wake.signal() }
        return found
    }

    // MARK: Media

    /// Queues one encoded access unit for every viewer whose SRTP is ready (a viewer's first is its keyframe: the
    /// frames before it cannot be decoded and are not sent to it).
    public func send(_ accessUnit: CodedAccessUnit, captureTime: RTPInstant? = nil) {
        let now = Self.now()
        let queued = core.state.withLock { $0.enqueue(accessUnit, captureTime: captureTime ?? now.rtp, at: now) }
        if queued { core.wake.signal() }
    }

    /// True once after a viewer became ready for media or asked for a picture (PLI/FIR, each viewer's requests
    /// throttled to one per 300 ms by its session): encode the next frame as an IDR.
    public func takeKeyframeRequest() -> Bool { core.state.withLock { $0.takeKeyframeRequest() } }

    /// Before each frame (`FrameDecider`): skip it (a viewer's pacer queue is over `QueuePushback.bound`, or a
    /// viewer's own controller left it no bytes), or encode it at `encoderTarget` (the rate policy's target, pushed
    /// back while the queue fills) within `maxFrameBytes` (the lowest budget among the viewers' controllers), as an
    /// IDR when `forceKeyframe` (a new viewer, PLI/FIR, a queue given up; a request that meets a skipped frame waits
    /// for the next one). Takes the keyframe request as `takeKeyframeRequest()` does. Hand the frame to `send(_:)`.
    /// `mustEncode`: the caller forces this frame as an IDR (`--force-idr`); it is never skipped.
    public func nextFrame(mustEncode: Bool = false) -> WebRTCFrameDecision {
        let now = Self.now()
        return core.state.withLock { $0.frameDecision(at: now, mustEncode: mustEncode) }
    }

    /// The encoder's target: the ceiling unless some viewer's REMB says its path is congested (`ViewerBitratePolicy`).
    /// The viewers' pacers follow it.
    public var encoderTarget: UInt64 { core.state.withLock { $0.encoderTarget } }

    /// What the per-frame decisions came to (`nextFrame()`): frames skipped and why, queues given up, budgets.
    public var frameStatistics: FrameDecider.Statistics { core.state.withLock { $0.decider.statistics } }

    /// What moves the target now: "transport-cc" when a connected viewer runs its own controller, else "REMB".
    public var rateSource: String { core.state.withLock { $0.rateSource } }

    /// Viewers not yet ended.
    public var viewerCount: Int { core.state.withLock { $0.viewers.count } }

    public func statistics() -> [WebRTCViewerStatistics] {
        let now = Self.now()
        return core.state.withLock { $0.statistics(at: now) }
    }

    /// Messages for the operator (viewers connected, ended and why, failures), oldest first; drained.
    public func takeLog() -> [String] { core.state.withLock { $0.takeLog() } }

    // MARK: Helpers

    static func now() -> ServerTime { ServerTime.now() }
}

/// One reading of the clocks the sans-IO pieces take: RTP's wall clock (RTCP SR NTP times, abs-send-time) and the
/// monotonic clock every timer runs on (ICE consent, DTLS retransmission, the I/O loop's waits).
struct ServerTime {
    var rtp: RTPInstant
    var instant: Instant

    /// Both clocks, read here only.
    static func now() -> ServerTime {
        ServerTime(rtp: wallClockNow(), instant: MonotonicMediaClock().now)
    }

    /// A time on the RTP (wall) clock as the monotonic instant of the same moment, by its distance from this reading.
    func instant(at time: RTPInstant) -> Instant { instant + (time - rtp) }

    /// What to add to a time the session stamped from the wall clock (`Instant(RTPInstant)`: sent packets, feedback
    /// reports) to put it on the monotonic clock the peers' controllers run on.
    var controllerShift: Duration { instant - Instant(rtp) }
}
