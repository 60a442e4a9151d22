/// One direction of an emulated network path, with no I/O: packets are offered with their arrival time and come
/// out of `deliver(at:)` when the path would have delivered them, or never.
///
/// Time is a `Duration` since the link was made (the caller's clock, injected) and randomness comes from a seeded
/// generator, so a given seed and arrival sequence always gives the same losses, delays and order.
public struct NetworkLink<Payload> {
    public struct Statistics: Sendable, Equatable {
        public var packetsIn = 0
        public var bytesIn = 0
        public var packetsOut = 0
        public var bytesOut = 0
        /// Lost by the loss model.
        public var droppedByLoss = 0
        /// Did not fit the bottleneck's queue.
        public var droppedByQueue = 0
        /// Dropped by the `dropFrames` debug filter.
        public var droppedFrames = 0
        /// Dropped by the `dropPackets` debug filter.
        public var droppedPackets = 0
        /// Delivered after a packet that arrived later than it did.
        public var reordered = 0

        public var dropped: Int { droppedByLoss + droppedByQueue + droppedFrames + droppedPackets }
    }

    /// Bound on packets held at once (in the bottleneck's queue or in flight), whatever the settings.
    public static var maxPacketsInFlight: Int { 1 << 20 }

    public let profile: ImpairmentProfile
    public private(set) var statistics = Statistics()
    private var generator: SeededGenerator
    private var loss: LossModel
    private var bottleneck: Bottleneck
    private var line = DelayLine<(Payload, Int)>()
    private var frames: FrameFilter
    private var arrivals: UInt64 = 0
    /// RTP packets offered so far: the number of the next one for the `dropPackets` filter.
    private var rtpArrivals = 0
    /// Sequence numbers the `dropPackets` filter dropped, with `dropRetransmissions` (bounded by `maxRemembered`).
    private var droppedSequenceNumbers: Set<UInt16> = []
    private var highestDelivered: UInt64?
    /// Per-packet records kept since the last `takeRecords` when `recordsPackets` is on.
    private var records: [PacketRecord] = []
    /// Keep a `PacketRecord` of every offered packet (the relay's `--packet-log`).
    public var recordsPackets = false

    public init(profile: ImpairmentProfile, seed: UInt64) throws(NetworkEmulatorError) {
        try profile.validate()
        self.profile = profile
        generator = SeededGenerator(seed: seed)
        loss = LossModel(profile.loss)
        bottleneck = Bottleneck(rateLimit: profile.rateLimit, queueBytes: profile.queueBytes, queueDelayLimit: profile.queueDelayLimit)
        frames = FrameFilter(frames: profile.dropFrames)
    }

    /// Offers a packet of `bytes` that reached the link at `now`. `rtpTimestamp` (nil for non-RTP) numbers frames
    /// for the `dropFrames` filter, and marks the packet as RTP for the `dropPackets` filter; `rtpSequenceNumber`
    /// tells retransmissions apart for `dropRetransmissions`; `kind` only goes into the record. Returns false if the
    /// packet was dropped.
    @discardableResult
    public mutating func offer(_ payload: Payload, bytes: Int, rtpTimestamp: UInt32? = nil, rtpSequenceNumber: UInt16? = nil,
                               kind: PacketRecord.Kind? = nil, at now: Duration) -> Bool {
        let fate = admit(payload, bytes: bytes, rtpTimestamp: rtpTimestamp, rtpSequenceNumber: rtpSequenceNumber, at: now)
        if recordsPackets {
            records.append(PacketRecord(arrival: now, bytes: bytes, rtpSequenceNumber: rtpSequenceNumber, fate: fate, kind: kind))
        }
        if case .forwarded = fate { return true }
        return false
    }

    /// The records kept since the last call, oldest first.
    public mutating func takeRecords() -> [PacketRecord] {
        defer { records.removeAll(keepingCapacity: true) }
        return records
    }

    private mutating func admit(_ payload: Payload, bytes: Int, rtpTimestamp: UInt32?, rtpSequenceNumber: UInt16?,
                                at now: Duration) -> PacketRecord.Fate {
        statistics.packetsIn += 1
        statistics.bytesIn += bytes
        if let rtpTimestamp {
            let number = rtpArrivals
            rtpArrivals += 1
            if !profile.dropFrames.isEmpty, frames.drops(timestamp: rtpTimestamp) {
                statistics.droppedFrames += 1
                return .dropped(.frameFilter)
            }
            if profile.dropPackets.contains(number)
                || profile.dropRetransmissions && rtpSequenceNumber.map(droppedSequenceNumbers.contains) == true {
                if profile.dropRetransmissions, let rtpSequenceNumber, droppedSequenceNumbers.count < FrameFilter.maxRemembered {
                    droppedSequenceNumbers.insert(rtpSequenceNumber)
                }
                statistics.droppedPackets += 1
                return .dropped(.packetFilter)
            }
        }
        if loss.losesNext(using: &generator) {
            statistics.droppedByLoss += 1
            return .dropped(.loss)
        }
        guard line.count < Self.maxPacketsInFlight, let departure = bottleneck.admit(bytes: bytes, at: now) else {
            statistics.droppedByQueue += 1
            return .dropped(.queue)
        }
        var delay = profile.delay
        if profile.jitter > .zero {
            let spread = profile.jitter.seconds
            delay = max(.zero, delay + .seconds(Double.random(in: -spread ... spread, using: &generator)))
        }
        if generator.chance(profile.reorderRate) { delay += profile.reorderDelay }
        line.insert((payload, bytes), due: departure + delay, order: arrivals)
        arrivals += 1
        return .forwarded(departure: departure, delivery: departure + delay)
    }

    /// When the next held packet is due (for the caller's poll timeout); nil when none is held.
    public var nextDelivery: Duration? { line.nextDue }

    /// Packets held (queued at the bottleneck or in flight).
    public var packetsHeld: Int { line.count }

    /// Hands every packet due at `now` to `body`, in delivery order.
    public mutating func deliver(at now: Duration, _ body: (Payload) throws -> Void) rethrows {
        while let entry = line.popDue(at: now) {
            statistics.packetsOut += 1
            statistics.bytesOut += entry.payload.1
            if let highest = highestDelivered, entry.order < highest {
                statistics.reordered += 1
            } else {
                highestDelivered = entry.order
            }
            try body(entry.payload.0)
        }
    }
}

extension NetworkLink: Sendable where Payload: Sendable {}

/// Numbers frames 0, 1, 2… by RTP timestamp in arrival order, and remembers the timestamps of frames to drop so
/// that their retransmissions (same timestamp, arriving later) are dropped too.
///
/// A timestamp newer than the last one (RFC 3550 timestamps wrap: compared as a signed 32-bit difference) starts
/// the next frame; an older one is a retransmission or a reordered packet and starts nothing.
struct FrameFilter: Sendable {
    /// Bound on remembered timestamps (a stream dropping more frames than this forgets the oldest).
    static let maxRemembered = 4096

    let frames: Set<Int>
    private var last: UInt32?
    private var current = -1
    private var dropping: Set<UInt32> = []
    private var droppingOrder: [UInt32] = []

    init(frames: Set<Int>) { self.frames = frames }

    mutating func drops(timestamp: UInt32) -> Bool {
        if last.map({ Int32(bitPattern: timestamp &- $0) > 0 }) ?? true {
            last = timestamp
            current += 1
            if frames.contains(current) { remember(timestamp) }
        }
        return dropping.contains(timestamp)
    }

    private mutating func remember(_ timestamp: UInt32) {
        dropping.insert(timestamp)
        droppingOrder.append(timestamp)
        if droppingOrder.count > Self.maxRemembered { dropping.remove(droppingOrder.removeFirst()) }
    }
}
