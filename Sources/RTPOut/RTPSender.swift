import Bitstream
import MediaCore
import Synchronization

/// Access units in, RTP out: payloader → packet queue → pacer → UDP, with RTCP (SR out; RR, PLI, FIR, NACK, REMB,
/// TMMBR in) on a background I/O thread.
///
/// `send(accessUnit:…)` packetizes on the caller's thread into preallocated slots. Paced, it wakes the I/O thread,
/// which sends what the pacer allows with sendmmsg(2); unpaced, it sends the access unit itself before returning
/// (see `send(accessUnit:rtpTimestamp:captureTime:)` for how each mode treats a full queue or socket). Feedback reaches the encoder through `onKeyframeRequest` (already
/// throttled) and `onBitrateLimit`; both run on the I/O thread, so they should only set a flag or a value (they may
/// call `send`, but never `close`, which waits for that thread). Unpaced, warnings about the media sent on the
/// caller's thread (`onWarning`) are reported there, before `send` returns.
///
/// The logic is an `RTPSendSession` (sans-IO); this class is its UDP driver, and holds the session's lock only for
/// the session's calls, never across a system call. With `ioLoop:` that thread is an `RTPSenderIOLoop`
/// shared with other senders instead of one of its own.
public final class RTPSender: Sendable {
    /// Who runs this sender's I/O: its own thread, or a shared loop (held so it lives as long as its members).
    private enum IOOwner {
        case thread(BackgroundThread)
        case shared(RTPSenderIOLoop, CompletionSignal)
    }

    public let configuration: RTPSenderConfiguration
    /// Our RTP socket's address (the port the peer sees as the RTP source).
    public let localRTPAddress: SocketAddress
    /// Where RTCP from the peer is received.
    public let localRTCPAddress: SocketAddress

    private let core: SenderCore
    private let io: Mutex<IOOwner?>

    /// Opens the sockets and starts the I/O thread.
    /// - Parameters:
    ///   - videoParameterSet/sequenceParameterSet/pictureParameterSet: known parameter sets (a VPS for HEVC only),
    ///     inserted before keyframes (IDR, HEVC's IRAP) that lack them.
    ///   - onKeyframeRequest: the peer lost a picture (PLI/FIR, throttled): force an IDR on the next frame.
    ///   - onBitrateLimit: the peer asks for at most this many bits/s (REMB/TMMBR). With a handler the application owns
    ///     the rate: it sets the encoder's target and the pacing rate (`setTargetBitrate`) together, as StreamControl's
    ///     `LiveBitrateController` does; without one, pacing follows the peer's limit on its own.
    ///   - onWarning: things worth a log line, each kind reported once (peer not listening, send errors).
    ///   - onTransportFeedback: a congestion-control feedback report (transport-cc, RFC 8888) about packets sent,
    ///     normalised, for a rate controller (`LiveBitrateController` hands it to its policy). On the I/O thread.
    ///   - onPacketsSent: the sent-packet path for a rate controller (`observe(sent:)`): the packets that left since
    ///     the last call, in sending order, with the transport-wide number, wire size, send time (the sender's wall
    ///     clock) and kind the feedback reports will name; once per I/O turn, before that turn's feedback, on the
    ///     thread that sent them. Only with transport-wide numbering or RFC 8888 on. The array is lent for the call:
    ///     copy what you keep, and do not call into this sender from the handler.
    ///   - ioLoop: serve this sender from a loop shared with other senders (many streams in one process) instead
    ///     of a thread of its own; nil (the default) starts its own thread. Paced senders only (`.invalidValue`
    ///     otherwise): an unpaced sender sends and waits for its socket on the caller's thread.
    public init(
        configuration: RTPSenderConfiguration, videoParameterSet: [UInt8]? = nil, sequenceParameterSet: [UInt8]? = nil,
        pictureParameterSet: [UInt8]? = nil, onKeyframeRequest: (@Sendable () -> Void)? = nil, onBitrateLimit: (@Sendable (UInt64) -> Void)? = nil,
        onWarning: (@Sendable (String) -> Void)? = nil,
        onTransportFeedback: (@Sendable (TransportPacketsFeedback) -> Void)? = nil,
        onPacketsSent: (@Sendable ([SentPacket]) -> Void)? = nil, ioLoop: RTPSenderIOLoop? = nil
    ) throws(RTPError) {
        self.configuration = configuration
        if ioLoop != nil, case .unpaced = configuration.pacing {
            throw .make(.invalidValue, "an unpaced sender waits for its socket on the caller's thread and cannot share an RTPSenderIOLoop")
        }
        let any = try SocketAddress(host: configuration.destination.family == .ipv4 ? "0.0.0.0" : "::", port: 0)
        let (rtp, rtcp) = try UDPSocketPair.open(at: any.withPort(configuration.localRTPPort), rtcpMux: configuration.rtcpMux)
        if !configuration.rtcpMux {
            // Connected: no per-packet route lookup, and ICMP port-unreachable shows up as ECONNREFUSED.
            try rtp.connect(to: configuration.destination)
        }
        localRTPAddress = rtp.localAddress
        localRTCPAddress = rtcp.localAddress
        let payloader = try RTPSendSession.makePayloader(
            configuration.sessionConfiguration(batchSize: 1, wireOverhead: 0), videoParameterSet: videoParameterSet,
            sequenceParameterSet: sequenceParameterSet, pictureParameterSet: pictureParameterSet)
        // A shared loop has one wake signal for all its members; a sender with its own thread has its own.
        let wake = if let ioLoop { ioLoop.engine.wake } else { try WakeSignal() }
        let core = try SenderCore(
            configuration: configuration, payloader: payloader, rtpSocket: rtp, rtcpSocket: rtcp, wake: wake,
            callbacks: .init(onKeyframeRequest: onKeyframeRequest, onBitrateLimit: onBitrateLimit,
                             onTransportFeedback: onTransportFeedback, onWarning: onWarning, onPacketsSent: onPacketsSent),
            sharedLoop: ioLoop?.engine)
        self.core = core
        // The thread (or loop) holds the core, not the sender, so dropping the last reference to the sender still
        // closes it.
        if let ioLoop {
            io = Mutex(.shared(ioLoop, ioLoop.engine.add(core)))
        } else {
            io = Mutex(.thread(try BackgroundThread { core.runLoop() }))
        }
    }

    /// Sends one access unit (NAL units without start codes) with RTP timestamp `rtpTimestamp`.
    /// `captureTime` (wall clock) ties the RTP clock to NTP in sender reports; nil = now.
    ///
    /// Paced (live): packetizes into the queue and returns; the I/O thread sends at the pacing rate. When the queue
    /// is full (`queueCapacity`), packets are dropped and counted in `packetsDropped`: an encoder must not wait for
    /// a congested link, and a packet that late would be useless to a live receiver anyway.
    ///
    /// Unpaced (file-to-file): every packet is on the wire when this returns. It sends on the caller's thread with
    /// sendmmsg(2) and waits for the socket when its buffer is full, so a fast caller is slowed down instead of
    /// losing packets. A peer that is not listening (ICMP port unreachable) is counted in `icmpErrors`, warned
    /// about once, and does not stop or thin the stream.
    ///
    /// This is the low-level form for NAL units without a `CodedAccessUnit` around them (a caller's own RTP clock,
    /// tests); `send(_:captureTime:)` is the usual one.
    public func send(accessUnit nalUnits: [ArraySlice<UInt8>], rtpTimestamp: UInt32, captureTime: RTPInstant? = nil) throws(RTPError) {
        // Bare NAL units say nothing about themselves: this is the one place the sender looks for an IDR (an IRAP).
        let codec = configuration.session.codec
        let isKeyframe = nalUnits.contains { unit in unit.first.map { codec.isRandomAccessSlice(nalUnitType: codec.nalUnitType(firstByte: $0)) } ?? false }
        try send(nalUnits: nalUnits, rtpTimestamp: rtpTimestamp, isKeyframe: isKeyframe, captureTime: captureTime)
    }

    /// Sends one coded access unit — an `EncodedFrame.accessUnit`, a file reader's, a depacketized one — with the
    /// RTP timestamp this sender owns: the presentation time on the 90 kHz clock (RFC 6184 §5.1, rounded) plus the
    /// configured random `timestampOffset`, modulo 2^32. Callers give media time, never RTP ticks. The NAL units
    /// are taken where the producer found them (any framing: the ranges skip start codes and lengths alike), and
    /// its keyframe flag is trusted, so nothing is scanned again. Paced or unpaced as
    /// `send(accessUnit:rtpTimestamp:captureTime:)` describes.
    /// - Returns: the RTP timestamp the packets carry (what a receiver reports back, for matching).
    /// - Throws: `.unsupported` for a codec other than the configured one; `.invalidValue` for a time scale that is not positive
    ///   or NAL unit ranges that are empty or outside the bytes; `.closed` after `close()`.
    @discardableResult
    public func send(_ accessUnit: CodedAccessUnit, captureTime: RTPInstant? = nil) throws(RTPError) -> UInt32 {
        try core.send { session, now throws(RTPError) in try session.enqueue(accessUnit, captureTime: captureTime ?? now, at: now) }
    }

    /// The one way in for NAL units: `isKeyframe` as the caller's producer knows it.
    func send(nalUnits: [ArraySlice<UInt8>], rtpTimestamp: UInt32, isKeyframe: Bool, captureTime: RTPInstant?) throws(RTPError) {
        try core.send { session, now throws(RTPError) in
            try session.enqueue(nalUnits: nalUnits, rtpTimestamp: rtpTimestamp, isKeyframe: isKeyframe, captureTime: captureTime ?? now, at: now)
        }
    }

    /// Same, with the RTP timestamp computed from `pts` in `timeBase` (e.g. 1/30) plus the configured random offset.
    public func send(accessUnit nalUnits: [ArraySlice<UInt8>], pts: Int64, timeBase: (numerator: Int64, denominator: Int64),
                     captureTime: RTPInstant? = nil) throws(RTPError) {
        let timestamp = RTPClock.timestamp(pts: pts, timeBaseNumerator: timeBase.numerator, timeBaseDenominator: timeBase.denominator,
                                           offset: configuration.session.timestampOffset)
        try send(accessUnit: nalUnits, rtpTimestamp: timestamp, captureTime: captureTime)
    }

    /// Changes the pacing rate (the encoder's new target); REMB/TMMBR do this by themselves.
    public func setTargetBitrate(_ bitsPerSecond: UInt64) {
        core.session.withLock { $0.setTargetBitrate(bitsPerSecond) }
    }

    /// Sends `cluster` as padding-only probe packets on the RTX stream at the cluster's rate
    /// (`RTPSendSession.startProbe`), ahead of the media: what a congestion controller's probe clusters become.
    /// - Returns: false when the cluster was not taken (too many waiting).
    /// - Throws: `.unsupported` without RTX in the configuration; `.invalidValue` for an empty cluster; `.closed`.
    @discardableResult
    public func startProbe(_ cluster: ProbeCluster) throws(RTPError) -> Bool {
        let now = wallClockNow()
        let taken = try core.session.withLock { session throws(RTPError) in try session.startProbe(cluster, at: now) }
        core.requestService()
        return taken
    }

    public var statistics: RTPSenderStatistics {
        let now = wallClockNow()
        return core.session.withLock { $0.statistics(at: now) }
    }

    /// True while packets wait for the pacer.
    public var isBusy: Bool { core.session.withLock { $0.queuedPackets > 0 } }

    /// How long what waits for the pacer takes to leave at the pacing rate (`RTPSendSession.expectedQueueTime`); nil
    /// unpaced. What a live encode loop pushes back on (`FrameDecider` in CongestionControl).
    public var expectedQueueTime: Duration? { core.session.withLock { $0.expectedQueueTime } }

    /// Gives up what waits for the pacer (`RTPSendSession.flushQueue`: dropped and counted, nothing sent before now
    /// retransmitted); the caller sends an IDR next. Returns how many packets were dropped.
    @discardableResult
    public func flushQueue() -> Int {
        let now = wallClockNow()
        return core.session.withLock { $0.flushQueue(at: now) }
    }

    /// The SDP a receiver needs for this stream (RFC 6184 §8 with sprop-parameter-sets; for HEVC RFC 7798 §7 with
    /// sprop-vps/sps/pps and the SPS's profile-id, tier-flag and level-id — `videoParameterSet` is HEVC's and
    /// ignored for H.264); with SRTP it carries the key (RFC 4568 `a=crypto`), so it is as secret as the key.
    public func sessionDescription(videoParameterSet: [UInt8] = [], sequenceParameterSet: [UInt8], pictureParameterSet: [UInt8],
                                   feedback: SessionDescription.Feedback = [.nack, .pictureLossIndication, .fullIntraRequest,
                                                                            .receiverEstimatedMaximumBitrate, .temporaryMaximumBitrate]) -> SessionDescription {
        let destination = configuration.destination
        var description = SessionDescription(
            connectionAddress: destination.host, port: destination.port, rtcpPort: configuration.destinationRTCP.port,
            rtcpMux: configuration.rtcpMux, payloadType: configuration.payloadType,
            packetizationMode: configuration.payloader.packetizationMode, sequenceParameterSet: sequenceParameterSet,
            pictureParameterSet: pictureParameterSet, feedback: feedback, ssrc: configuration.ssrc, cname: configuration.cname,
            rtx: configuration.rtx, srtp: configuration.srtp, sessionID: UInt64(configuration.ssrc),
            originAddress: localRTPAddress.family == .ipv4 ? "127.0.0.1" : "::1")
        if configuration.codec == .hevc {
            description.codec = .hevc
            description.videoParameterSet = videoParameterSet
        }
        description.headerExtensions = configuration.headerExtensions
        description.congestionControlFeedback = configuration.acceptsCongestionControlFeedback
        return description
    }

    /// The SDP from what this sender has seen: the last parameter sets (SPS and PPS; HEVC: VPS, SPS and PPS) that
    /// went through its payloader (the first keyframe's, when the encoder puts them in band) or were given at
    /// creation. nil until it has them all — so the obvious order works: send the first access unit, then write
    /// the SDP. (AVCC output keeps them out of band, in `EncodedFrame.parameterSets`: give them at creation or use
    /// `sessionDescription(videoParameterSet:sequenceParameterSet:…)`.)
    public func sessionDescription(
        feedback: SessionDescription.Feedback = [.nack, .pictureLossIndication, .fullIntraRequest,
                                                 .receiverEstimatedMaximumBitrate, .temporaryMaximumBitrate]
    ) -> SessionDescription? {
        let sets: (vps: [UInt8]?, sps: [UInt8]?, pps: [UInt8]?) = core.session.withLock { session in
            switch session.payloader {
            case let h264 as H264Payloader: ([], h264.sequenceParameterSet, h264.pictureParameterSet)
            case let h265 as H265Payloader: (h265.videoParameterSet, h265.sequenceParameterSet, h265.pictureParameterSet)
            default: (nil, nil, nil)
            }
        }
        guard let vps = sets.vps, let sps = sets.sps, let pps = sets.pps else { return nil }
        return sessionDescription(videoParameterSet: vps, sequenceParameterSet: sps, pictureParameterSet: pps, feedback: feedback)
    }

    /// Sends what is queued (waiting for the pacer, up to `drainTimeout`), then — `goodbyeDelay` later, within the
    /// same timeout — SR + BYE, and stops the I/O thread. The delay is skipped when nobody listens: the peer never
    /// sent RTCP and its host refused (ICMP port unreachable) the last RTP datagrams or, when it refused some earlier
    /// and the last drew nothing (hosts rate-limit ICMP), one of up to three empty probe datagrams sent during the
    /// delay (`RTPSendSession+Goodbye`).
    public func close(drainTimeout: Duration = .seconds(2)) {
        let now = wallClockNow()
        core.session.withLock { $0.close(at: now, drainTimeout: drainTimeout) }
        core.requestService()
        let owner = io.withLock { owner in
            defer { owner = nil }
            return owner
        }
        switch owner {
        case .thread(let thread): thread.join()
        // Then the loop handle is released here. On the loop's own thread (the last reference dropped in one of its
        // callbacks) there is nobody to wait for: the loop finishes this member after the callback returns.
        case .shared(let loop, let done): if !loop.isCurrentThread { done.wait() }
        case nil: break
        }
    }

    deinit { close(drainTimeout: .zero) }
}

