/// What AIMD believes the link carries: an exponential average (α 0.05) of the acknowledged rate at each overuse,
/// with a normalised variance clamped to 0.4–2.5 (≈ 14–35 kb/s of deviation at 500 kb/s). Near it (within 3 σ)
/// AIMD increases additively; away from it multiplicatively. libwebrtc's `LinkCapacityEstimator`
/// (modules/congestion_controller/goog_cc/link_capacity_estimator.cc).
public struct LinkCapacityEstimator: Sendable {
    /// The smoothing factor of `OnOveruseDetected`.
    public static let alpha = 0.05
    /// The clamp on the normalised deviation (`SafeClamp(deviation_kbps_, 0.4f, 2.5f)`).
    public static let deviationRange = 0.4...2.5

    /// kb/s; nil when there is no estimate (at start, or reset because throughput left the band).
    public private(set) var estimateKbps: Double?
    private var deviationKbps = LinkCapacityEstimator.deviationRange.lowerBound

    public init() {}

    public var hasEstimate: Bool { estimateKbps != nil }
    /// The estimate, bits/s.
    public var estimate: Double? { estimateKbps.map { $0 * 1000 } }

    /// estimate + 3 σ, bits/s (infinite without an estimate).
    public var upperBound: Double {
        guard let estimateKbps else { return .infinity }
        return (estimateKbps + 3 * deviationEstimateKbps(estimateKbps)) * 1000
    }

    /// estimate − 3 σ, bits/s (0 without an estimate).
    public var lowerBound: Double {
        guard let estimateKbps else { return 0 }
        return (estimateKbps - 3 * deviationEstimateKbps(estimateKbps)) * 1000
    }

    public mutating func reset() { estimateKbps = nil }

    /// The delay detector saw overuse while the receiver acknowledged `acknowledgedRate` bits/s.
    public mutating func onOveruseDetected(acknowledgedRate: Double) {
        let sample = acknowledgedRate / 1000
        let estimate = estimateKbps.map { (1 - Self.alpha) * $0 + Self.alpha * sample } ?? sample
        estimateKbps = estimate
        let norm = max(estimate, 1)
        let error = estimate - sample
        deviationKbps = (1 - Self.alpha) * deviationKbps + Self.alpha * error * error / norm
        deviationKbps = min(max(deviationKbps, Self.deviationRange.lowerBound), Self.deviationRange.upperBound)
    }

    private func deviationEstimateKbps(_ estimate: Double) -> Double { (deviationKbps * estimate).squareRoot() }
}
