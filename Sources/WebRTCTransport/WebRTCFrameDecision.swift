import CongestionControl

/// What a WebRTC transport (`WebRTCServer`, `WebRTCPublisher`) asks of the encoder for its next frame
/// (`nextFrame()`): the one `FrameDecider` decision over the peers — the rate policy's target with the pacer-queue
/// pushback applied (`QueuePushback`), the lowest per-frame byte budget among the peers' own controllers (rtenc's),
/// and the keyframe a new peer or a PLI/FIR asked for.
public struct WebRTCFrameDecision: Sendable, Equatable {
    /// Do not encode this picture: a peer's pacer queue is longer than the pushback bound, or a peer's controller
    /// left no bytes for it (`skipReason` says which).
    public var skip: Bool
    /// The rate to encode at, bits/s.
    public var encoderTarget: UInt64
    /// Encode this frame as an IDR (never together with `skip`).
    public var forceKeyframe: Bool
    /// The longest expected pacer queue time among the peers (nil: none sends yet).
    public var queueTime: Duration?
    /// The most this frame may take, bytes (`CompressionSession.FrameOptions.maxFrameBytes`): the lowest budget among
    /// the peers' controllers; nil when none gives one.
    public var maxFrameBytes: Int?
    /// Why the frame is skipped (nil when it is encoded).
    public var skipReason: FrameDecider.SkipReason?
    /// A peer's queue was over `QueuePushback.flushBound` and was given up: this frame is its IDR.
    public var flushed: Bool

    public init(skip: Bool, encoderTarget: UInt64, forceKeyframe: Bool, queueTime: Duration?, maxFrameBytes: Int? = nil,
                skipReason: FrameDecider.SkipReason? = nil, flushed: Bool = false) {
        self.skip = skip
        self.encoderTarget = encoderTarget
        self.forceKeyframe = forceKeyframe
        self.queueTime = queueTime
        self.maxFrameBytes = maxFrameBytes
        self.skipReason = skipReason
        self.flushed = flushed
    }

    /// The transport's form of the decider's decision, at the worst queue time `queueTime`.
    init(_ decision: FrameDecider.Decision, queueTime: Duration?, policyTarget: UInt64) {
        switch decision {
        case .encode(let target, let maxFrameBytes, let keyframe):
            self.init(skip: false, encoderTarget: target, forceKeyframe: keyframe, queueTime: queueTime, maxFrameBytes: maxFrameBytes)
        case .flushAndKeyframe(let target, let maxFrameBytes):
            self.init(skip: false, encoderTarget: target, forceKeyframe: true, queueTime: queueTime, maxFrameBytes: maxFrameBytes,
                      flushed: true)
        case .skip(let reason):
            self.init(skip: true, encoderTarget: policyTarget, forceKeyframe: false, queueTime: queueTime, skipReason: reason)
        }
    }
}
