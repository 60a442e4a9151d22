/// One probe cluster to send: padding-only packets at `bitsPerSecond`, at least `minBytes` (the rate over
/// `duration`) and at least `minProbes` packets, each tagged with `id` so its feedback can be matched
/// (`SentPacket.probeClusterID`). The RTP side of CongestionControl's `ProbeClusterConfig` (this module sits below
/// it), as libwebrtc's `BitrateProber` takes a `ProbeClusterConfig`.
public struct ProbeCluster: Sendable, Hashable {
    public var id: Int
    public var bitsPerSecond: UInt64
    public var duration: Duration
    public var minProbes: Int

    public init(id: Int, bitsPerSecond: UInt64, duration: Duration, minProbes: Int) {
        self.id = id
        self.bitsPerSecond = bitsPerSecond
        self.duration = duration
        self.minProbes = minProbes
    }

    /// The bytes the cluster carries at its rate over its duration (at least one).
    public var minBytes: Int { max(1, Int(Double(bitsPerSecond) * duration.seconds / 8)) }
}

/// When each probe packet is due (libwebrtc's `BitrateProber`, pure): a cluster starts when it is handed over (or
/// when the one before it ends), and its k-th packet leaves once the bytes of the packets before it have drained at
/// the cluster's rate — `start + sent × 8 / rate` — so the cluster goes out at its rate whatever the media pacer's.
/// A cluster ends once it has sent both its bytes and its packets; clusters wait their turn in order.
struct ProbeSchedule: Sendable {
    /// Clusters handed over and not finished; the first is the one sending.
    private var clusters: [ProbeCluster] = []
    /// When the first cluster started.
    private var start: RTPInstant?
    private var bytesSent = 0
    private var packetsSent = 0
    /// Clusters that sent all their packets.
    private(set) var clustersSent = 0

    /// A cluster is not worth holding more of: a controller probes a few at a time (goog_cc: two at start).
    static let maxClusters = 16

    var isEmpty: Bool { clusters.isEmpty }

    /// Queues `cluster`; it starts at `now` when nothing else is probing. Returns false (and drops it) when
    /// `maxClusters` are waiting already.
    mutating func add(_ cluster: ProbeCluster, at now: RTPInstant) -> Bool {
        guard clusters.count < Self.maxClusters else { return false }
        if clusters.isEmpty { start = now }
        clusters.append(cluster)
        return true
    }

    /// When the next probe packet is due, nil with nothing to probe.
    var nextSendTime: RTPInstant? {
        guard let cluster = clusters.first, let start else { return nil }
        return start + drainTime(bytesSent, at: cluster.bitsPerSecond)
    }

    /// The cluster whose packet is due at `now`, if any.
    func due(at now: RTPInstant) -> ProbeCluster? {
        guard let next = nextSendTime, next <= now else { return nil }
        return clusters.first
    }

    /// A packet of `wireBytes` of the first cluster went into the queue. When that completes the cluster, the next
    /// one starts where this one's last packet has drained (or at `now`, if that is later: the driver was late).
    mutating func sent(wireBytes: Int, at now: RTPInstant) {
        guard let cluster = clusters.first, let start else { return }
        bytesSent += wireBytes
        packetsSent += 1
        guard bytesSent >= cluster.minBytes, packetsSent >= cluster.minProbes else { return }
        clusters.removeFirst()
        clustersSent += 1
        self.start = clusters.isEmpty ? nil : max(now, start + drainTime(bytesSent, at: cluster.bitsPerSecond))
        bytesSent = 0
        packetsSent = 0
    }

    private func drainTime(_ bytes: Int, at bitsPerSecond: UInt64) -> Duration {
        .nanoseconds(Int64(Double(bytes) * 8 / Double(max(1, bitsPerSecond)) * 1e9))
    }
}
