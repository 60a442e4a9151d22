/// What a WebRTC transport (`WebRTCServer`, `WebRTCPublisher`) asks of the encoder for its next frame
/// (`nextFrame()`): the rate policy's target with the pacer-queue pushback applied (`QueuePushback`), and the
/// keyframe a new peer or a PLI/FIR asked for.
public struct WebRTCFrameDecision: Sendable, Equatable {
    /// Do not encode this picture: a peer's pacer queue is longer than the pushback bound.
    public var skip: Bool
    /// The rate to encode at, bits/s.
    public var encoderTarget: UInt64
    /// Encode this frame as an IDR (never together with `skip`).
    public var forceKeyframe: Bool
    /// The longest expected pacer queue time among the peers (nil: none sends yet).
    public var queueTime: Duration?

    public init(skip: Bool, encoderTarget: UInt64, forceKeyframe: Bool, queueTime: Duration?) {
        self.skip = skip
        self.encoderTarget = encoderTarget
        self.forceKeyframe = forceKeyframe
        self.queueTime = queueTime
    }
}
