/// What a link does to the packets that cross it: the settings of one direction of an emulated network path.
///
/// Pure data, checked by `validate()`. Each impairment is applied in the order a real path would: a debug frame
/// filter, then loss, then the bottleneck (rate limit and its queue), then propagation delay with jitter and
/// reordering. Times are `Duration`s on the emulator's own clock (see `NetworkLink`).
public struct ImpairmentProfile: Sendable, Equatable {
    public enum Loss: Sendable, Equatable {
        case none
        /// Each packet is lost independently with probability `rate` (0…1).
        case random(rate: Double)
        /// Gilbert-Elliott two-state model: all packets are lost in the bad state, none in the good one. `rate` is the
        /// long-run loss (0…<1), `meanBurstLength` the mean number of packets lost in a row (≥ 1).
        case burst(rate: Double, meanBurstLength: Double)
    }

    public enum RateLimit: Sendable, Equatable {
        case unlimited
        case constant(bitsPerSecond: Int)
        /// Piecewise-constant rate over time (a bandwidth trace).
        case trace(RateTrace)
    }

    /// Bounds that keep a typo from turning into an hour-long queue or a gigabyte of held packets.
    public static let maxDelay: Duration = .seconds(10)
    public static let maxQueueBytes = 64 << 20

    public var loss: Loss
    /// One-way propagation delay added to every packet.
    public var delay: Duration
    /// Each packet's delay varies uniformly within ±`jitter` (never below zero); packets may overtake each other.
    public var jitter: Duration
    /// Share of packets (0…1) held back an extra `reorderDelay`, so the ones behind them arrive first.
    public var reorderRate: Double
    public var reorderDelay: Duration
    public var rateLimit: RateLimit
    /// The bottleneck's drop-tail queue, in bytes: a packet that would make it longer is dropped.
    public var queueBytes: Int
    /// The queue's limit in time (RFC 8868 §2's "queue measured as time to drain", what RFC 8867's cases give): a
    /// packet that would take longer than this from its arrival to its own last byte leaving (the packets ahead of
    /// it, then itself) is dropped on arrival — the simulator's `QueueLimit.time`.
    /// Both limits apply; nil: bytes only.
    public var queueDelayLimit: Duration?
    /// Debug filter: every packet of these frames is dropped, retransmissions included. Frames are numbered 0, 1, 2…
    /// in arrival order by their RTP timestamp (a newer timestamp = the next frame), so "frame 60" is the 61st access
    /// unit the relay saw.
    public var dropFrames: Set<Int>
    /// Debug filter: these RTP packets are dropped, numbered 0, 1, 2… in the order they reach the link (RTCP is not
    /// counted). A retransmission is a new arrival with a number of its own, so "packet 0" is lost once and can be
    /// asked for again — the deterministic way to lose the very first packet, a fragment of the first IDR, or the
    /// first N packets of a stream.
    public var dropPackets: PacketNumbers
    /// With `dropPackets`: every later packet with the RTP sequence number of one it dropped is dropped too — its
    /// NACK retransmissions (RFC 4585 without RTX resends the same number) — so the hole is never filled.
    public var dropRetransmissions: Bool
    /// Loss on the way back (0…1, independent per packet): the share of the receiver's RTCP — RR, NACK, PLI, REMB —
    /// that never reaches the sender. Lost feedback is its own experiment (a NACK or PLI that must be sent again), so
    /// it is set apart from `loss`.
    public var returnLoss: Double

    public init(loss: Loss = .none, delay: Duration = .zero, jitter: Duration = .zero, reorderRate: Double = 0,
                reorderDelay: Duration = .milliseconds(10), rateLimit: RateLimit = .unlimited, queueBytes: Int = 256 << 10,
                queueDelayLimit: Duration? = nil, dropFrames: Set<Int> = [], dropPackets: PacketNumbers = PacketNumbers(), dropRetransmissions: Bool = false,
                returnLoss: Double = 0) {
        self.loss = loss
        self.delay = delay
        self.jitter = jitter
        self.reorderRate = reorderRate
        self.reorderDelay = reorderDelay
        self.rateLimit = rateLimit
        self.queueBytes = queueBytes
        self.queueDelayLimit = queueDelayLimit
        self.dropFrames = dropFrames
        self.dropPackets = dropPackets
        self.dropRetransmissions = dropRetransmissions
        self.returnLoss = returnLoss
    }

    /// The same path's other direction as this relay models it: the same propagation delay and jitter, `returnLoss`
    /// as random loss, and no reordering, rate limit or frame filter (feedback is small).
    public var returnPath: ImpairmentProfile {
        ImpairmentProfile(loss: returnLoss > 0 ? .random(rate: returnLoss) : .none, delay: delay, jitter: jitter)
    }

    public func validate() throws(NetworkEmulatorError) {
        guard (0 ... 1).contains(returnLoss) else { throw .make(.invalidSetting, "return loss must be 0…100 %") }
        switch loss {
        case .none: break
        case .random(let rate):
            guard (0 ... 1).contains(rate) else { throw .make(.invalidSetting, "loss must be 0…100 %") }
        case .burst(let rate, let meanBurstLength):
            guard (0 ..< 1).contains(rate) else { throw .make(.invalidSetting, "burst loss needs a loss rate of 0…<100 %") }
            guard meanBurstLength >= 1, meanBurstLength <= 1_000_000 else {
                throw .make(.invalidSetting, "mean burst length must be 1…1000000 packets")
            }
        }
        for (name, value) in [("delay", delay), ("jitter", jitter), ("reorder delay", reorderDelay)] {
            guard value >= .zero, value <= Self.maxDelay else { throw .make(.invalidSetting, "\(name) must be 0…\(Self.maxDelay)") }
        }
        guard (0 ... 1).contains(reorderRate) else { throw .make(.invalidSetting, "reorder must be 0…100 %") }
        if case .constant(let bitsPerSecond) = rateLimit, bitsPerSecond <= 0 {
            throw .make(.invalidSetting, "rate must be more than 0")
        }
        guard queueBytes > 0, queueBytes <= Self.maxQueueBytes else {
            throw .make(.invalidSetting, "queue must be 1…\(Self.maxQueueBytes) bytes")
        }
        if let queueDelayLimit, queueDelayLimit <= .zero || queueDelayLimit > Self.maxDelay {
            throw .make(.invalidSetting, "queue delay limit must be more than 0 and at most \(Self.maxDelay)")
        }
        guard dropFrames.allSatisfy({ $0 >= 0 }) else { throw .make(.invalidSetting, "frame numbers start at 0") }
        guard dropPackets.ranges.allSatisfy({ $0.lowerBound >= 0 }) else { throw .make(.invalidSetting, "packet numbers start at 0") }
    }
}
