import MediaCore

/// The RTP sender as a sans-IO state machine (str0m's `Rtc`, for one outgoing stream): access units and RTCP in,
/// datagrams to transmit and events out, the time handed in on every call. It opens no socket, reads no clock, starts
/// no thread and does no SRTP; a driver does those (`RTPSender`'s I/O thread or shared loop, a test in virtual time,
/// a WebRTC transport) and confines the session to one thread at a time (a lock held for the call, never across I/O).
///
/// The driver's loop:
/// - `enqueue` each access unit (the session owns the RTP timestamp: media time in, no ticks);
/// - `handle(rtcp:at:)` each plaintext RTCP datagram from the peer;
/// - `pollTransmit(at:)` until nil, sending each transmit and reporting with `didTransmit` (or `didFailTransmit`);
/// - `pollEvent()` until nil, for the application (keyframe requests, bitrate limits, warnings, goodbye);
/// - sleep until `nextTimeout()` or until something arrives.
///
/// Inside: payloader → packet queue → pacer → history (+ RTX), and the RTCP session (SR schedule, feedback).
public struct RTPSendSession: ~Copyable {
    public let configuration: Configuration
    /// The payloader (for what it learnt of the stream, such as H.264's parameter sets).
    public let payloader: any RTPPayloader

    typealias Packetize = ([ArraySlice<UInt8>], UInt32, inout QueueDestination) throws(RTPError) -> Void
    /// The packetizer, specialized for the concrete payloader at init (no existential call per packet), writing each
    /// packet into its queue slot.
    let packetize: Packetize
    let queue: PacketQueue
    let history: PacketHistory
    var pacer: Pacer
    let paced: Bool
    package var rtcp: RTCPSenderSession
    var rtx: RTXEncoder?
    /// Where a NACKed packet is rewritten as RTX before it is queued (allocated once).
    let rtxBuffer: UnsafeMutableRawBufferPointer
    /// Where a packet is written when a paced queue is full, to be dropped and counted: the payloader always gets
    /// room to write into, and nothing in the queue is touched.
    let overflowSlot: UnsafeMutableRawBufferPointer
    /// The views of the transmit that is out (`RTPTransmit.datagrams`).
    let views: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>
    /// The RTCP compound that is out.
    let rtcpBuffer: UnsafeMutableRawBufferPointer
    /// Where the header extensions sit in every packet, filled in at `pollTransmit`.
    let extensionLayout: SendHeaderExtensionLayout
    /// What was sent, for congestion-control feedback (nil: no transport-wide numbering, no RFC 8888).
    var sentPackets: SentPacketHistory?
    /// Probe clusters being sent as padding (`startProbe`).
    var probes = ProbeSchedule()
    /// How long each recent frame waited from `enqueue` until its first and its last (marker) packet were handed to
    /// the driver (`RTPSenderStatistics.firstPacketDelay`, `lastPacketDelay`): the pacer's share of latency.
    var frameSendDelays = FrameSendDelays()

    /// The NAL units of the access unit being queued, as slices; capacity reused (no allocation per access unit).
    var nalUnitSlices: [ArraySlice<UInt8>] = []
    var stats = RTPSenderStatistics()
    var rate = RateMeter()
    var events: [RTPSendEvent] = []
    var warned: Set<RTPSendWarning.Kind> = []
    /// The transmit handed out and not yet reported: at most one at a time.
    var outstanding: Outstanding?
    /// RTCP compounds waiting for `pollTransmit` (TMMBN replies).
    var pendingRTCP: [[UInt8]] = []
    /// NACKed sequence numbers, in the order they go to the front of the queue, held while a batch is out (putting
    /// them in front would move the packets the batch points to).
    var retransmissionRequests: [UInt16] = []
    var closeDeadline: RTPInstant?
    /// When the queue was found empty after `close`; the BYE follows `goodbyeDelay` later.
    var drainedAt: RTPInstant?
    public internal(set) var isClosed = false
    /// The last datagrams were refused (ICMP port unreachable) and nothing was taken since: nobody listens (for now).
    var refusedAfterLastSend = false
    /// Refusal probes the driver sent during the BYE linger (`RTPSendSession+Goodbye`).
    var refusalProbesSent = 0
    /// The socket was full at the last RTP transmit: the pacer is no reason to be called again.
    var writeBlocked = false
    /// The RTP timestamp of the last access unit queued (padding-only packets carry it).
    var lastQueuedTimestamp: UInt32 = 0
    /// The latest `now` seen, for `nextTimeout`.
    var latestNow = RTPInstant(nanosecondsSinceEpoch: .min)
    /// Packets first sent before this are not retransmitted (`flushQueue`: the picture they belong to was given up).
    var retransmitsSentAfter: RTPInstant?

    enum Outstanding {
        case rtp(count: Int)
        case rtcp(goodbye: Bool)
    }

    /// Largest RTCP compound the session builds (SR + SDES + BYE, or a reply), before SRTCP adds its trailer.
    public static let maxRTCPPacket = 1500

    /// A session with the payloader of `configuration.codec` (RFC 6184 for H.264, RFC 7798 for HEVC) made from
    /// `configuration.payloader`, knowing `videoParameterSet` (HEVC only), `sequenceParameterSet` and
    /// `pictureParameterSet` (inserted before keyframes — IDR, HEVC's IRAP — that lack them) if given.
    /// - Parameter random: draws the RTCP report intervals and the RTX stream's first sequence number; a seeded one
    ///   makes the session deterministic.
    public init(
        configuration: Configuration, videoParameterSet: [UInt8]? = nil, sequenceParameterSet: [UInt8]? = nil,
        pictureParameterSet: [UInt8]? = nil, random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) throws(RTPError) {
        let payloader = try Self.makePayloader(configuration, videoParameterSet: videoParameterSet,
                                               sequenceParameterSet: sequenceParameterSet, pictureParameterSet: pictureParameterSet)
        try self.init(configuration: configuration, payloader: payloader, random: random)
    }

    /// A session over any payloader of `configuration.codec` (the codec `enqueue` accepts).
    /// - Throws: `.fieldOverflow` for a CNAME outside 1…255 bytes or a payload type above 127; `.invalidValue` for a
    ///   batch size below 1, a payloader without room for the RTP header, or one of another codec than the
    ///   configuration's.
    public init(
        configuration: Configuration, payloader: some RTPPayloader,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) throws(RTPError) {
        guard (1 ... 255).contains(configuration.cname.utf8.count) else {
            throw .make(.fieldOverflow, "CNAME of \(configuration.cname.utf8.count) bytes; an SDES item holds 1…255")
        }
        guard configuration.batchSize >= 1 else { throw .make(.invalidValue, "batch size \(configuration.batchSize) below 1") }
        guard payloader.codec == configuration.codec else {
            throw .make(.invalidValue, "the configuration's codec is \(configuration.codec), the payloader's \(payloader.codec)")
        }
        let packetizer = try RTPPacketizer(payloader: payloader, payloadType: configuration.payloadType, ssrc: configuration.ssrc,
                                           sequencer: RTPSequencer(initial: configuration.initialSequenceNumber))
        extensionLayout = try SendHeaderExtensionLayout(configuration.headerExtensions)
        packetizer.extensionTemplate = extensionLayout.template
        self.configuration = configuration
        self.payloader = payloader
        packetize = Self.packetize(with: packetizer)
        // Slot size: the largest packet the payloader makes, with the header extensions (+2 for the RTX OSN).
        let slot = payloader.headroom + extensionLayout.size + payloader.maxPayloadSize + 2
        queue = PacketQueue(capacity: configuration.queueCapacity, slotSize: slot)
        history = PacketHistory(capacity: configuration.historySize, maxPacketSize: slot)
        switch configuration.pacing {
        case .unpaced:
            pacer = .unpaced
            paced = false
        case .paced(let bitrate, let factor):
            pacer = Pacer(targetBitrate: bitrate, pacingFactor: factor, burst: configuration.pacingBurst)
            paced = true
        }
        var random = random
        rtx = configuration.rtx.map {
            RTXEncoder(payloadType: $0.payloadType, ssrc: $0.ssrc, sequencer: RTPSequencer(initial: .random(in: 0 ... .max, using: &random)))
        }
        rtcp = RTCPSenderSession(
            configuration: .init(ssrc: configuration.ssrc, cname: configuration.cname, clockRate: payloader.clockRate,
                                 reportInterval: configuration.reportInterval,
                                 minKeyframeRequestInterval: configuration.minKeyframeRequestInterval),
            random: random)
        if configuration.tracksSentPackets {
            let ssrcs = configuration.acceptsCongestionControlFeedback
                ? [configuration.ssrc] + (configuration.rtx.map { [$0.ssrc] } ?? []) : []
            sentPackets = SentPacketHistory(rtpIndexFor: ssrcs)
        }
        rtxBuffer = .allocate(byteCount: slot + 2, alignment: 8)
        overflowSlot = .allocate(byteCount: slot, alignment: 8)
        views = .allocate(capacity: configuration.batchSize)
        rtcpBuffer = .allocate(byteCount: Self.maxRTCPPacket, alignment: 8)
        nalUnitSlices.reserveCapacity(64)
    }

    /// The packetize step over the queue. The payloaders of this module get a closure over their concrete type:
    /// this init is generic and not inlinable, so a caller in another module (RTPSender) reaches it unspecialized, and
    /// the per-packet calls through a generic destination (room, commit, header) would each go through metadata and
    /// witness tables — 20 % of the session benchmark's time, measured. Any other payloader takes the generic path.
    private static func packetize<P: RTPPayloader>(with packetizer: RTPPacketizer<P>) -> Packetize {
        if let h264 = packetizer as? RTPPacketizer<H264Payloader> {
            return { nalUnits, timestamp, destination throws(RTPError) in
                try h264.packetize(nalUnits, timestamp: timestamp, into: &destination)
            }
        }
        if let h265 = packetizer as? RTPPacketizer<H265Payloader> {
            return { nalUnits, timestamp, destination throws(RTPError) in
                try h265.packetize(nalUnits, timestamp: timestamp, into: &destination)
            }
        }
        return { nalUnits, timestamp, destination throws(RTPError) in
            try packetizer.packetize(nalUnits, timestamp: timestamp, into: &destination)
        }
    }

    deinit {
        rtxBuffer.deallocate()
        overflowSlot.deallocate()
        views.deallocate()
        rtcpBuffer.deallocate()
    }

    // MARK: Media in

    /// Queues one coded access unit: its NAL units where the producer found them (no rescan), its keyframe flag as
    /// the producer knew it, and the RTP timestamp from its presentation time (`rtpTimestamp(for:)`).
    /// `captureTime` (wall clock) ties the RTP clock to NTP in sender reports.
    ///
    /// Paced, a full queue drops the packets that do not fit and counts them (`packetsDropped`): a live encoder must
    /// not wait for a slow link. Unpaced, the queue grows instead: nothing is dropped.
    /// - Returns: the RTP timestamp the packets carry.
    /// - Throws: `.unsupported` for another codec than the payloader's; `.invalidValue` for a time scale that is not
    ///   positive or NAL unit ranges that are empty or outside the bytes; `.closed` after `close`; what the payloader
    ///   throws (a NAL unit it cannot carry).
    @discardableResult
    public mutating func enqueue(_ accessUnit: CodedAccessUnit, captureTime: RTPInstant, at now: RTPInstant) throws(RTPError) -> UInt32 {
        // The reused array, out of `self` for the call (swapping moves no elements and allocates nothing).
        var nalUnits: [ArraySlice<UInt8>] = []
        swap(&nalUnits, &nalUnitSlices)
        defer {
            nalUnits.removeAll(keepingCapacity: true)
            swap(&nalUnits, &nalUnitSlices)
        }
        try accessUnit.appendCheckedNALUnits(for: payloader.codec, to: &nalUnits)
        guard accessUnit.presentationTime.timescale > 0 else {
            throw .make(.invalidValue, "presentation time scale \(accessUnit.presentationTime.timescale) is not positive")
        }
        let timestamp = rtpTimestamp(for: accessUnit.presentationTime)
        try enqueue(nalUnits: nalUnits, rtpTimestamp: timestamp, isKeyframe: accessUnit.isKeyframe, captureTime: captureTime, at: now)
        return timestamp
    }

    /// `presentationTime` on the payload format's clock (90 kHz for H.264, rounded) plus `timestampOffset`,
    /// modulo 2^32 (RFC 3550 §5.1).
    public func rtpTimestamp(for presentationTime: MediaTime) -> UInt32 {
        UInt32(truncatingIfNeeded: presentationTime.converted(to: payloader.clockRate).value) &+ configuration.timestampOffset
    }

    /// The low-level form: NAL units (no start codes) with a caller's own RTP timestamp.
    package mutating func enqueue(nalUnits: [ArraySlice<UInt8>], rtpTimestamp: UInt32, isKeyframe: Bool, captureTime: RTPInstant,
                                  at now: RTPInstant) throws(RTPError) {
        guard closeDeadline == nil else { throw RTPError(code: .closed, reason: "send after close()") }
        observe(now)
        var destination = QueueDestination(queue: queue, grows: !paced, overflow: overflowSlot, rtpTimestamp: rtpTimestamp,
                                           captureTime: captureTime, queuedAt: now, headerSize: RTPHeader.fixedSize + extensionLayout.size)
        defer { stats.packetsDropped += destination.dropped }
        try packetize(nalUnits, rtpTimestamp, &destination)
        lastQueuedTimestamp = rtpTimestamp
        stats.accessUnitsSent += 1
        if isKeyframe { stats.keyframesSent += 1 }
    }

    // MARK: Control

    /// Changes the pacing rate (the encoder's new target); no effect unpaced.
    public mutating func setTargetBitrate(_ bitsPerSecond: UInt64) {
        if paced { pacer.setTargetBitrate(bitsPerSecond) }
    }

    /// Ends the stream: what is queued still goes (at the pacer's rate), then — `goodbyeDelay` after the queue
    /// drained, or at `now + drainTimeout` at the latest — SR + SDES + BYE, after which the session is closed.
    /// The delay is skipped when nobody listens (the last datagrams were refused and the peer never sent RTCP).
    /// Media after this throws `.closed`; a second call can only bring the deadline closer.
    public mutating func close(at now: RTPInstant, drainTimeout: Duration = .seconds(2)) {
        observe(now)
        let deadline = now + drainTimeout
        closeDeadline = closeDeadline.map { min($0, deadline) } ?? deadline
    }

    /// True from `close` on.
    public var isClosing: Bool { closeDeadline != nil }

    /// Packets waiting in the queue (for the pacer, or for a driver to report a transmit).
    public var queuedPackets: Int { queue.count }

    /// A transmit is out and not yet reported: `pollTransmit` hands out nothing until it is.
    public var hasOutstandingTransmit: Bool { outstanding != nil }

    // MARK: Events, time, statistics

    /// The next thing the application should hear about, oldest first.
    public mutating func pollEvent() -> RTPSendEvent? {
        events.isEmpty ? nil : events.removeFirst()
    }

    /// When the session wants to be called again (`pollTransmit`) at the latest: the pacer's next packet, the next
    /// sender report, the BYE. The latest `now` it was given when something is due already; nil once closed.
    public func nextTimeout() -> RTPInstant? {
        guard !isClosed else { return nil }
        var next: RTPInstant?
        func consider(_ time: RTPInstant) { next = min(next ?? time, time) }
        if outstanding == nil {
            if !pendingRTCP.isEmpty || !retransmissionRequests.isEmpty { consider(latestNow) }
            if !queue.isEmpty, !writeBlocked { consider(pacer.nextSendTime(now: latestNow)) }
            if !writeBlocked, closeDeadline == nil, let probe = probes.nextSendTime { consider(probe) }
        }
        if let report = rtcp.nextReportTime { consider(report) }
        if let probe = nextRefusalProbe { consider(probe) }
        if let deadline = closeDeadline {
            if let drainedAt {
                consider(min(drainedAt + configuration.goodbyeDelay, deadline))
            } else {
                consider(queue.isEmpty ? latestNow : deadline)
            }
        }
        return next
    }

    /// The numbers so far, with the bitrate over the last second before `now`.
    public mutating func statistics(at now: RTPInstant) -> RTPSenderStatistics {
        var s = stats
        s.bitrate = rate.bitsPerSecond(now: now)
        s.pacingBitrate = paced ? pacer.pacingRate.map { $0 * 8 } : nil  // the pacer counts bytes
        let peer = rtcp.peer
        s.keyframeRequestsReceived = peer.keyframeRequestsReceived
        s.nackedPackets = peer.nackedPackets
        s.lastBitrateLimit = peer.lastBitrateLimit
        s.roundTripTime = peer.roundTripTime
        s.fractionLost = peer.fractionLost
        s.cumulativeLost = peer.cumulativeLost
        s.jitter = peer.jitter
        s.queuedPackets = queue.count
        s.probeClustersSent = probes.clustersSent
        s.bytesInFlight = sentPackets?.bytesInFlight ?? 0
        s.firstPacketDelay = frameSendDelays.firstPacket.summary
        s.lastPacketDelay = frameSendDelays.lastPacket.summary
        return s
    }

    mutating func observe(_ now: RTPInstant) {
        if now > latestNow { latestNow = now }
    }

    mutating func warnOnce(_ kind: RTPSendWarning.Kind, _ message: String) {
        if warned.insert(kind).inserted { events.append(.warning(RTPSendWarning(kind: kind, message: message))) }
    }
}

/// The packet destination of `enqueue`: each packet is written straight into the queue's next slot. Unpaced, a full
/// queue grows (views of a batch that is out stay valid: `grow` keeps the old storage until `didTransmit`); paced, a
/// packet that finds it full is written into the overflow slot and dropped (counted), as a live encoder must not
/// wait for a slow link.
struct QueueDestination: RTPPacketDestination {
    let queue: PacketQueue
    let grows: Bool
    let overflow: UnsafeMutableRawBufferPointer
    let rtpTimestamp: UInt32
    let captureTime: RTPInstant
    let queuedAt: RTPInstant
    /// The fixed header and the header extensions.
    let headerSize: Int
    var dropped = 0
    /// The room lent last is a queue slot (not the overflow slot).
    var reserved = false

    mutating func nextPacket() -> UnsafeMutableRawBufferPointer {
        if grows, queue.isFull { queue.grow() }
        if let slot = queue.reserveBack() {
            reserved = true
            return slot
        }
        reserved = false
        return overflow
    }

    mutating func commitPacket(length: Int, sequenceNumber: UInt16, marker: Bool) {
        guard reserved else {
            dropped += 1
            return
        }
        queue.commitBack(length: length, info: PacketQueue.Info(
            sequenceNumber: sequenceNumber, payloadBytes: length - headerSize, rtpTimestamp: rtpTimestamp,
            captureTime: captureTime, queuedAt: queuedAt))
    }
}
