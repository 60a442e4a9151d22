import Bitstream

/// The receiving side of one H.264 or HEVC RTP stream as a sans-IO state machine (str0m's shape): fed plaintext datagrams
/// and the time, polled for RTCP to transmit, for events, and for when it next wants to be woken. No sockets, no
/// clock reads, no threads, no SRTP: `RTPReceiver` is one driver of it, a virtual-time test loop another.
///
/// Inside: the reorder buffer and depacketizer of the configured codec (`H264Depacketizer`, `H265Depacketizer`),
/// NACK scheduling with retries (`NACKScheduler`), the NACK for the packets before a first IDR (HEVC: IRAP) that
/// came without its parameter sets (`StartOfStreamNACK`), the rules for when
/// to ask for a picture (`PictureRecovery`), sprop priming (`ParameterSetPrimer`) and the RTCP receiver session
/// (RR + SDES on schedule, LSR/DLSR from the sender's SR, throttled PLI, generic NACK).
///
/// A driver's loop: for each datagram `handle(rtp:at:)` or `handle(rtcp:at:)`; when `nextTimeout()` has come,
/// `handleTimeout(at:)`; after either, `pollTransmit(at:)` and `pollEvent()` until nil.
public struct RTPReceiveSession: Sendable {
    public let configuration: Configuration
    public internal(set) var statistics = RTPReceiveStatistics()

    var depacketizer: CodecDepacketizer
    var rtcp: RTCPReceiverSession
    var nacks: NACKScheduler
    /// Whether a decodable IDR has arrived since the start or the last loss, and which parameter sets are known.
    var recovery: PictureRecovery
    var primer: ParameterSetPrimer?
    /// The sequence numbers before the first packet still awaited (`StartOfStreamNACK`).
    var startPacketsAwaited: Set<UInt16> = []
    /// Other payload types already warned about (bounded: 128 values).
    var otherPayloadTypesSeen: Set<UInt8> = []
    var transmits = PollQueue<[UInt8]>()
    /// Transport-cc or RFC 8888 feedback, when configured.
    var congestionFeedback: CongestionFeedbackGenerator?
    var events = PollQueue<RTPReceiveEvent>()

    public init(configuration: Configuration) {
        self.configuration = configuration
        depacketizer = CodecDepacketizer(codec: configuration.codec, reorderWindow: configuration.reorderWindow,
                                         maxReorderDelay: configuration.maxReorderDelay)
        rtcp = RTCPReceiverSession(configuration: .init(ssrc: configuration.ssrc, cname: configuration.cname,
                                                        reportInterval: configuration.reportInterval,
                                                        minPictureLossInterval: configuration.minPictureLossInterval))
        nacks = NACKScheduler(retryInterval: configuration.nackRetryInterval, maxRequests: configuration.nackMaxRequests)
        recovery = PictureRecovery(codec: configuration.codec, parameterSets: configuration.parameterSets)
        congestionFeedback = configuration.congestionFeedback.map {
            CongestionFeedbackGenerator(format: $0, interval: configuration.feedbackInterval)
        }
        primer = configuration.primeParameterSets
            ? ParameterSetPrimer(codec: configuration.codec, parameterSets: configuration.parameterSets) : nil
    }

    /// The SSRC of the stream being received, once a packet came.
    public var remoteSSRC: UInt32? { rtcp.source?.ssrc }

    /// The next RTCP datagram to send (plaintext: the driver protects it), or nil. Builds the receiver report (RR +
    /// SDES) when it is due at `now`; NACK and PLI compounds were queued by the input that called for them.
    public mutating func pollTransmit(at now: RTPInstant) -> [UInt8]? {
        if let report = rtcp.makeReportIfDue(now: now) { transmits.push(report) }
        sendCongestionFeedbackIfDue(now: now)
        return transmits.pop()
    }

    /// The next event, or nil.
    public mutating func pollEvent() -> RTPReceiveEvent? { events.pop() }

    /// When `handleTimeout` has work: the next receiver report, the reorder buffer giving up on a hole, a NACK
    /// retry. Nil while nothing waits. (A retry for a hole filled since may show as an early time: harmless.)
    public func nextTimeout() -> RTPInstant? {
        var next = rtcp.nextReportTime
        func consider(_ time: RTPInstant?) {
            guard let time else { return }
            next = next.map { min($0, time) } ?? time
        }
        consider(depacketizer.nextDeadline)
        consider(congestionFeedback?.nextReportTime)
        if configuration.sendNACK { consider(nacks.nextRetry) }
        return next
    }

    /// The time has come (`nextTimeout()`), or any time: the report if due, holes given up on whose followers
    /// waited `maxReorderDelay`, NACK retries.
    public mutating func handleTimeout(at now: RTPInstant) {
        if let report = rtcp.makeReportIfDue(now: now) { transmits.push(report) }
        sendCongestionFeedbackIfDue(now: now)
        var released: [DepacketizerEvent] = []  // handled after: the depacketizer is busy
        depacketizer.expire(now: now) { released.append($0) }
        for event in released { handle(event, now: now) }
        requestRetransmissions(now: now)
    }

    /// The application wants a picture: a PLI now (throttled like the automatic ones; sent even with
    /// `sendPictureLossOnDrop` off, since it was asked for).
    public mutating func requestKeyframe(at now: RTPInstant) {
        sendPictureLoss(.requested, now: now)
    }

    /// The application's decoder rejected an access unit (or concealed damage in it), the one with RTP timestamp
    /// `rtpTimestamp` if given: PLI now, and again with the next access units (throttled) until an IDR arrives —
    /// unless an IDR that followed it was already received. Nothing is sent with `sendPictureLossOnDrop` off.
    public mutating func decoderFailed(rtpTimestamp: UInt32? = nil, at now: RTPInstant) {
        let reason = recovery.decoderFailed(timestamp: rtpTimestamp)
        if configuration.sendPictureLossOnDrop, let reason { sendPictureLoss(reason, now: now) }
    }

    /// End of the stream: access units still held by the reorder buffer are delivered (or reported dropped).
    public mutating func close(at now: RTPInstant) {
        var released: [DepacketizerEvent] = []  // handled after: the depacketizer is busy
        depacketizer.flush { released.append($0) }
        for event in released { handle(event, now: now) }
    }

    // MARK: - Feedback

    /// Transport-cc or RFC 8888 reports, each its own datagram (reduced-size RTCP, RFC 5506, as libwebrtc sends them).
    mutating func sendCongestionFeedbackIfDue(now: RTPInstant) {
        guard var generator = congestionFeedback else { return }
        for report in generator.makeReportsIfDue(senderSSRC: configuration.ssrc, now: now) {
            statistics.congestionFeedbackSent += 1
            transmits.push(report)
        }
        congestionFeedback = generator
    }

    /// NACKs the holes that are due (new, or unanswered for a retry interval) while they can still be filled.
    mutating func requestRetransmissions(now: RTPInstant) {
        guard configuration.sendNACK else { return }
        let due = nacks.due(missing: depacketizer.missingSequenceNumbers, now: now)
        guard !due.isEmpty, let nack = rtcp.makeNACK(lost: due, now: now) else { return }
        statistics.nacksSent += 1
        transmits.push(nack)
        if nacks.retriesDue > 0, configuration.sendPictureLossOnDrop, let reason = recovery.retransmissionOverdue() {
            sendPictureLoss(reason, now: now)
        }
    }

    mutating func sendPictureLoss(_ reason: PictureRecovery.Reason, now: RTPInstant) {
        guard let pli = rtcp.makePictureLossIndication(now: now) else { return }
        statistics.pictureLossIndicationsSent += 1
        statistics.pictureLossReasons[reason, default: 0] += 1
        transmits.push(pli)
        events.push(.keyframeRequested(reason))
    }
}
