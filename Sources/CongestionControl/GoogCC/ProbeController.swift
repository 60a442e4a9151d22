import MediaCore

/// When to probe: libwebrtc's `ProbeController` (modules/congestion_controller/goog_cc/probe_controller.cc), the
/// exponential start-up part. At start two clusters at 3× and 6× the start rate (`first_exponential_probe_scale`,
/// `second_exponential_probe_scale`), capped at the maximum; while the estimate keeps coming back above 70 % of the
/// last probe (`kRepeatedProbeMinPercentage`), a further cluster at 2× it (`further_exponential_probe_scale`);
/// probing ends at the maximum or when no result came for 1 s (`kMaxWaitingTimeForProbingResult`). Periodic ALR
/// probing (opt-in, as in libwebrtc, which enables it for screen share): while the sender is application-limited,
/// a cluster at 2× the estimate (`alr_probe_scale`) every 5 s (`kAlrPeriodicProbingInterval`). Probes on a large
/// drop and network-state probes are not here.
public struct ProbeController: Sendable {
    public static let firstExponentialProbeScale = 3.0
    public static let secondExponentialProbeScale = 6.0
    public static let furtherExponentialProbeScale = 2.0
    public static let repeatedProbeMinPercentage = 0.7
    public static let maxWaitingTimeForProbingResult: Duration = .seconds(1)
    public static let alrProbeScale = 2.0
    public static let alrPeriodicProbingInterval: Duration = .seconds(5)

    public enum State: Sendable, Hashable { case initial, waitingForProbingResult, probingComplete }

    public private(set) var state: State = .initial
    public private(set) var maxBitrate: Double
    private var startBitrate: Double
    private var estimatedBitrate = 0.0
    private var minBitrateToProbeFurther = Double.infinity
    private var timeLastProbingInitiated: Instant?
    private var nextClusterID = 1
    /// Probe every 5 s while application-limited.
    public var periodicALRProbing: Bool
    /// When the current application-limited region began (nil: not in one).
    public var alrStartTime: Instant?

    public init(startBitrate: Double, maxBitrate: Double, periodicALRProbing: Bool = false) {
        self.startBitrate = startBitrate
        self.maxBitrate = maxBitrate
        self.periodicALRProbing = periodicALRProbing
    }

    public mutating func setMaxBitrate(_ bitrate: Double) { maxBitrate = bitrate }

    /// The network became usable: the initial exponential probes (once).
    public mutating func onNetworkAvailable(at now: Instant) -> [ProbeClusterConfig] {
        guard state == .initial, startBitrate > 0 else { return [] }
        var rates = [Self.firstExponentialProbeScale * startBitrate]
        if Self.secondExponentialProbeScale > 0 { rates.append(Self.secondExponentialProbeScale * startBitrate) }
        return initiateProbing(rates, probeFurther: true, at: now)
    }

    /// The estimate changed; a further probe when the last one came back high enough.
    public mutating func setEstimatedBitrate(_ bitrate: Double, at now: Instant) -> [ProbeClusterConfig] {
        estimatedBitrate = bitrate
        guard state == .waitingForProbingResult, bitrate > minBitrateToProbeFurther else { return [] }
        return initiateProbing([Self.furtherExponentialProbeScale * bitrate], probeFurther: true, at: now)
    }

    /// The periodic check: stop waiting for a result after 1 s; in ALR with periodic probing, the next ALR probe.
    @discardableResult
    public mutating func process(at now: Instant) -> [ProbeClusterConfig] {
        if state == .waitingForProbingResult, let last = timeLastProbingInitiated,
           now - last > Self.maxWaitingTimeForProbingResult {
            state = .probingComplete
        }
        guard periodicALRProbing, state == .probingComplete, let alrStart = alrStartTime, estimatedBitrate > 0 else {
            return []
        }
        let next = max(alrStart, timeLastProbingInitiated ?? alrStart) + Self.alrPeriodicProbingInterval
        guard now >= next else { return [] }
        return initiateProbing([Self.alrProbeScale * estimatedBitrate], probeFurther: true, at: now)
    }

    private mutating func initiateProbing(_ rates: [Double], probeFurther: Bool, at now: Instant) -> [ProbeClusterConfig] {
        var clusters: [ProbeClusterConfig] = []
        var reachedMax = false
        for rate in rates {
            var bitrate = rate
            if bitrate >= maxBitrate {
                bitrate = maxBitrate
                reachedMax = true
            }
            clusters.append(ProbeClusterConfig(id: nextClusterID, at: now, bitrate: UInt64(bitrate)))
            nextClusterID += 1
            if reachedMax { break }
        }
        timeLastProbingInitiated = now
        if probeFurther && !reachedMax, let last = clusters.last {
            state = .waitingForProbingResult
            minBitrateToProbeFurther = Double(last.bitrate) * Self.repeatedProbeMinPercentage
        } else {
            state = .probingComplete
            minBitrateToProbeFurther = .infinity
        }
        return clusters
    }
}
