/// The sender's side of RTCP (RFC 3550 §6, RFC 4585, RFC 5104): sender reports out, receiver feedback in.
///
/// Pure: it reads no clock and owns no socket. The owner calls `rtpSent` for every media packet, `nextReportTime`
/// and `makeReport(now:)` to send SRs, and `receive(_:now:)` for each datagram from the peer; feedback comes back as
/// `FeedbackAction`s for the owner to carry out (force an IDR, change the bitrate, retransmit).
public struct RTCPSenderSession: Sendable {
    public struct Configuration: Sendable {
        public var ssrc: UInt32
        public var cname: String
        public var clockRate: Int64
        /// Nominal time between sender reports (libwebrtc's video default: 1 s); each actual interval is drawn
        /// from [0.5, 1.5] × this (RFC 3550 §6.3.1), see `RTCPReportSchedule`.
        public var reportInterval: Duration
        /// Keyframe requests closer together than this are merged (libwebrtc: 300 ms), so a PLI storm does not
        /// turn into an IDR storm.
        public var minKeyframeRequestInterval: Duration

        public init(ssrc: UInt32, cname: String, clockRate: Int64 = RTPClock.h264ClockRate,
                    reportInterval: Duration = .seconds(1), minKeyframeRequestInterval: Duration = .milliseconds(300)) {
            self.ssrc = ssrc
            self.cname = cname
            self.clockRate = clockRate
            self.reportInterval = reportInterval
            self.minKeyframeRequestInterval = minKeyframeRequestInterval
        }
    }

    /// What the peer's feedback asks of the sender.
    public enum FeedbackAction: Sendable, Equatable {
        case requestKeyframe
        /// REMB or TMMBR: the maximum bitrate (bits/s) the peer wants.
        case limitBitrate(UInt64)
        case retransmit([UInt16])
        /// A compound packet to send back (TMMBN answering a TMMBR).
        case reply([UInt8])
        /// Transport-cc feedback (transport-wide: not filtered by media SSRC).
        case transportFeedback(TransportCCFeedback)
        /// RFC 8888 feedback (its blocks name their SSRCs).
        case congestionControlFeedback(CongestionControlFeedback)
    }

    /// What the peer reported, for stats.
    public struct PeerReport: Sendable, Equatable {
        public var roundTripTime: Duration?
        public var fractionLost: Double = 0
        public var cumulativeLost: Int32 = 0
        /// Interarrival jitter in seconds.
        public var jitter: Double = 0
        public var keyframeRequestsReceived = 0
        public var keyframeRequestsThrottled = 0
        public var nackedPackets = 0
        public var lastBitrateLimit: UInt64?
        public var reportsReceived = 0
    }

    public let configuration: Configuration
    public private(set) var peer = PeerReport()
    public private(set) var packetsSent: UInt32 = 0
    public private(set) var octetsSent: UInt32 = 0
    public var nextReportTime: RTPInstant? { schedule.nextReportTime }
    private var schedule: RTCPReportSchedule
    private var lastMedia: (rtpTimestamp: UInt32, captureTime: RTPInstant)?
    private var lastKeyframeRequest: RTPInstant?
    private var lastFIRSequence: [UInt32: UInt8] = [:]

    /// `random` draws the report intervals' randomization (RFC 3550 §6.3.1); tests pass a seeded generator.
    public init(configuration: Configuration, random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.configuration = configuration
        schedule = RTCPReportSchedule(nominalInterval: configuration.reportInterval, random: random)
    }

    /// Counts one media packet (`payloadBytes` = RTP payload only, as §6.4.1 defines the octet count) and records the
    /// RTP/wall-clock mapping of its frame (`captureTime` = when the frame was captured, on the same wall clock).
    public mutating func rtpSent(payloadBytes: Int, rtpTimestamp: UInt32, captureTime: RTPInstant, now: RTPInstant) {
        packetsSent &+= 1
        octetsSent &+= UInt32(truncatingIfNeeded: payloadBytes)
        lastMedia = (rtpTimestamp, captureTime)
        schedule.start(now: now)  // first SR half an interval after media starts to flow
    }

    /// The RTP timestamp matching `now` on the media clock, extrapolated from the last frame sent.
    public func rtpTimestamp(at now: RTPInstant) -> UInt32? {
        guard let media = lastMedia else { return nil }
        let elapsed = (now - media.captureTime).nanoseconds
        let (ticks, _) = Int64(1_000_000_000).dividingFullWidth(elapsed.multipliedFullWidth(by: configuration.clockRate))
        return media.rtpTimestamp &+ UInt32(truncatingIfNeeded: ticks)
    }

    /// SR + SDES CNAME if one is due at `now` (nil otherwise); schedules the next.
    public mutating func makeReportIfDue(now: RTPInstant) -> [UInt8]? {
        schedule.takeIfDue(now: now) ? makeReport(now: now) : nil
    }

    /// SR + SDES CNAME now (RFC 3550 §6.1: every compound packet starts with a report and carries a CNAME).
    public func makeReport(now: RTPInstant) -> [UInt8] { marshal(reportPackets(now: now)) }

    /// SR + SDES + BYE, for the end of the stream.
    public func makeGoodbye(now: RTPInstant) -> [UInt8] {
        marshal(reportPackets(now: now) + [.goodbye(Goodbye(sources: [configuration.ssrc]))])
    }

    private func reportPackets(now: RTPInstant) -> [RTCPPacket] {
        let sr = SenderReport(
            ssrc: configuration.ssrc, ntpTime: NTPTime(now), rtpTimestamp: rtpTimestamp(at: now) ?? 0,
            packetCount: packetsSent, octetCount: octetsSent)
        return [.senderReport(sr), .sourceDescription(.cname(ssrc: configuration.ssrc, configuration.cname))]
    }

    /// Our own packets always fit their fields (one SDES chunk, no report blocks), so marshalling cannot fail; an
    /// over-long CNAME (> 255 bytes) is the one way, and then nothing is sent rather than a broken packet.
    private func marshal(_ packets: [RTCPPacket]) -> [UInt8] { (try? RTCPCompound.marshal(packets)) ?? [] }

    /// Reads one datagram from the peer. Malformed datagrams throw and change nothing.
    public mutating func receive(_ datagram: ArraySlice<UInt8>, now: RTPInstant) throws(RTPError) -> [FeedbackAction] {
        let packets = try RTCPCompound.parse(datagram)
        var actions: [FeedbackAction] = []
        let ours = configuration.ssrc
        for packet in packets {
            switch packet {
            case .receiverReport(let rr): absorb(rr.reports, now: now)
            case .senderReport(let sr): absorb(sr.reports, now: now)
            case .pictureLossIndication(let pli) where pli.mediaSSRC == ours:
                keyframeRequested(now: now, into: &actions)
            case .fullIntraRequest(let fir):
                for entry in fir.entries where entry.ssrc == ours {
                    // RFC 5104 §4.3.1.2: a repeated sequence number is a retransmission of the same request.
                    guard lastFIRSequence[fir.senderSSRC] != entry.sequenceNumber else { continue }
                    lastFIRSequence[fir.senderSSRC] = entry.sequenceNumber
                    keyframeRequested(now: now, into: &actions)
                }
            case .genericNACK(let nack) where nack.mediaSSRC == ours:
                let lost = nack.lostSequenceNumbers
                peer.nackedPackets += lost.count
                actions.append(.retransmit(lost))
            case .receiverEstimatedMaximumBitrate(let remb) where remb.ssrcs.isEmpty || remb.ssrcs.contains(ours):
                peer.lastBitrateLimit = remb.bitrate
                actions.append(.limitBitrate(remb.bitrate))
            case .transportCC(let feedback): actions.append(.transportFeedback(feedback))
            case .congestionControlFeedback(let feedback): actions.append(.congestionControlFeedback(feedback))
            case .temporaryMaximumBitrateRequest(let tmmbr):
                for entry in tmmbr.entries where entry.ssrc == ours {
                    peer.lastBitrateLimit = entry.bitrate
                    actions.append(.limitBitrate(entry.bitrate))
                    // RFC 5104 §4.2.2.1: acknowledge with a TMMBN listing the bounding set, here the one request.
                    let tmmbn = TemporaryMaximumBitrate(
                        senderSSRC: ours, entries: [.init(ssrc: tmmbr.senderSSRC, bitrate: entry.bitrate, overhead: entry.overhead)])
                    actions.append(.reply(marshal(reportPackets(now: now) + [.temporaryMaximumBitrateNotification(tmmbn)])))
                }
            default: break
            }
        }
        return actions
    }

    private mutating func keyframeRequested(now: RTPInstant, into actions: inout [FeedbackAction]) {
        peer.keyframeRequestsReceived += 1
        if let last = lastKeyframeRequest, now >= last, now - last < configuration.minKeyframeRequestInterval {
            peer.keyframeRequestsThrottled += 1
            return
        }
        lastKeyframeRequest = now
        if !actions.contains(.requestKeyframe) { actions.append(.requestKeyframe) }
    }

    /// RTT (RFC 3550 §6.4.1): A − LSR − DLSR in 1/65536 s, where A is the arrival time's middle 32 NTP bits.
    private mutating func absorb(_ blocks: [ReportBlock], now: RTPInstant) {
        for block in blocks where block.ssrc == configuration.ssrc {
            peer.reportsReceived += 1
            peer.fractionLost = Double(block.fractionLost) / 256
            peer.cumulativeLost = block.cumulativeLost
            peer.jitter = Double(block.jitter) / Double(configuration.clockRate)
            guard block.lastSenderReport != 0 else { continue }
            let rtt = NTPTime(now).middle32 &- block.lastSenderReport &- block.delaySinceLastSenderReport
            if rtt < 1 << 31 {  // a negative result (clock trouble) reads as huge: ignore it
                peer.roundTripTime = .nanoseconds(Int64(rtt) * 1_000_000_000 / 65536)
            }
        }
    }
}
