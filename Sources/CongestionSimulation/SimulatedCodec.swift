import MediaCore

/// The encoder in the loop: what the simulator asks of a codec, one captured frame at a time, in simulated time.
/// `SyntheticCodec` (RFC 8593-style sizes, for speed) is one; real libx264 through a `CompressionSession` is another,
/// in an edge module (this one stays pure: no libav). The simulator hands each frame's access unit to the RTP send
/// session as a live sender does, applies the controller's rate with `setTarget`, forwards the receiver's PLI as
/// `requestKeyframe`, and tells the policy every frame's size.
public protocol SimulatedCodec {
    /// Nanoseconds from one capture to the next.
    var frameInterval: Int64 { get }
    /// H.264 SPS and PPS the send session knows before the first frame (it puts them in front of an IDR that lacks
    /// them); nil when the codec writes them in band before every keyframe.
    var parameterSets: (sequence: [UInt8], picture: [UInt8])? { get }
    /// Frames captured but not sent: skipped for the cap or a budget, or dropped by the encoder.
    var framesSkipped: Int { get }
    /// The controller's new target, bits/s, from the next frame on.
    mutating func setTarget(_ bitsPerSecond: Double, at now: Int64) throws(SimulationError)
    /// The receiver asked for a picture (PLI/FIR): the next frame is a keyframe.
    mutating func requestKeyframe()
    /// Encodes the frame captured at `now` (ns) with `presentationTime`; nil when it is skipped.
    /// - Parameter budget: the most bytes this frame may take, when the controller sets one (0: skip it); nil: none.
    mutating func encode(at now: Int64, presentationTime: MediaTime, budget: Int?,
                         random: inout SimulationRandom) throws(SimulationError) -> SimulatedFrame?
}

/// One encoded frame: the access unit for the send session and its size as the analyser counts it.
public struct SimulatedFrame: Sendable {
    public var accessUnit: CodedAccessUnit
    /// The encoder's output size in bytes (the synthetic codec's nominal size: its access unit adds start codes).
    public var bytes: Int

    public init(accessUnit: CodedAccessUnit, bytes: Int) {
        self.accessUnit = accessUnit
        self.bytes = bytes
    }

    public var isKeyframe: Bool { accessUnit.isKeyframe }
}
