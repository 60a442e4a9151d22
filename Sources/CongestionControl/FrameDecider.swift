import MediaCore

/// The one decision a live encode loop asks before each frame — `rtenc stream` over an `RTPSender`, and the WebRTC
/// transports' `nextFrame()` for `serve` and `stream --whip` — from the two things that can hold a picture back:
/// the rate controller's word for the next frame (`BitrateAllocation.frameByteLimit`: rtenc's per-frame budget, 0 to
/// skip) and the longest expected pacer queue time among the peers (libwebrtc's pushback, `QueuePushback`).
/// Pure: the time, the queue, the controller's target and budget in; one decision out.
///
/// The rules, in order:
/// 1. A queue over `flushBound` (2 s) is given up and the frame is encoded as an IDR: a backlog that old is worth
///    nothing live (libwebrtc's pacer never lets its queue grow past it either). The controller's budget still caps
///    the IDR when it gives one (Salsify's rule: a keyframe may not flood the path either); its skip does not hold,
///    since the bytes it counted were just dropped.
/// 2. A frame the caller must encode (`--force-idr`) is encoded, at the pushed-back target, within the budget.
/// 3. The controller's skip (budget 0): the picture is not encoded; the next one is coded against the last one sent.
/// 4. The queue over `QueuePushback.bound` (100 ms): skipped the same way.
/// 5. Otherwise encoded at the controller's target scaled by the pushback ratio, within the budget.
/// A keyframe asked for (PLI/FIR, a new viewer) that meets a skipped frame goes with the next frame encoded.
public struct FrameDecider: Sendable {
    /// Why a frame was not encoded.
    public enum SkipReason: String, Sendable, Hashable {
        /// The controller's budget left nothing for it (rtenc's queue over its delay target, or its silence timer).
        case controller
        /// A pacer queue is over the pushback bound.
        case queue
    }

    /// What the encoder does with the next frame.
    public enum Decision: Sendable, Hashable {
        /// Encode it at `target` bits/s, at most `maxFrameBytes` bytes (nil: no budget, the encoder's own rate control
        /// decides), as an IDR when `keyframe`.
        case encode(target: UInt64, maxFrameBytes: Int?, keyframe: Bool)
        /// Do not encode it.
        case skip(SkipReason)
        /// Give up what the pacer queues hold (those over `flushBound`), then encode this frame as an IDR at `target`
        /// within `maxFrameBytes`.
        case flushAndKeyframe(target: UInt64, maxFrameBytes: Int?)

        /// The frame is encoded (plainly or after a flush).
        public var encodes: Bool { if case .skip = self { false } else { true } }
    }

    /// What the decisions came to, for `--stats-json` (one shape for every encode loop).
    public struct Statistics: Sendable, Hashable {
        /// Frames reported encoded (`encoded(bytes:)`).
        public var encoded = 0
        /// Frames skipped for the controller (its budget 0) and for a queue over the pushback bound.
        public var skippedByController = 0
        public var skippedByQueue = 0
        /// Queues given up for an IDR.
        public var flushes = 0
        /// Frames encoded with a byte budget, and those that still came out above it (the encoder could not hold it).
        public var budgeted = 0
        public var budgetOverruns = 0
        /// The longest time between two frames encoded while frames were skipped: the longest the picture froze.
        public var longestSkipRun: Duration = .zero

        public init() {}

        /// Every frame not encoded, whatever the reason.
        public var skipped: Int { skippedByController + skippedByQueue }
    }

    public private(set) var pushback: QueuePushback
    public let flushBound: Duration
    public private(set) var statistics = Statistics()
    /// A keyframe was asked for and its frame was skipped: the next frame encoded is one.
    public private(set) var keyframeOwed = false
    /// The budget of the frame being encoded (nil: none), for counting overruns.
    private var pendingBudget: Int?
    /// When the last frame encoded was decided, and whether frames were skipped since.
    private var lastEncodedAt: Instant?
    private var skippedSinceEncoded = false

    public init(pushback: QueuePushback = QueuePushback(), flushBound: Duration = QueuePushback.flushBound) {
        self.pushback = pushback
        self.flushBound = flushBound
    }

    /// The decision for the frame due at `now`.
    /// - Parameters:
    ///   - queueTime: the longest expected pacer queue time among the peers (nil: none is paced or sending yet).
    ///   - target: the rate controller's encoder target, bits/s.
    ///   - frameByteLimit: the controller's word for this frame (`BitrateAllocation.frameByteLimit`): nil for no
    ///     budget, 0 to skip it.
    ///   - keyframeRequested: a peer asked for a picture (PLI/FIR, a new viewer); it waits for a frame that is encoded.
    ///   - mustEncode: the caller forces this frame as an IDR (`--force-idr`): it is never skipped.
    public mutating func decide(at now: Instant, queueTime: Duration?, target: UInt64, frameByteLimit: Int?,
                                keyframeRequested: Bool, mustEncode: Bool = false) -> Decision {
        let budget = frameByteLimit.flatMap { $0 > 0 ? $0 : nil }
        if let queueTime, queueTime > flushBound {
            _ = pushback.decide(queueTime: .zero, target: target)  // the queue is gone: the ratio starts again at 1
            statistics.flushes += 1
            encoding(budget: budget, at: now)
            return .flushAndKeyframe(target: target, maxFrameBytes: budget)
        }
        let pushed = pushback.decide(queueTime: queueTime, target: target)
        let reason: SkipReason? = mustEncode ? nil : frameByteLimit == 0 ? .controller : pushed.skip ? .queue : nil
        if let reason {
            keyframeOwed = keyframeOwed || keyframeRequested
            skippedSinceEncoded = true
            switch reason {
            case .controller: statistics.skippedByController += 1
            case .queue: statistics.skippedByQueue += 1
            }
            return .skip(reason)
        }
        let keyframe = keyframeRequested || keyframeOwed || mustEncode
        encoding(budget: budget, at: now)
        return .encode(target: pushed.target, maxFrameBytes: budget, keyframe: keyframe)
    }

    private mutating func encoding(budget: Int?, at now: Instant) {
        if skippedSinceEncoded, let last = lastEncodedAt { statistics.longestSkipRun = max(statistics.longestSkipRun, now - last) }
        lastEncodedAt = now
        skippedSinceEncoded = false
        keyframeOwed = false
        pendingBudget = budget
        if budget != nil { statistics.budgeted += 1 }
    }

    /// The frame last decided for came out of the encoder at `bytes` (a frame the encoder dropped: 0): counted, and
    /// counted as an overrun when above its budget.
    public mutating func encoded(bytes: Int) {
        statistics.encoded += 1
        if let budget = pendingBudget, bytes > budget { statistics.budgetOverruns += 1 }
        pendingBudget = nil
    }
}
