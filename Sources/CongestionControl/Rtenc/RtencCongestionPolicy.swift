import MediaCore
import RTP

/// rtenc's own congestion controller, encoder-coupled: it uses what only the sender that owns the encoder has — the
/// encoder's hard cap (no 1 s window above 1.5 × target, so a frame's size is a promise) and every frame's size — to
/// keep the bottleneck's queue near a delay target instead of oscillating around whatever queue GCC's gradient
/// detector tolerates. As a `BitrateControlPolicy` it runs live (`--cc rtenc`) and in the simulator alike; every call
/// is handed the time.
///
/// The pieces, one per file, each saying which published design it follows:
/// - `QueueDelayEstimator`: one-way delay above its recent minimum (LEDBAT/SCReAM), the standing queue taken as the
///   minimum over the last 40 ms of arrivals (Copa), so a frame's own burst is not mistaken for congestion;
/// - `DeliveryRateEstimator`: what the receiver got over 200 ms and 1 s (BBR's delivery rate);
/// - `RtencRateControl`: back off to the delivery rate above the delay target, additive increase near it, a ramp
///   capped by the delivery rate when the queue stays empty, GCC's loss rule; loss-based AIMD in competing mode;
/// - `CompetitionDetector`: a standing queue that outlives the controller's own draining is a competitor's
///   (Copa/BBR competing mode) → loss-based until the queue empties;
/// - `FrameBudget`: bytes queued beyond the target come out of the next frames (Salsify), skipping whole frames when
///   the excess is more than a frame (`BitrateAllocation.frameBudgetBytes`, `.skipNextFrame`); for the 2 s of loss
///   recovery every frame is also capped at `keyframePacingMultiplier` × a nominal frame, so the keyframe the loss's
///   PLI brings lands on the shrunken link at 2.5 × a frame, not the 4 × and more an encoder gives it unasked, and
///   what a frame takes beyond a nominal one then is owed by the frames after it (`FrameBudget.owe`);
/// - pacing (here): `pacingMultiplier` (1.25) × the target outside keyframes, `keyframePacingMultiplier` (2.5,
///   libwebrtc's factor) only while a keyframe leaves or for a second after a report with loss (retransmissions and
///   the keyframe a PLI brings must not hold every later frame back in a slow pacer), and never slower than what
///   empties the pacer's backlog (encoded minus sent bytes) within two frame intervals — Salsify's lesson that a pacer at 2.5× turns every frame into
///   a burst the bottleneck has to queue, which a gentle pacer spreads over the frame interval instead; with no burst
///   allowance (`pacingBurst` zero, as libwebrtc's pacer without its burst interval), so no two packets of a frame
///   leave back to back (RFC 8867 §5.1's p95: 38.3 → 30.6 ms, BENCHMARKS.md).
///
/// Silence: when no report has come for `silenceTimeout` (at least 250 ms, else 2.5 × the reports' usual spacing)
/// the path is taken to be out (a cellular outage: nothing arrives, so nothing is reported) and frames are skipped
/// until a report comes (all but one per timeout, which finds out when the link is back) — SCReAM's self-clocking (no acknowledgements, no new bytes) in a rate-based controller; the
/// frames a sender pushes into a dead link only come out seconds late, through retransmission, or not at all.
///
/// A peer's REMB/TMMBR caps the target as for GCC: target = min(controller, peer limit), within the bounds.
public struct RtencCongestionPolicy: BitrateControlPolicy {
    public struct Configuration: Sendable, Hashable {
        /// The first target, bits/s (clamped into the bounds). libwebrtc's 300 kb/s, as `GoogCCPolicy`.
        public var startBitrate: Int
        public var rateControl: RtencRateControl.Configuration
        public var competition: CompetitionDetector.Configuration
        /// Pacing outside keyframes, × target.
        public var pacingMultiplier: Double
        /// Pacing while a keyframe leaves, × target.
        public var keyframePacingMultiplier: Double
        /// Hand the encoder a per-frame budget and skip frames (false: a rate-only controller, for comparison).
        public var frameBudget: Bool
        /// Switch to loss-based control against a competitor's standing queue (false: delay-based throughout).
        public var competingMode: Bool
        /// The sender's pacer burst allowance (`RTPSendSession.Configuration.pacingBurst`). Zero: every packet
        /// waits until the one before it has drained at the pacing rate, so a frame's packets reach the bottleneck
        /// spread at `pacingMultiplier` × the target instead of two back to back (the 1500-byte floor of the
        /// default 5 ms burst) — each packet then waits behind at most a fraction of its predecessor.
        public var pacingBurst: Duration

        public init(startBitrate: Int = 300_000, rateControl: RtencRateControl.Configuration = .init(),
                    competition: CompetitionDetector.Configuration = .init(), pacingMultiplier: Double = 1.25,
                    keyframePacingMultiplier: Double = RTPSendSession.Pacing.defaultFactor, frameBudget: Bool = true,
                    competingMode: Bool = true, pacingBurst: Duration = .zero) {
            self.pacingBurst = pacingBurst
            self.startBitrate = startBitrate
            self.rateControl = rateControl
            self.competition = competition
            self.pacingMultiplier = pacingMultiplier
            self.keyframePacingMultiplier = keyframePacingMultiplier
            self.frameBudget = frameBudget
            self.competingMode = competingMode
        }
    }

    public let name = "rtenc"
    public let configuration: Configuration
    public private(set) var queue = QueueDelayEstimator()
    public private(set) var delivery = DeliveryRateEstimator()
    public private(set) var rateControl: RtencRateControl
    public private(set) var competition: CompetitionDetector
    public private(set) var budget = FrameBudget()
    /// The peer's limit in force, bits/s.
    public private(set) var peerLimit: UInt64?
    /// The target last handed out (the rate frames are budgeted at).
    private var lastTarget: Double
    /// Keyframe pacing until then.
    private var burstUntil: Instant?
    /// Loss recovery (retransmissions, the keyframe a PLI asks for) until then, paced from `recoveryRate`.
    private var recoveryUntil: Instant?
    private var recoveryRate = 0.0
    /// The last report's arrival, and the usual spacing of reports (smoothed).
    private var lastFeedback: Instant?
    private var feedbackSpacing: Duration?
    /// When the encoder last produced a frame that was not skipped.
    private var lastFrameSent: Instant?
    /// Bytes encoded and not yet sent (the sender's pacer queue, as far as the policy can tell).
    private var pacerBacklog = 0.0
    /// Burst pacing lasts this long after a report with loss.
    public static let recoveryBurst: Duration = .seconds(2)
    /// The shortest silence taken as an outage.
    public static let minimumSilence: Duration = .milliseconds(250)

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let start = Double(max(1, configuration.startBitrate))
        rateControl = RtencRateControl(target: start, configuration: configuration.rateControl)
        competition = CompetitionDetector(configuration: configuration.competition)
        lastTarget = start
    }

    /// True while the controller runs loss-based against a competitor.
    public var isCompeting: Bool { competition.competing }

    /// The simulator (`MediaFlow`) and `stream`/`send --cc rtenc` (`CongestionOptions.configure`) give the send
    /// session this; the WebRTC transports keep libwebrtc's 40 ms burst, tuned for glass-to-glass latency.
    public var pacingBurst: Duration? { configuration.pacingBurst }

    public mutating func observe(peerLimit bitsPerSecond: UInt64, at now: Instant) {
        peerLimit = bitsPerSecond
    }

    /// Every packet that left takes its bytes off the estimated pacer backlog.
    public mutating func observe(sent packet: SentPacket) {
        if packet.kind == .media { pacerBacklog = max(0, pacerBacklog - Double(packet.size)) }
    }

    public mutating func observe(feedback: TransportPacketsFeedback) {
        let now = feedback.feedbackTime
        guard !feedback.packets.isEmpty else { return }
        if let last = lastFeedback, now > last {
            let spacing = now - last
            // A report after an outage says nothing about the usual spacing.
            if spacing < silenceTimeout { feedbackSpacing = feedbackSpacing.map { ($0 * 7 + spacing) / 8 } ?? spacing }
        }
        lastFeedback = now
        delivery.update(feedback.packets)
        guard queue.update(feedback.packets), let standing = queue.standing else { return }
        if configuration.competingMode, competition.update(standing: standing, at: now), competition.competing {
            budget.clear()  // the queue is a competitor's: leaving frames out would not shorten it
        }
        let lost = feedback.packets.count { !$0.isReceived }
        // Losses bring retransmissions and a keyframe (PLI): they leave at the burst rate, or every frame queued
        // behind them in the pacer is late by their whole size.
        if lost > 0 {
            // The retransmissions carry bytes encoded at the rate before the loss: they leave at that rate's burst
            // pace, not at a target the loss has since cut.
            if recoveryUntil.map({ now >= $0 }) ?? true { recoveryRate = lastTarget }
            recoveryUntil = max(recoveryUntil ?? now, now + Self.recoveryBurst)
        }
        let newestSent = feedback.packets.map(\.sent.sendTime).max() ?? now
        let signal = RtencRateControl.Signal(
            standingQueue: standing, deliveredShort: delivery.shortTerm, deliveredLong: delivery.longTerm,
            lossFraction: Double(lost) / Double(feedback.packets.count), newestSent: newestSent,
            competing: competition.competing)
        rateControl.update(signal, at: now)
        guard configuration.frameBudget, !competition.competing else { return }
        // Bytes queued beyond half the target: draining to there keeps the link busy while the queue falls.
        let excess = standing - rateControl.effectiveDelayTarget / 2
        let rate = delivery.shortTerm ?? delivery.longTerm ?? rateControl.target
        budget.setExcess(excess > .zero ? excess.gccSeconds * rate / 8 : 0, reportedUpTo: newestSent)
    }

    public mutating func observe(encodedFrameSize size: Int, isKeyframe: Bool, at now: Instant) {
        budget.frameEncoded(bytes: size, at: now, bitsPerSecond: lastTarget)
        // In loss recovery the link just shrank and the queue is being drained: a frame over its nominal size (the
        // keyframe the loss's PLI brings, a P frame an encoder enlarges after skipped frames) stands in the queue by
        // its excess, so the frames after it leave that out at once instead of a report later (RFC 8867 §5.1's
        // drop with seed 2: the P frame behind the PLI's keyframe waited 62 ms at 61.0 s without this).
        if configuration.frameBudget, recoveryUntil != nil, !competition.competing {
            budget.owe(Double(size) - budget.nominalFrameBytes(at: lastTarget), at: now)
        }
        if size > 0 {
            lastFrameSent = now
            // The frame's RTP packets: its bytes plus ~14 bytes of RTP and FU-A header per 1200-byte packet.
            pacerBacklog += Double(size) + Double((size + 1199) / 1200 * 14)
        }
        if isKeyframe, size > 0 {
            // The keyframe leaves at the burst rate: as long as its bytes take at that rate.
            let seconds = Double(size) * 8 / (max(lastTarget, 1) * configuration.keyframePacingMultiplier)
            burstUntil = now + .nanoseconds(Int64(seconds * 1e9))
        }
    }

    /// How long without a report counts as an outage.
    public var silenceTimeout: Duration { max(Self.minimumSilence, (feedbackSpacing ?? Self.minimumSilence) * 5 / 2) }

    /// True when reports used to come and none came for `silenceTimeout` before `now`.
    public func isSilent(at now: Instant) -> Bool { lastFeedback.map { now - $0 > silenceTimeout } ?? false }

    public mutating func allocation(within bounds: BitrateBounds, at now: Instant) -> BitrateAllocation {
        let limited = min(rateControl.target, peerLimit.map { Double($0) } ?? .infinity)
        let bits = limited.isNaN ? 0 : min(max(limited.rounded(), 0), Double(UInt64(Int.max)))
        let rate = bounds.clamp(UInt64(bits))
        // The rule never runs away above what the encoder may use: the bounds and the peer bind it too.
        if rateControl.target > Double(rate) { rateControl.setTarget(Double(rate)) }
        lastTarget = Double(rate)
        if let until = burstUntil, now >= until { burstUntil = nil }
        if let until = recoveryUntil, now >= until { recoveryUntil = nil }
        let multiplier = burstUntil == nil && recoveryUntil == nil ? configuration.pacingMultiplier : configuration.keyframePacingMultiplier
        // The sender's pacer multiplies what it is given by its own factor (2.5): hand it the share that yields ours.
        // A backlog in the pacer (frames encoded at a rate the target has since left, retransmissions) leaves within
        // two frame intervals: a gentle pacer must not turn a cut of the rate into seconds of delay for every frame.
        let drain = pacerBacklog * 8 / (2 * budget.frameInterval.gccSeconds)
        let pacingRate = max(Double(rate) * multiplier, drain, recoveryUntil == nil ? 0 : recoveryRate * multiplier)
        let pacing = UInt64(max(1, (pacingRate / Pacer.defaultPacingFactor).rounded()))
        // One frame per timeout still goes, so that the end of the outage is seen (its arrival brings a report).
        if configuration.frameBudget, isSilent(at: now), lastFrameSent.map({ now - $0 < silenceTimeout }) ?? false {
            return BitrateAllocation(encoderBitRate: rate, pacingBitRate: pacing, frameBudgetBytes: 0, skipNextFrame: true)
        }
        var frameBudget = configuration.frameBudget ? budget.budget(at: Double(rate)) : nil
        // In loss recovery the next keyframe is the one the loss's PLI asks for, landing on a link that just shrank:
        // every frame is capped at what the keyframe pace sends in a frame interval (`keyframePacingMultiplier` × a
        // nominal frame at the cut rate). P frames stay far below it; the keyframe gets 2.5 × a frame instead of the
        // 4 × and more an encoder gives it unasked, which at the cut rate would stand in the queue for a tenth of a
        // second (RFC 8867 §5.1's drop: BENCHMARKS.md). Not against a competitor: its queue is not ours to shorten.
        if configuration.frameBudget, recoveryUntil != nil, !competition.competing {
            let cap = Int(budget.nominalFrameBytes(at: Double(rate)) * configuration.keyframePacingMultiplier)
            frameBudget = min(frameBudget ?? cap, cap)
        }
        return BitrateAllocation(encoderBitRate: rate, pacingBitRate: pacing, frameBudgetBytes: frameBudget,
                                 skipNextFrame: frameBudget == 0)
    }
}
