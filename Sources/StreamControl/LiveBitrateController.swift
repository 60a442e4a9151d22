import CongestionControl
import EncoderSession
import MediaCore
import RTPOut
import Synchronization

/// `BitrateController` live: hooked to an `RTPSender`'s feedback callbacks, applied to a `CompressionSession` and
/// that sender before each frame — encoder target (with its data-rate cap) and pacing rate in one call, so the two
/// cannot drift apart and no caller has to write the bridge.
///
/// ```swift
/// let rate = try LiveBitrateController(bounds: BitrateBounds(ceiling: 1_000_000))
/// let sender = try RTPSender(configuration: …, onKeyframeRequest: rate.keyframeRequestHandler,
///                            onBitrateLimit: rate.bitrateLimitHandler)
/// …
/// let decision = try rate.apply(to: session, sender: sender)   // before each encode
/// try session.encode(buffer, presentationTime: time, options: .init(forceKeyFrame: decision?.forceKeyframe ?? false))
/// ```
///
/// Threads: the handlers run on the sender's I/O thread and only record (a short lock, no call into the encoder or
/// the sender); `apply` runs on the thread that encodes, polls the controller and makes the two calls outside that
/// lock. Applications are serialised, so decisions reach the encoder and the pacer in the order they were made.
public final class LiveBitrateController: Sendable {
    private let controller: Mutex<BitrateController>
    /// Held across one decision's two calls (which take only the session's and the sender's own short locks), never
    /// by the handlers: the I/O thread never waits for an encoder call.
    private let applying = Mutex<Void>(())
    private let clock: any MediaClock

    /// - Parameters:
    ///   - bounds: the ceiling (the rate the encoder and sender were opened with) and the floor.
    ///   - policy: how limits become the rate; `PeerLimitPolicy` keeps rtenc's REMB/TMMBR rule.
    ///   - clock: what `now` is for the policy (a `ManualClock` in tests).
    public init(bounds: BitrateBounds, policy: any BitrateControlPolicy = PeerLimitPolicy(),
                clock: any MediaClock = MonotonicMediaClock()) {
        self.clock = clock
        controller = Mutex(BitrateController(bounds: bounds, policy: policy, at: clock.now))
    }

    /// For `RTPSender(onKeyframeRequest:)`: records a PLI/FIR.
    public var keyframeRequestHandler: @Sendable () -> Void { { [self] in handle(.keyframeRequest) } }

    /// For `RTPSender(onBitrateLimit:)`: records a REMB/TMMBR limit.
    public var bitrateLimitHandler: @Sendable (UInt64) -> Void { { [self] in handle(.peerLimit(bitsPerSecond: $0)) } }

    /// For `RTPSender(onTransportFeedback:)`: hands a feedback report to the policy (`observe(feedback:)`).
    public var transportFeedbackHandler: @Sendable (TransportPacketsFeedback) -> Void {
        { [self] in handle(.transportFeedback($0)) }
    }

    /// Records an event now (from any thread); it takes effect at the next `apply`.
    public func handle(_ event: BitrateControlEvent) {
        let now = clock.now
        controller.withLock { $0.handle(event, at: now) }
    }

    /// The allocation in force (the last one decided).
    public var allocation: BitrateAllocation { controller.withLock { $0.current } }

    public var bounds: BitrateBounds { controller.withLock { $0.bounds } }

    /// Before each frame: takes the decision, if any, and applies its allocation to the encoder
    /// (`setAverageBitRate`, which moves the data-rate cap with it; effective from the next frame) and to the
    /// sender's pacer, together. Returns it, so the caller can force the keyframe the peer asked for (and log the
    /// change); nil when nothing came since the last frame.
    /// - Throws: what `setAverageBitRate` throws (an invalidated session); the pacer is then left as it was.
    @discardableResult
    public func apply(to session: CompressionSession, sender: RTPSender) throws(EncoderSessionError) -> BitrateDecision? {
        try apply(toEncoder: session, pacer: sender)
    }

    /// `apply(to:sender:)` over the two seams, so tests can watch both calls.
    package func apply(
        toEncoder encoder: some EncoderBitRateSetting, pacer: some PacingRateSetting
    ) throws(EncoderSessionError) -> BitrateDecision? {
        try applying.withLock { (_: inout Void) throws(EncoderSessionError) -> BitrateDecision? in
            let now = clock.now
            guard let decision = controller.withLock({ $0.poll(at: now) }) else { return nil }
            if let allocation = decision.allocation {
                try encoder.setAverageBitRate(allocation.encoderBitRate)
                pacer.setTargetBitrate(allocation.pacingBitRate)
            }
            return decision
        }
    }
}

/// What `LiveBitrateController.apply` sets on the encoder: `CompressionSession`, or a test's fake.
package protocol EncoderBitRateSetting: Sendable {
    func setAverageBitRate(_ bitsPerSecond: Int) throws(EncoderSessionError)
}

/// What `LiveBitrateController.apply` sets on the sender: `RTPSender`'s pacer, or a test's fake.
package protocol PacingRateSetting: Sendable {
    func setTargetBitrate(_ bitsPerSecond: UInt64)
}

extension CompressionSession: EncoderBitRateSetting {}
extension RTPSender: PacingRateSetting {}
