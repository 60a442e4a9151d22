/// The rate of the stream at one moment: what the encoder aims for and what the pacer is told, decided together so
/// they can never disagree.
public struct BitrateAllocation: Sendable, Hashable, CustomStringConvertible {
    /// The encoder's average bit rate (`CompressionSession.setAverageBitRate`, whose data-rate cap follows it).
    public var encoderBitRate: Int
    /// What the sender's pacer is given (`RTPSender.setTargetBitrate`): its leaky bucket drains at its pacing factor
    /// (2.5, as libwebrtc) times this, so a keyframe leaves in a fraction of a frame interval.
    public var pacingBitRate: UInt64
    /// Probe clusters to send once, on top of the media (libwebrtc's `NetworkControlUpdate.probe_cluster_configs`):
    /// a controller that probes (`GoogCCPolicy`) hands them over with the decision that follows them; empty for
    /// `PeerLimitPolicy`. Padding-only packets tagged with the cluster's id (`SentPacket.probeClusterID`) carry them.
    public var probeClusters: [ProbeClusterConfig]
    /// The most the next frame may take, bytes (nil: no per-frame budget, the encoder's own rate control decides).
    /// An encoder-coupled controller (`RtencCongestionPolicy`) sets it so that a frame never adds more to the path
    /// than the link can drain within the delay target; an encoder that obeys it (the simulator's `SyntheticCodec`,
    /// the session's hard cap) cuts the frame to it, and skips the frame when it is below the smallest frame worth
    /// sending.
    public var frameBudgetBytes: Int?
    /// Skip the next frame altogether (the queue is over the delay target by more than a frame): the encoder drops
    /// the picture before encoding it, as VideoToolbox does under its data-rate limit, and the next one is coded
    /// against the last frame sent.
    public var skipNextFrame: Bool

    public init(encoderBitRate: Int, pacingBitRate: UInt64, probeClusters: [ProbeClusterConfig] = [],
                frameBudgetBytes: Int? = nil, skipNextFrame: Bool = false) {
        self.encoderBitRate = encoderBitRate
        self.pacingBitRate = pacingBitRate
        self.probeClusters = probeClusters
        self.frameBudgetBytes = frameBudgetBytes
        self.skipNextFrame = skipNextFrame
    }

    /// The encoder and the pacer at the same rate (what `PeerLimitPolicy` decides).
    public init(bitsPerSecond: Int) {
        self.init(encoderBitRate: bitsPerSecond, pacingBitRate: UInt64(max(0, bitsPerSecond)))
    }

    /// What the next frame may take, bytes: 0 to skip it (`skipNextFrame`), the budget, or nil for no limit.
    public var frameByteLimit: Int? { skipNextFrame ? 0 : frameBudgetBytes }

    /// True when the encoder and the pacing rate equal `other`'s (probe clusters aside).
    public func hasSameRates(as other: BitrateAllocation) -> Bool {
        encoderBitRate == other.encoderBitRate && pacingBitRate == other.pacingBitRate
    }

    public var description: String {
        "encoder \(encoderBitRate) b/s, pacing \(pacingBitRate) b/s"
            + (probeClusters.isEmpty ? "" : ", \(probeClusters.count) probe cluster(s)")
            + (frameBudgetBytes.map { ", frame budget \($0) B" } ?? "") + (skipNextFrame ? ", skip the next frame" : "")
    }
}

/// What `BitrateController.poll` asks of the encoder and the sender before the next frame; everything in it is
/// applied in one step (`LiveBitrateController.apply` in StreamControl does that for a `CompressionSession` and an
/// `RTPSender`).
public struct BitrateDecision: Sendable, Hashable {
    /// The rate to apply — encoder target and pacing rate together — whenever a rate input (a peer's limit, new
    /// bounds) came since the last decision, even when it is the rate already in force: the transport may have moved
    /// its pacer by itself (RTPSender sets it to a REMB's raw value), and applying the allocation again makes this
    /// decision the last word. nil when only a keyframe was asked for.
    public var allocation: BitrateAllocation?
    /// The allocation in force before this decision.
    public var previous: BitrateAllocation
    /// Encode the next frame as an IDR (one for any number of PLI/FIR since the last decision).
    public var forceKeyframe: Bool

    public init(allocation: BitrateAllocation?, previous: BitrateAllocation, forceKeyframe: Bool) {
        self.allocation = allocation
        self.previous = previous
        self.forceKeyframe = forceKeyframe
    }

    /// True when the allocation differs from the one before (worth a log line; the encoder's rate controller starts a
    /// transition).
    public var changesRate: Bool { allocation.map { !$0.hasSameRates(as: previous) } ?? false }
}
