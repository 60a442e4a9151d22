import CongestionControl
import MediaCore
import NetworkEmulator
import RTP

/// A small deterministic closed loop for a `BitrateControlPolicy`, in virtual time, written for these tests (the
/// full discrete-event simulator lives in its own module): an ideal encoder producing 30 frames per second of exactly
/// the target rate, split into packets of at most 1200 bytes → a leaky-bucket pacer at 2.5 × the pacing rate, with
/// probe clusters sent beside it as padding at their own rate → one FIFO bottleneck (serialisation at the capacity,
/// unbounded queue like libwebrtc's simulated network, independent random loss from NetworkEmulator's seeded
/// generator, then a fixed
/// propagation delay) → a receiver that reports every packet, received or not, every 50 ms → the same delay back →
/// the policy. Arrivals are stamped on a receiver clock 7 s ahead of the sender's, so a policy that subtracted a send
/// time from an arrival would fail. The loop runs in 1 ms steps; every time inside a step is exact.
struct BottleneckLoop {
    struct Link {
        /// Bottleneck capacity, bits/s.
        var capacity: Double
        /// One-way propagation delay, each direction.
        var delay: Duration
        /// Probability that a packet is lost after the queue.
        var lossRate = 0.0
    }

    static let maxPacketSize = 1200
    static let feedbackInterval: Duration = .milliseconds(50)
    static let processInterval: Duration = .milliseconds(25)
    static let frameInterval: Duration = .nanoseconds(1_000_000_000 / 30)
    static let receiverClockOffset: Duration = .seconds(7)

    var policy: any BitrateControlPolicy
    var bounds: BitrateBounds
    var link: Link
    private(set) var now = Instant(nanoseconds: 1_000_000_000)
    /// The allocation in force.
    private(set) var allocation: BitrateAllocation
    /// (time, encoder rate) after every decision.
    private(set) var targets: [(Instant, Int)] = []
    private(set) var probeClustersSent = 0
    private(set) var bytesDelivered = 0

    private var rng: SeededGenerator
    private var nextSequence: Int64 = 0
    private var pacerQueue: [Int] = []  // packet sizes waiting for the pacer
    private var pacerNext: Instant
    private var probeSends: [(Instant, Int, Int)] = []  // (send time, size, cluster id)
    private var bottleneckFree: Instant
    /// Packets past the bottleneck, in send order: (record, arrival at the receiver or nil when lost).
    private var inFlight: [(SentPacket, Instant?)] = []
    private var inFlightHead = 0
    /// What the receiver has seen since its last report.
    private var receiverPending: [(SentPacket, Instant?)] = []
    private var nextFeedback: Instant
    private var nextProcess: Instant
    private var nextFrame: Instant
    private var feedbackInTransit: [(Instant, TransportPacketsFeedback)] = []

    init(policy: any BitrateControlPolicy, bounds: BitrateBounds, link: Link, seed: UInt64 = 1) {
        self.policy = policy
        self.bounds = bounds
        self.link = link
        rng = SeededGenerator(seed: seed)
        pacerNext = now
        bottleneckFree = now
        nextFeedback = now + Self.feedbackInterval
        nextProcess = now
        nextFrame = now
        allocation = BitrateAllocation(bitsPerSecond: 0)
        decide()
    }

    /// The policy's target now, bits/s.
    var target: Int { allocation.encoderBitRate }

    mutating func limit(_ bitsPerSecond: UInt64) {
        policy.observe(peerLimit: bitsPerSecond, at: now)
        decide()
    }

    /// Runs the loop for `duration`.
    mutating func run(for duration: Duration) {
        let end = now + duration
        while now < end {
            step()
            now += .milliseconds(1)
        }
    }

    private mutating func decide() {
        allocation = policy.allocation(within: bounds, at: now)
        targets.append((now, allocation.encoderBitRate))
        for cluster in allocation.probeClusters { scheduleProbe(cluster) }
        nextProcess = now + Self.processInterval
    }

    /// libwebrtc's prober sends a cluster at its rate in packets of about 2 ms of it (`kMinProbeDelta`), at least
    /// `minProbes` of them and at least the cluster's bytes. Its pacer sends the cluster *instead of* media (media
    /// packets sent during a probe are part of it), so the path sees the probe rate, not probe + media: here media
    /// waits until the cluster is out.
    private mutating func scheduleProbe(_ cluster: ProbeClusterConfig) {
        probeClustersSent += 1
        let rate = Double(cluster.bitrate)
        let size = min(Self.maxPacketSize, max(200, Int(rate * 0.002 / 8)))
        let count = max(cluster.minProbes, (cluster.minBytes + size - 1) / size)
        let spacing = Double(size * 8) / rate
        var time = max(now, probeSends.last?.0 ?? now)
        for _ in 0..<count {
            probeSends.append((time, size, cluster.id))
            time += .nanoseconds(Int64(spacing * 1e9))
        }
        pacerNext = max(pacerNext, time)
    }

    private mutating func step() {
        let stepEnd = now + .milliseconds(1)
        // Feedback that reached the sender.
        while let first = feedbackInTransit.first, first.0 <= now {
            feedbackInTransit.removeFirst()
            policy.observe(feedback: first.1)
            decide()
        }
        if now >= nextProcess { decide() }
        // The encoder: one frame of exactly the target rate.
        if now >= nextFrame {
            let bytes = max(1, allocation.encoderBitRate / 8 / 30)
            let packets = (bytes + Self.maxPacketSize - 1) / Self.maxPacketSize
            for i in 0..<packets { pacerQueue.append(bytes / packets + (i < bytes % packets ? 1 : 0)) }
            nextFrame += Self.frameInterval
        }
        // Media through the pacer and probes beside it, in send-time order, within this step.
        var sends: [(Instant, Int, SentPacket.Kind, Int?)] = []
        let pacingRate = 2.5 * Double(max(allocation.pacingBitRate, 1))
        while let size = pacerQueue.first, pacerNext < stepEnd {
            pacerQueue.removeFirst()
            let time = max(pacerNext, now)
            sends.append((time, size, .media, nil))
            pacerNext = time + .nanoseconds(Int64(Double(size * 8) / pacingRate * 1e9))
        }
        if pacerQueue.isEmpty && pacerNext < now { pacerNext = now }
        while let probe = probeSends.first, probe.0 < stepEnd {
            probeSends.removeFirst()
            sends.append((max(probe.0, now), probe.1, .padding, probe.2))
        }
        sends.sort { $0.0 < $1.0 }
        for (time, size, kind, cluster) in sends { transmit(at: time, size: size, kind: kind, cluster: cluster) }
        // The receiver learns of every packet that arrived by the end of this step, and of the losses before it.
        while inFlightHead < inFlight.count {
            let (packet, arrival) = inFlight[inFlightHead]
            if let arrival {
                guard arrival < stepEnd else { break }
                bytesDelivered += packet.size
            } else {
                // A loss is known once a later packet arrives.
                guard inFlight[inFlightHead...].contains(where: { $0.1.map { $0 < stepEnd } ?? false }) else { break }
            }
            receiverPending.append((packet, arrival.map { $0 + Self.receiverClockOffset }))
            inFlightHead += 1
        }
        if inFlightHead > 4096 {
            inFlight.removeFirst(inFlightHead)
            inFlightHead = 0
        }
        if now >= nextFeedback {
            if !receiverPending.isEmpty {
                let report = TransportPacketsFeedback(
                    feedbackTime: now + link.delay,
                    packets: receiverPending.map { PacketResult(sent: $0.0, arrival: $0.1) }, bytesInFlight: 0)
                feedbackInTransit.append((now + link.delay, report))
                receiverPending.removeAll()
            }
            nextFeedback += Self.feedbackInterval
        }
    }

    private mutating func transmit(at time: Instant, size: Int, kind: SentPacket.Kind, cluster: Int?) {
        let packet = SentPacket(sequenceNumber: nextSequence, sendTime: time, size: size, kind: kind, probeClusterID: cluster)
        nextSequence += 1
        policy.observe(sent: packet)
        let start = max(time, bottleneckFree)
        let departure = start + .nanoseconds(Int64(Double(size * 8) / link.capacity * 1e9))
        bottleneckFree = departure
        let lost = rng.chance(link.lossRate)
        inFlight.append((packet, lost ? nil : departure + link.delay))
    }
}
