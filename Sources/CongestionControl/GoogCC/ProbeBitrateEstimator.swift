import MediaCore
import RTP

/// What a probe cluster measured: libwebrtc's `ProbeBitrateEstimator`
/// (modules/congestion_controller/goog_cc/probe_bitrate_estimator.cc). Once 80 % of a cluster's packets and bytes
/// are reported received (`kMinReceivedProbesRatio`, `kMinReceivedBytesRatio`), its send rate (bytes but the last
/// sent over the send interval) and receive rate (bytes but the first received over the receive interval) give
/// the estimate: the lower of the two, or 0.95 × the receive rate (`kTargetUtilizationFraction`) when the link
/// delivered less than 90 % of the send rate (`kMinRatioForUnsaturatedLink`: the probe saturated it). A cluster
/// whose intervals exceed 1 s (`kMaxProbeInterval`) or that arrived more than twice as fast as sent
/// (`kMaxValidRatio`) says nothing. Clusters not heard of for 1 s are forgotten (`kMaxClusterHistory`).
public struct ProbeBitrateEstimator: Sendable {
    public static let minReceivedProbesRatio = 0.80
    public static let minReceivedBytesRatio = 0.80
    public static let maxValidRatio = 2.0
    public static let minRatioForUnsaturatedLink = 0.9
    public static let targetUtilizationFraction = 0.95
    public static let maxClusterHistory: Duration = .seconds(1)
    public static let maxProbeInterval: Duration = .seconds(1)

    private struct Cluster: Sendable {
        var config: ProbeClusterConfig
        var firstSend: Instant?
        var lastSend: Instant?
        var firstReceive: Instant?
        var lastReceive: Instant?
        var sizeLastSend = 0
        var sizeFirstReceive = 0
        var sizeTotal = 0
        var probes = 0
    }

    private var clusters: [Int: Cluster] = [:]
    private var lastEstimate: Double?

    public init() {}

    /// The sender was asked for this cluster; its packets are matched by `id`.
    public mutating func register(_ config: ProbeClusterConfig) {
        clusters[config.id] = Cluster(config: config)
    }

    /// One received packet of a registered cluster; returns the cluster's estimate, bits/s, once it has one.
    @discardableResult
    public mutating func handle(_ packet: PacketResult) -> Double? {
        guard let id = packet.sent.probeClusterID, let arrival = packet.arrival else { return nil }
        clusters = clusters.filter { $0.value.lastReceive.map { arrival - $0 < Self.maxClusterHistory } ?? true }
        guard var cluster = clusters[id] else { return nil }
        let sent = packet.sent
        if cluster.firstSend.map({ sent.sendTime < $0 }) ?? true { cluster.firstSend = sent.sendTime }
        if cluster.lastSend.map({ sent.sendTime > $0 }) ?? true {
            cluster.lastSend = sent.sendTime
            cluster.sizeLastSend = sent.size
        }
        if cluster.firstReceive.map({ arrival < $0 }) ?? true {
            cluster.firstReceive = arrival
            cluster.sizeFirstReceive = sent.size
        }
        if cluster.lastReceive.map({ arrival > $0 }) ?? true { cluster.lastReceive = arrival }
        cluster.sizeTotal += sent.size
        cluster.probes += 1
        clusters[id] = cluster

        let minProbes = Double(cluster.config.minProbes) * Self.minReceivedProbesRatio
        let minBytes = Double(cluster.config.minBytes) * Self.minReceivedBytesRatio
        guard Double(cluster.probes) >= minProbes, Double(cluster.sizeTotal) >= minBytes,
              let firstSend = cluster.firstSend, let lastSend = cluster.lastSend,
              let firstReceive = cluster.firstReceive, let lastReceive = cluster.lastReceive else { return nil }
        let sendInterval = lastSend - firstSend
        let receiveInterval = lastReceive - firstReceive
        guard sendInterval > .zero, sendInterval <= Self.maxProbeInterval,
              receiveInterval > .zero, receiveInterval <= Self.maxProbeInterval else { return nil }
        let sendRate = Double(cluster.sizeTotal - cluster.sizeLastSend) * 8 / sendInterval.gccSeconds
        let receiveRate = Double(cluster.sizeTotal - cluster.sizeFirstReceive) * 8 / receiveInterval.gccSeconds
        guard receiveRate / sendRate <= Self.maxValidRatio else { return nil }
        var estimate = min(sendRate, receiveRate)
        if receiveRate < Self.minRatioForUnsaturatedLink * sendRate {
            estimate = Self.targetUtilizationFraction * receiveRate
        }
        lastEstimate = estimate
        return estimate
    }

    /// The latest estimate since the last call, then forgotten (`FetchAndResetLastEstimatedBitrate`).
    public mutating func fetchAndResetLastEstimate() -> Double? {
        defer { lastEstimate = nil }
        return lastEstimate
    }
}
