import MediaCore
import RTP

/// Google congestion control as Chrome runs it, as a `BitrateControlPolicy`: libwebrtc's `GoogCcNetworkController`
/// (modules/congestion_controller/goog_cc/goog_cc_network_control.cc) in its transport-feedback-only form, pure —
/// every call is handed the time, nothing reads a clock.
///
/// Each transport feedback report (`observe(feedback:)`) updates the RTT, the loss count, the acknowledged
/// throughput and any probe cluster's result, then the delay-based estimate (`DelayBasedBwe`: arrival groups →
/// trendline → adaptive threshold → AIMD); that estimate caps the loss-based one (`SendSideBandwidthEstimation`),
/// whose result is the controller's target. A peer's REMB/TMMBR (`observe(peerLimit:)`) caps the output only:
/// target = min(controller, peer limit), within the bounds. `allocation(within:at:)` is also libwebrtc's process
/// interval (call it every 25 ms or so; more often does no harm): it runs the loss-based timers and the probe
/// controller, and hands over the probe clusters decided since the last call. The pacing rate is the target: the
/// sender's pacer applies libwebrtc's pacing factor 2.5 (`kDefaultPaceMultiplier`) itself.
///
/// `observe(sent:)` feeds the ALR detector (the encoder leaving the target unused), whose end lets the throughput
/// estimate move fast and which drives the opt-in periodic ALR probing.
///
/// Not here (yet): LossBasedBweV2, the congestion window pushback, the RTT back-off, probes on a large drop.
public struct GoogCCPolicy: BitrateControlPolicy {
    /// libwebrtc's default start rate (`kDefaultStartBitrateBps`, 300 kb/s).
    public static let defaultStartBitrate = 300_000
    /// libwebrtc's `kLossUpdateInterval`: transport feedback's losses are reported to the loss-based estimator once
    /// a second.
    public static let lossUpdateInterval: Duration = .seconds(1)
    /// The RTTs the delay-based estimate averages (`feedback_max_rtts_`, at most 32).
    public static let maxFeedbackRTTs = 32

    public struct Configuration: Sendable, Hashable {
        /// The first target, bits/s (clamped into the bounds).
        public var startBitrate: Int
        /// Probe at start and while probes keep finding room (`ProbeController`).
        public var probing: Bool
        /// How loss moves the rate.
        public var lossControl: LossControl
        /// Probe every 5 s while the encoder leaves the target unused (libwebrtc: screen share only).
        public var periodicALRProbing: Bool

        public init(startBitrate: Int = GoogCCPolicy.defaultStartBitrate, probing: Bool = true,
                    lossControl: LossControl = .classic, periodicALRProbing: Bool = false) {
            self.startBitrate = startBitrate
            self.probing = probing
            self.lossControl = lossControl
            self.periodicALRProbing = periodicALRProbing
        }
    }

    public enum LossControl: Sendable, Hashable {
        /// `SendSideBandwidthEstimation`'s 2 %/10 % rule (libwebrtc's default before LossBasedBweV2).
        case classic
        /// libwebrtc's `WebRTC-Bwe-LossBasedControl` trial (`LossBasedBandwidthEstimation`): more loss accepted at
        /// lower rates, so random loss does not drive the rate to the floor.
        case lossBasedControl
        /// Loss is ignored: the delay-based estimate alone decides.
        case ignored
    }

    public let name = "gcc"
    public let configuration: Configuration
    public private(set) var delayBased: DelayBasedBwe
    public private(set) var lossBased: SendSideBandwidthEstimation
    public private(set) var acknowledged = AcknowledgedBitrateEstimator()
    public private(set) var probeController: ProbeController
    public private(set) var alrDetector = AlrDetector()
    private var previouslyInALR = false
    private var probeEstimator = ProbeBitrateEstimator()
    /// The peer's limit in force, bits/s.
    public private(set) var peerLimit: UInt64?
    private var bounds: BitrateBounds?
    private var started = false
    private var pendingProbes: [ProbeClusterConfig] = []
    private var feedbackMaxRTTs: [Duration] = []
    private var lostSinceLossUpdate = 0
    private var expectedSinceLossUpdate = 0
    private var nextLossUpdate: Instant?
    /// The target the probe controller was last told (it is told again only when the target moved).
    private var lastTargetToProbeController: Double?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let start = Double(max(1, configuration.startBitrate))
        delayBased = DelayBasedBwe(minBitrate: Double(BitrateBounds.defaultFloor))
        delayBased.setStartBitrate(start)
        lossBased = SendSideBandwidthEstimation(startBitrate: start, minBitrate: Double(BitrateBounds.defaultFloor),
                                                maxBitrate: .infinity,
                                                lossBasedControl: configuration.lossControl == .lossBasedControl)
        probeController = ProbeController(startBitrate: start, maxBitrate: .infinity,
                                          periodicALRProbing: configuration.periodicALRProbing)
        alrDetector.setEstimatedBitrate(start)
    }

    /// The controller's target before the peer's cap, bits/s.
    public var controllerTarget: Double { lossBased.currentTarget }

    /// `controllerTarget` in whole bits/s.
    public var estimatedBitrate: Int? {
        let target = controllerTarget
        return target.isFinite ? Int(min(max(target.rounded(), 0), Double(Int.max / 2))) : nil
    }

    public mutating func observe(peerLimit bitsPerSecond: UInt64, at now: Instant) {
        peerLimit = bitsPerSecond
    }

    /// Every packet sent counts against the ALR budget (goog_cc's `OnSentPacket`).
    public mutating func observe(sent packet: SentPacket) {
        alrDetector.onBytesSent(packet.size, at: packet.sendTime)
    }

    public mutating func observe(feedback: TransportPacketsFeedback) {
        let now = feedback.feedbackTime
        // Leaving ALR: the throughput estimate may move fast again (`SetAlrEndedTime`).
        if previouslyInALR && !alrDetector.inALR { acknowledged.setALREnded(at: now) }
        previouslyInALR = alrDetector.inALR
        let received = feedback.packets.compactMap { packet in packet.arrival.map { (packet, $0) } }
            .sorted { $0.1 < $1.1 }
        updateRTT(received, at: now)
        updateLoss(feedback.packets, at: now)

        acknowledged.incoming(received.map(\.0))
        if let rate = acknowledged.bitsPerSecond { lossBased.setAcknowledgedRate(rate, at: now) }
        for (packet, _) in received where packet.sent.probeClusterID != nil {
            probeEstimator.handle(packet)
        }
        let probeBitrate = probeEstimator.fetchAndResetLastEstimate()
        let result = delayBased.incoming(feedback, acknowledgedBitrate: acknowledged.bitsPerSecond, probeBitrate: probeBitrate)
        if result.updated {
            if result.probe { lossBased.setSendBitrate(result.targetBitrate, at: now) }
            lossBased.updateDelayBasedEstimate(result.targetBitrate, at: now)
        }
        if configuration.lossControl != .ignored { lossBased.updateLossBasedEstimator(feedback.packets, at: now) }
        guard result.updated else { return }
        if configuration.probing { issue(probeController.setEstimatedBitrate(lossBased.currentTarget, at: now)) }
        lastTargetToProbeController = lossBased.currentTarget
    }

    public mutating func allocation(within bounds: BitrateBounds, at now: Instant) -> BitrateAllocation {
        if bounds != self.bounds {
            self.bounds = bounds
            let floor = Double(min(bounds.floor, bounds.ceiling))
            lossBased.setBounds(minBitrate: floor, maxBitrate: Double(bounds.ceiling), at: now)
            delayBased.setMinBitrate(floor)
            probeController.setMaxBitrate(Double(bounds.ceiling))
        }
        if !started {
            started = true
            if configuration.probing { issue(probeController.onNetworkAvailable(at: now)) }
        }
        lossBased.updateEstimate(at: now)
        probeController.alrStartTime = alrDetector.startTime
        let periodicProbes = probeController.process(at: now)
        if configuration.probing { issue(periodicProbes) }
        // goog_cc's MaybeTriggerOnNetworkChanged runs on the process interval too: a target that moved (the start
        // phase following a probe's result up) may ask for a further probe.
        if configuration.probing && lossBased.currentTarget != lastTargetToProbeController {
            issue(probeController.setEstimatedBitrate(lossBased.currentTarget, at: now))
        }
        lastTargetToProbeController = lossBased.currentTarget

        let target = min(lossBased.currentTarget, peerLimit.map { Double($0) } ?? .infinity)
        // Finite and non-negative by construction; the guard keeps a future NaN from trapping in the conversion.
        let bits = target.isNaN ? 0 : min(max(target.rounded(), 0), Double(UInt64(Int.max)))
        let rate = bounds.clamp(UInt64(bits))
        alrDetector.setEstimatedBitrate(Double(rate))
        defer { pendingProbes.removeAll() }
        return BitrateAllocation(encoderBitRate: rate, pacingBitRate: UInt64(rate), probeClusters: pendingProbes)
    }

    private mutating func issue(_ clusters: [ProbeClusterConfig]) {
        for cluster in clusters {
            probeEstimator.register(cluster)
            pendingProbes.append(cluster)
        }
    }

    /// The delay-based estimate averages the last 32 reports' largest RTT; the loss-based one takes the smallest
    /// RTT of this report once the receiver's holding time is taken out.
    private mutating func updateRTT(_ received: [(PacketResult, Instant)], at now: Instant) {
        guard let lastArrival = received.last?.1 else { return }
        var maxRTT: Duration?
        var minRTT: Duration?
        for (packet, arrival) in received {
            let rtt = now - packet.sent.sendTime
            guard rtt >= .zero else { continue }  // reported before it was sent: no RTT to learn from it
            maxRTT = max(maxRTT ?? rtt, rtt)
            let propagation = rtt - (lastArrival - arrival)
            minRTT = min(minRTT ?? propagation, propagation)
        }
        if let maxRTT {
            feedbackMaxRTTs.append(maxRTT)
            if feedbackMaxRTTs.count > Self.maxFeedbackRTTs { feedbackMaxRTTs.removeFirst() }
            let mean = feedbackMaxRTTs.reduce(Duration.zero, +) / feedbackMaxRTTs.count
            delayBased.onRTTUpdate(mean)
        }
        if let minRTT { lossBased.updateRTT(minRTT) }
    }

    /// Transport feedback's losses go to the loss-based estimator once a second (`packet_feedback_only_` in
    /// goog_cc_network_control.cc); with loss ignored they are reported as none, which keeps its timers running.
    private mutating func updateLoss(_ packets: [PacketResult], at now: Instant) {
        expectedSinceLossUpdate += packets.count
        if configuration.lossControl != .ignored { lostSinceLossUpdate += packets.count { !$0.isReceived } }
        if nextLossUpdate.map({ now > $0 }) ?? true {
            nextLossUpdate = now + Self.lossUpdateInterval
            lossBased.updatePacketsLost(lostSinceLossUpdate, of: expectedSinceLossUpdate, at: now)
            lostSinceLossUpdate = 0
            expectedSinceLossUpdate = 0
        }
    }
}
