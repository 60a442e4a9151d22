import MediaCore
import RTP

/// One owner of the stream's rate: feedback in, one decision out — encoder target and pacing rate together, plus
/// the keyframe the peer asked for.
///
/// Sans-IO (str0m's shape): fed events with the time they happened, polled for a decision once per frame; it reads
/// no clock and touches neither encoder nor socket, so it is the same in a test, a simulation or a live stream.
/// Live, `LiveBitrateController` (StreamControl) wraps it for the sender's I/O thread and applies each decision to
/// a `CompressionSession` and an `RTPSender` in one call. The rule for the rate itself is the policy's
/// (`PeerLimitPolicy` by default); the controller coalesces inputs between frames and decides when to ask it.
public struct BitrateController: Sendable {
    public private(set) var bounds: BitrateBounds
    /// The allocation in force: the last one decided (at start, the policy's first).
    public private(set) var current: BitrateAllocation
    private var policy: any BitrateControlPolicy
    /// A rate input (a peer's limit, new bounds) came since the last decision.
    private var rateInput = false
    /// PLI/FIR since the last decision.
    private var keyframeRequested = false
    /// Transport feedback came since the last decision: the policy is asked again, and a new allocation is a decision.
    private var feedbackInput = false
    /// A frame was encoded (or skipped) since the policy was last asked: its per-frame budget is asked for anew.
    private var frameInput = false

    /// Starts at the policy's allocation for `bounds` (for `PeerLimitPolicy`, the ceiling): open the encoder and
    /// the sender with `current`.
    public init(bounds: BitrateBounds, policy: any BitrateControlPolicy = PeerLimitPolicy(), at now: Instant) {
        self.bounds = bounds
        self.policy = policy
        current = self.policy.allocation(within: bounds, at: now)
    }

    public var policyName: String { policy.name }

    /// The policy's own estimate of the path, bits/s, before bounds and peer limits (nil: it keeps none).
    public var estimate: Int? { policy.estimatedBitrate }

    /// Something that bears on the rate or on the next frame happened at `now`.
    public mutating func handle(_ event: BitrateControlEvent, at now: Instant) {
        switch event {
        case .peerLimit(let bitsPerSecond):
            policy.observe(peerLimit: bitsPerSecond, at: now)
            rateInput = true
        case .bounds(let bounds):
            self.bounds = bounds
            rateInput = true
        case .keyframeRequest:
            keyframeRequested = true
        case .keyframeSent:
            keyframeRequested = false
        case .transportFeedback(let feedback):
            policy.observe(feedback: feedback)
            feedbackInput = true
        case .processInterval:
            feedbackInput = true
        case .encodedFrame(let bytes, let isKeyframe):
            policy.observe(encodedFrameSize: bytes, isKeyframe: isKeyframe, at: now)
            frameInput = true
        case .packetsSent(let packets):
            for packet in packets { policy.observe(sent: packet) }
        }
    }

    /// The decision for the frame about to be encoded, or nil when nothing came since the last one.
    public mutating func poll(at now: Instant) -> BitrateDecision? {
        guard rateInput || keyframeRequested || feedbackInput || frameInput else { return nil }
        let previous = current
        var allocation: BitrateAllocation?
        if rateInput || feedbackInput || frameInput {
            // The policy is asked once per decision: asking is not free of effects (GoogCCPolicy hands its pending
            // probe clusters over in the answer). Feedback alone makes a decision only when it moved the policy (one
            // that ignores it, like `PeerLimitPolicy`, decides nothing new: every frame would otherwise reconfigure
            // the encoder).
            // Probe clusters alone are a decision too (the rates unchanged); they are handed over once, so the
            // allocation kept as `current` never counts them against the next proposal.
            // The per-frame part (budget, skip) is the policy's latest word whether or not the rates moved: it is
            // no decision of its own (nothing to reconfigure), the encode loop reads it before each frame
            // (`current.frameByteLimit`).
            let proposed = policy.allocation(within: bounds, at: now)
            if rateInput || !proposed.hasSameRates(as: current) || !proposed.probeClusters.isEmpty {
                current = proposed
                allocation = proposed
            } else {
                current.frameBudgetBytes = proposed.frameBudgetBytes
                current.skipNextFrame = proposed.skipNextFrame
            }
            rateInput = false
            feedbackInput = false
            frameInput = false
        }
        if allocation == nil, !keyframeRequested { return nil }
        let forceKeyframe = keyframeRequested
        keyframeRequested = false
        return BitrateDecision(allocation: allocation, previous: previous, forceKeyframe: forceKeyframe)
    }
}

/// What `BitrateController.handle` is told.
public enum BitrateControlEvent: Sendable, Hashable {
    /// REMB or TMMBR: the peer asks for at most this many bits/s (`RTPSender`'s `onBitrateLimit`).
    case peerLimit(bitsPerSecond: UInt64)
    /// PLI (RFC 4585 §6.3.1) or FIR (RFC 5104 §4.3.1), already throttled by the sender (`onKeyframeRequest`).
    case keyframeRequest
    /// The application changed the range (a user's new maximum); the policy decides again within it.
    case bounds(BitrateBounds)
    /// A congestion-control feedback report about the packets sent (`RTPSender`'s `onTransportFeedback`), for the
    /// policy's `observe(feedback:)`.
    case transportFeedback(TransportPacketsFeedback)
    /// The policy's periodic process time came (goog_cc runs its timers and its probe controller every 25 ms): it is
    /// asked again, and a new allocation — or probe clusters — is a decision, as after feedback.
    case processInterval
    /// The encoder produced a frame of `bytes` (0: the frame was skipped) for a policy that budgets per frame
    /// (`observe(encodedFrameSize:)`). The next poll asks the policy again, for the next frame's budget; a decision
    /// follows only if its rates moved.
    case encodedFrame(bytes: Int, isKeyframe: Bool)
    /// Packets that left, in sending order (`RTPSender`'s `onPacketsSent`, the sent-packet path), for the policy's
    /// `observe(sent:)`: batched by the caller (`LiveBitrateController` hands over what gathered since the last
    /// report or frame), and asks for no decision by itself. Times on the controller's clock.
    case packetsSent([SentPacket])
    /// A keyframe is leaving anyway (the stream's first, sent after a start delay): a request pending is answered
    /// by it and forces no second one.
    case keyframeSent
}
