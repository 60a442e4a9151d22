import MediaCore

/// What the encoder does with the next frame when the pacers cannot keep up with it: skip the picture while the worst
/// pacer queue (a WebRTC server's worst viewer, or `rtenc stream`'s one sender) is over `bound`, and lower the target
/// it encodes at while the queue keeps filling. Pure: the queue time and the rate in, a decision out (one call per
/// frame). `FrameDecider` asks it, together with the controller's per-frame budget; the encode loops ask that.
///
/// Why: the pacer drains at 2.5 × the target, but after a large step down x264 goes on making ~2.4 × the new target
/// for seconds (its rate factor only slowly leaves the old rate; on noise QP pins at 51), so at a low target the
/// encoder outruns the pacer and the queue — and every viewer's latency — grows inside rtenc without bound
/// (BENCHMARKS.md "Constrained link", 3 of 7 runs over 400 ms). Two libwebrtc mechanisms answer it, both here:
/// - a frame is skipped before encoding while the queue's expected time is over the bound (libwebrtc drops frames
///   under congestion-window pushback and pauses the encoder when the pacer queue is too long): the queue then
///   never holds more than the bound plus one frame, and the next picture is coded against the last one sent;
/// - the encoder's target is scaled by goog_cc's `CongestionWindowPushbackController` rule, the fill being the queue
///   time over the bound: over 1.5 → × 0.9, over 1 → × 0.95, under 0.1 → back to 1, else × 1.05 up to 1; never below
///   `minimumTarget` (but a target already under it is obeyed).
public struct QueuePushback: Sendable, Equatable {
    /// 100 ms: libwebrtc's data window adds 100 ms of queue to the round trip; a viewer's picture waits no longer
    /// than this (plus one frame) in rtenc, whatever the encoder makes.
    public static let defaultBound: Duration = .milliseconds(100)
    /// 2 s: a queue longer than this is given up (`FrameDecider.Decision.flushAndKeyframe`) and the peer gets an IDR —
    /// libwebrtc's pacer never lets its queue exceed this either (`kMaxExpectedQueueLength`, it sends faster instead;
    /// into a link that is already dropping, rtenc drops). Far above a keyframe's queue time at the 150 kb/s floor.
    public static let flushBound: Duration = .seconds(2)
    /// goog_cc's default minimum pushback target (`CongestionWindowMinPushbackTargetBitrateBps`, 30 kb/s).
    public static let defaultMinimumTarget: UInt64 = 30_000

    /// What the encoder does with the next frame.
    public struct Decision: Sendable, Equatable {
        /// Do not encode this picture: the queue is over the bound.
        public var skip: Bool
        /// The rate to encode at (the policy's target with the pushback ratio applied).
        public var target: UInt64

        public init(skip: Bool, target: UInt64) {
            self.skip = skip
            self.target = target
        }
    }

    public let bound: Duration
    public let minimumTarget: UInt64
    /// The factor on the policy's target, 1 when the queue is short.
    public private(set) var encodingRateRatio = 1.0
    /// Pictures skipped so far (for `--stats-json`).
    public private(set) var framesSkipped = 0

    public init(bound: Duration = defaultBound, minimumTarget: UInt64 = defaultMinimumTarget) {
        self.bound = bound
        self.minimumTarget = minimumTarget
    }

    /// The decision for the next frame, given the longest expected queue time among the viewers (nil: no viewer has
    /// a paced queue yet) and the rate policy's target.
    public mutating func decide(queueTime: Duration?, target: UInt64) -> Decision {
        let fill = queueTime.map { Double($0.nanoseconds) / Double(max(bound.nanoseconds, 1)) } ?? 0
        if fill > 1.5 {
            encodingRateRatio *= 0.9
        } else if fill > 1 {
            encodingRateRatio *= 0.95
        } else if fill < 0.1 {
            encodingRateRatio = 1
        } else {
            encodingRateRatio = min(1, encodingRateRatio * 1.05)
        }
        let adjusted = UInt64((Double(target) * encodingRateRatio).rounded())
        let pushed = adjusted < minimumTarget ? min(target, minimumTarget) : adjusted
        let skip = fill > 1
        if skip { framesSkipped += 1 }
        return Decision(skip: skip, target: pushed)
    }
}
