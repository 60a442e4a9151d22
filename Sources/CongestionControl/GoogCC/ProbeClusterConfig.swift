import MediaCore
import RTP

/// One probe the sender is asked to send: `bitrate` for `duration`, at least `minProbes` packets, each tagged with
/// `id` (`SentPacket.probeClusterID`) so the feedback can be matched. libwebrtc's `ProbeClusterConfig`
/// (api/transport/network_types.h); the defaults are `ProbeController`'s: 15 ms (`min_probe_duration`) and 5
/// packets (`kMinProbePacketsSent`).
public struct ProbeClusterConfig: Sendable, Hashable, CustomStringConvertible {
    public static let defaultDuration: Duration = .milliseconds(15)
    public static let defaultMinProbes = 5

    public var id: Int
    /// When the cluster was decided (send it as soon as possible from then).
    public var at: Instant
    /// The rate to send the cluster at, bits/s.
    public var bitrate: UInt64
    public var duration: Duration
    public var minProbes: Int

    public init(id: Int, at: Instant, bitrate: UInt64, duration: Duration = ProbeClusterConfig.defaultDuration,
                minProbes: Int = ProbeClusterConfig.defaultMinProbes) {
        self.id = id
        self.at = at
        self.bitrate = bitrate
        self.duration = duration
        self.minProbes = minProbes
    }

    /// The bytes the cluster carries at its rate over its duration (at least one byte).
    public var minBytes: Int { packets.minBytes }

    /// The cluster as the RTP sender sends it (`RTPSender.startProbe`, `RTPSendSession.startProbe`).
    public var packets: ProbeCluster {
        ProbeCluster(id: id, bitsPerSecond: bitrate, duration: duration, minProbes: minProbes)
    }

    public var description: String { "probe \(id): \(bitrate) b/s for \(duration), ≥ \(minProbes) packets" }
}
