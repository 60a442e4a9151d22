import MediaCore
import RTP

/// How feedback becomes the stream's rate: the piece a congestion controller replaces (issue 17 plugs GCC in here).
///
/// The live counterpart of BitrateAdaptation's `BitratePolicy` (which turns an offline scenario's target into the
/// encoder's live properties): this one is fed what the network says and answers with one `BitrateAllocation` for
/// the encoder and the pacer together. Time is handed in, never read, so a policy is pure and runs the same in
/// virtual time; `BitrateController` calls it and owns the event plumbing around it.
public protocol BitrateControlPolicy: Sendable {
    /// Short identifier for logs and reports (`peer-limit`).
    var name: String { get }
    /// A peer's limit arrived at `now`: REMB (draft-alvestrand-rmcat-remb §2.2) or TMMBR (RFC 5104 §4.2.1), bits/s.
    mutating func observe(peerLimit bitsPerSecond: UInt64, at now: Instant)
    /// The allocation at `now`, within `bounds`. Asked once at start and after each rate input.
    mutating func allocation(within bounds: BitrateBounds, at now: Instant) -> BitrateAllocation
    /// A packet carrying a transport-wide sequence number left (send-side estimation). Default: ignored.
    mutating func observe(sent packet: SentPacket)
    /// A transport feedback report arrived, normalised (transport-cc or RFC 8888). Default: ignored.
    mutating func observe(feedback: TransportPacketsFeedback)
    /// The encoder produced a frame of `size` bytes at `now` (a controller that budgets per frame uses it); size 0:
    /// the frame was skipped (its budget, `BitrateAllocation.skipNextFrame`, or the hard cap left no room).
    /// Default: ignored.
    mutating func observe(encodedFrameSize size: Int, isKeyframe: Bool, at now: Instant)
    /// The policy's own estimate of what the path carries, bits/s, before bounds and the peer's limit (for stats).
    /// Default: nil (it keeps none).
    var estimatedBitrate: Int? { get }
    /// The pacer's burst allowance this policy paces with (`RTPSendSession.Configuration.pacingBurst`), fixed for the
    /// sender's life. Default: nil (the sender's own).
    var pacingBurst: Duration? { get }
}

extension BitrateControlPolicy {
    public mutating func observe(sent packet: SentPacket) {}
    public mutating func observe(feedback: TransportPacketsFeedback) {}
    public mutating func observe(encodedFrameSize size: Int, isKeyframe: Bool, at now: Instant) {}
    public var estimatedBitrate: Int? { nil }
    public var pacingBurst: Duration? { nil }
}

/// rtenc's policy until congestion control replaces it: the peer's limit is the rate, never above the ceiling nor
/// below the floor (`min(ceiling, max(limit, floor))`), for the encoder and the pacer alike. Before any limit the
/// stream runs at the ceiling. When several limits arrive between two decisions (REMB and TMMBR in one compound
/// packet, or two packets between frames) they all bind, so the tightest wins; a later, higher limit raises the
/// rate again.
public struct PeerLimitPolicy: BitrateControlPolicy {
    public let name = "peer-limit"
    /// The limit in force (nil: none received yet).
    public private(set) var limit: UInt64?
    /// The tightest limit since the last decision.
    private var pending: UInt64?

    public init() {}

    public mutating func observe(peerLimit bitsPerSecond: UInt64, at now: Instant) {
        pending = min(pending ?? bitsPerSecond, bitsPerSecond)
    }

    public mutating func allocation(within bounds: BitrateBounds, at now: Instant) -> BitrateAllocation {
        if let pending {
            limit = pending
            self.pending = nil
        }
        return BitrateAllocation(bitsPerSecond: limit.map(bounds.clamp) ?? bounds.ceiling)
    }
}
