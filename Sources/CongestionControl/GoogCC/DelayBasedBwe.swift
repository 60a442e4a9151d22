import MediaCore
import RTP

/// The delay-based half of goog_cc: libwebrtc's `DelayBasedBwe`
/// (modules/congestion_controller/goog_cc/delay_based_bwe.cc). Each feedback report's received packets, in arrival
/// order, go through `InterArrivalDelta` (5 ms send groups) into the `TrendlineEstimator`; the detector's verdict,
/// the acknowledged throughput and a probe's result then move `AimdRateControl`.
public struct DelayBasedBwe: Sendable {
    /// libwebrtc's `kStreamTimeOut`: after 2 s without feedback the group and trend state start over.
    public static let streamTimeout: Duration = .seconds(2)

    /// What one report did to the estimate (libwebrtc's `DelayBasedBwe::Result`).
    public struct Result: Sendable, Hashable {
        /// The estimate changed or was confirmed.
        public var updated = false
        /// It came from a probe's result.
        public var probe = false
        /// The estimate, bits/s (meaningful when `updated`).
        public var targetBitrate = 0.0
        /// The detector went from underusing to normal during the report.
        public var recoveredFromOveruse = false
        public var usage: BandwidthUsage = .normal
    }

    public private(set) var rateControl: AimdRateControl
    private var interArrival = InterArrivalDelta()
    private var trendline = TrendlineEstimator()
    private var lastSeenPacket: Instant?

    public init(minBitrate: Double = AimdRateControl.defaultMinBitrate) {
        rateControl = AimdRateControl(minBitrate: minBitrate)
    }

    public var usage: BandwidthUsage { trendline.state }
    public var trendlineEstimator: TrendlineEstimator { trendline }

    public mutating func setStartBitrate(_ bitrate: Double) { rateControl.setStartBitrate(bitrate) }
    public mutating func setMinBitrate(_ bitrate: Double) {
        rateControl.minBitrate = bitrate
    }
    public mutating func onRTTUpdate(_ rtt: Duration) { rateControl.setRTT(rtt) }

    /// One report: its packets (lost ones are skipped), the acknowledged throughput and a probe's result if one
    /// completed, bits/s.
    public mutating func incoming(_ feedback: TransportPacketsFeedback, acknowledgedBitrate: Double?,
                                  probeBitrate: Double?) -> Result {
        // libwebrtc's `SortedByReceiveTime` (a stable sort: equal arrivals keep their sequence order).
        let received = feedback.packets.compactMap { packet in packet.arrival.map { (packet, $0) } }
            .sorted { $0.1 < $1.1 }
        guard !received.isEmpty else { return Result(usage: usage) }
        var recoveredFromOveruse = false
        var previousUsage = usage
        for (packet, arrival) in received {
            incomingPacket(packet, arrival: arrival, at: feedback.feedbackTime)
            if previousUsage == .underusing && usage == .normal { recoveredFromOveruse = true }
            previousUsage = usage
        }
        return maybeUpdateEstimate(acknowledgedBitrate: acknowledgedBitrate, probeBitrate: probeBitrate,
                                   recoveredFromOveruse: recoveredFromOveruse, at: feedback.feedbackTime)
    }

    private mutating func incomingPacket(_ packet: PacketResult, arrival: Instant, at now: Instant) {
        if let last = lastSeenPacket, now - last > Self.streamTimeout {
            interArrival = InterArrivalDelta()
            trendline = TrendlineEstimator()
        }
        lastSeenPacket = now
        if let deltas = interArrival.computeDeltas(sendTime: packet.sent.sendTime, arrivalTime: arrival,
                                                   systemTime: now, size: packet.sent.size) {
            trendline.update(arrivalDelta: deltas.arrivalDelta.gccMilliseconds,
                             sendDelta: deltas.sendDelta.gccMilliseconds,
                             arrivalTime: arrival.gccMilliseconds)
        }
    }

    private mutating func maybeUpdateEstimate(acknowledgedBitrate: Double?, probeBitrate: Double?,
                                              recoveredFromOveruse: Bool, at now: Instant) -> Result {
        var result = Result()
        if usage == .overusing {
            if let acknowledgedBitrate, rateControl.timeToReduceFurther(at: now, estimatedThroughput: acknowledgedBitrate) {
                result.updated = updateEstimate(acknowledgedBitrate: acknowledgedBitrate, at: now, into: &result)
            } else if acknowledgedBitrate == nil, rateControl.isInitialized, rateControl.initialTimeToReduceFurther(at: now) {
                // Overusing before any throughput is known: halve every 200 ms.
                rateControl.setEstimate(rateControl.latestEstimate / 2, at: now)
                result.updated = true
                result.targetBitrate = rateControl.latestEstimate
            }
        } else if let probeBitrate {
            result.probe = true
            result.updated = true
            rateControl.setEstimate(probeBitrate, at: now)
            result.targetBitrate = rateControl.latestEstimate
        } else {
            result.updated = updateEstimate(acknowledgedBitrate: acknowledgedBitrate, at: now, into: &result)
            result.recoveredFromOveruse = recoveredFromOveruse
        }
        result.usage = usage
        return result
    }

    private mutating func updateEstimate(acknowledgedBitrate: Double?, at now: Instant, into result: inout Result) -> Bool {
        result.targetBitrate = rateControl.update(usage: usage, estimatedThroughput: acknowledgedBitrate, at: now)
        return rateControl.isInitialized
    }
}
