import MediaCore
import RTP

/// The throughput the receiver acknowledged: every received packet's bytes at its arrival time, through a
/// `BitrateEstimator`. libwebrtc's `AcknowledgedBitrateEstimator`
/// (modules/congestion_controller/goog_cc/acknowledged_bitrate_estimator.cc). The delay-based controller backs off
/// to 0.85 × this and may not increase beyond 1.5 × it.
public struct AcknowledgedBitrateEstimator: Sendable {
    private var estimator = BitrateEstimator()
    private var alrEndedTime: Instant?

    public init() {}

    /// The acknowledged rate, bits/s (nil until the first 500 ms window is full).
    public var bitsPerSecond: Double? { estimator.bitsPerSecond }

    /// Adds a report's received packets, in arrival order (lost ones are skipped).
    public mutating func incoming(_ packets: [PacketResult]) {
        for packet in packets {
            guard let arrival = packet.arrival else { continue }
            if let ended = alrEndedTime, packet.sent.sendTime > ended {
                estimator.expectFastRateChange()
                alrEndedTime = nil
            }
            estimator.update(at: arrival, bytes: packet.sent.size)
        }
    }

    /// The sender left the application-limited region at `time` (`SetAlrEndedTime`): the first packet sent after it
    /// lets the estimate move fast.
    public mutating func setALREnded(at time: Instant) { alrEndedTime = time }
}
