import MediaCore

/// Throughput from bytes over time, as a Bayesian estimate: libwebrtc's `BitrateEstimator`
/// (modules/congestion_controller/goog_cc/bitrate_estimator.cc). Bytes are summed over fixed windows — 500 ms for
/// the first sample (`kInitialRateWindowMs`), 150 ms after (`kRateWindowMs`) — and each window's rate is blended
/// into the estimate with a weight that shrinks the further the sample lies from it (uncertainty scale 10, the
/// estimate's variance growing by 5 per sample so it can follow a real change; 50 at start).
public struct BitrateEstimator: Sendable {
    public static let initialWindow: Duration = .milliseconds(500)
    public static let window: Duration = .milliseconds(150)
    /// libwebrtc's `uncertainty_scale_`.
    public static let uncertaintyScale = 10.0
    /// libwebrtc's initial `bitrate_estimate_var_`.
    public static let initialVariance = 50.0
    /// Variance added before each sample (`pred_bitrate_estimate_var = bitrate_estimate_var_ + 5.f`).
    public static let variancePerSample = 5.0
    /// Added by `expectFastRateChange` (leaving ALR).
    public static let fastRateChangeVariance = 200.0

    private var sum = 0
    private var currentWindowMs: Int64 = 0
    private var previousTimeMs: Int64?
    /// kb/s; nil before the first full window.
    private var estimateKbps: Double?
    private var variance = BitrateEstimator.initialVariance

    public init() {}

    /// The estimate in bits/s (nil until the first window is full).
    public var bitsPerSecond: Double? { estimateKbps.map { $0 * 1000 } }

    /// `bytes` were acknowledged as received at `now` (the receiver's arrival time: only differences matter).
    public mutating func update(at now: Instant, bytes: Int) {
        let windowMs = (estimateKbps == nil ? Self.initialWindow : Self.window).nanoseconds / 1_000_000
        guard let sampleKbps = updateWindow(nowMs: now.nanoseconds / 1_000_000, bytes: bytes, windowMs: windowMs) else { return }
        // A zero estimate (a window of zero-byte packets) would divide by zero below; libwebrtc would turn NaN here.
        guard let estimate = estimateKbps, estimate > 0 else {
            estimateKbps = sampleKbps
            return
        }
        // The further the sample from the estimate, the less it weighs.
        let uncertainty = Self.uncertaintyScale * abs(estimate - sampleKbps) / estimate
        let sampleVariance = uncertainty * uncertainty
        let predictedVariance = variance + Self.variancePerSample
        estimateKbps = (sampleVariance * estimate + predictedVariance * sampleKbps) / (sampleVariance + predictedVariance)
        variance = sampleVariance * predictedVariance / (sampleVariance + predictedVariance)
    }

    /// Lets the next few samples move the estimate quickly (libwebrtc calls it when the sender leaves ALR).
    public mutating func expectFastRateChange() { variance += Self.fastRateChangeVariance }

    private mutating func updateWindow(nowMs: Int64, bytes: Int, windowMs: Int64) -> Double? {
        if let previous = previousTimeMs, nowMs < previous {
            // Time went backwards: start over.
            previousTimeMs = nil
            sum = 0
            currentWindowMs = 0
        }
        if let previous = previousTimeMs {
            currentWindowMs += nowMs - previous
            // Nothing received for more than a window: the old bytes do not belong to this one.
            if nowMs - previous > windowMs {
                sum = 0
                currentWindowMs %= windowMs
            }
        }
        previousTimeMs = nowMs
        var sample: Double?
        if currentWindowMs >= windowMs {
            sample = 8 * Double(sum) / Double(windowMs)
            currentWindowMs -= windowMs
            sum = 0
        }
        sum += bytes
        return sample
    }
}
