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
        }
    }

    /// The decision for the frame about to be encoded, or nil when nothing came since the last one.
    public mutating func poll(at now: Instant) -> BitrateDecision? {
        guard rateInput || keyframeRequested || feedbackInput else { return nil }
        let previous = current
        var allocation: BitrateAllocation?
        if rateInput || feedbackInput {
            // The policy is asked once per decision: asking is not free of effects (GoogCCPolicy hands its pending
            // probe clusters over in the answer). Feedback alone makes a decision only when it moved the policy (one
            // that ignores it, like `PeerLimitPolicy`, decides nothing new: every frame would otherwise reconfigure
            // the encoder).
            // Probe clusters alone are a decision too (the rates unchanged); they are handed over once, so the
            // allocation kept as `current` never counts them against the next proposal.
            let proposed = policy.allocation(within: bounds, at: now)
            if rateInput || !proposed.hasSameRates(as: current) || !proposed.probeClusters.isEmpty {
                current = proposed
                allocation = proposed
            }
            rateInput = false
            feedbackInput = false
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
    /// The encoder produced a frame of `bytes` (for a policy that budgets per frame: `observe(encodedFrameSize:)`);
    /// it asks for no decision by itself.
    case encodedFrame(bytes: Int, isKeyframe: Bool)
    /// A keyframe is leaving anyway (the stream's first, sent after a start delay): a request pending is answered
    /// by it and forces no second one.
    case keyframeSent
}
