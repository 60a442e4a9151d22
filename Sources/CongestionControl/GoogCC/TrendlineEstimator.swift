/// The delay-gradient filter of libwebrtc's goog_cc (modules/congestion_controller/goog_cc/trendline_estimator.cc):
/// the accumulated one-way delay variation, smoothed exponentially (`kDefaultTrendlineSmoothingCoeff` 0.9), over
/// the last 20 groups (`kDefaultTrendlineWindowSize`), fitted by least squares against arrival time. The slope is
/// the rate at which the queue grows (≈ (send rate − capacity)/capacity); scaled by `min(n, 60)`
/// (`kMinNumDeltas`) × 4 (`kDefaultTrendlineThresholdGain`) it is the modified trend the `OveruseDetector` compares
/// with its threshold. The draft's Kalman filter is not what Chrome runs; this is.
public struct TrendlineEstimator: Sendable {
    public static let defaultWindowSize = 20
    public static let defaultSmoothingCoefficient = 0.9
    public static let defaultThresholdGain = 4.0
    /// libwebrtc's `kMinNumDeltas`.
    public static let minNumDeltas = 60
    /// libwebrtc's `kDeltaCounterMax`.
    public static let deltaCounterMax = 1000

    struct PacketTiming: Sendable {
        var arrivalTime: Double
        var smoothedDelay: Double
    }

    public let windowSize: Int
    public let smoothingCoefficient: Double
    public let thresholdGain: Double
    public private(set) var detector = OveruseDetector()
    /// The last modified trend (`min(n, 60)` × slope × gain), ms; nil before there were two deltas.
    public private(set) var modifiedTrend: Double?
    private var numberOfDeltas = 0
    private var firstArrival: Double?
    private var accumulatedDelay = 0.0
    private var smoothedDelay = 0.0
    private var history: [PacketTiming] = []
    private var previousTrend = 0.0

    public init(windowSize: Int = TrendlineEstimator.defaultWindowSize,
                smoothingCoefficient: Double = TrendlineEstimator.defaultSmoothingCoefficient,
                thresholdGain: Double = TrendlineEstimator.defaultThresholdGain) {
        self.windowSize = max(2, windowSize)
        self.smoothingCoefficient = smoothingCoefficient
        self.thresholdGain = thresholdGain
        history.reserveCapacity(self.windowSize + 1)
    }

    public var state: BandwidthUsage { detector.state }

    /// One group's deltas (ms) and its arrival time (ms on the receiver's clock; only differences matter).
    @discardableResult
    public mutating func update(arrivalDelta: Double, sendDelta: Double, arrivalTime: Double) -> BandwidthUsage {
        let delta = arrivalDelta - sendDelta
        numberOfDeltas = min(numberOfDeltas + 1, Self.deltaCounterMax)
        let first = firstArrival ?? arrivalTime
        firstArrival = first

        accumulatedDelay += delta
        smoothedDelay = smoothingCoefficient * smoothedDelay + (1 - smoothingCoefficient) * accumulatedDelay
        history.append(PacketTiming(arrivalTime: arrivalTime - first, smoothedDelay: smoothedDelay))
        if history.count > windowSize { history.removeFirst() }

        var trend = previousTrend
        if history.count == windowSize, let slope = Self.linearFitSlope(history) { trend = slope }
        return detect(trend: trend, sendDelta: sendDelta, now: arrivalTime)
    }

    private mutating func detect(trend: Double, sendDelta: Double, now: Double) -> BandwidthUsage {
        guard numberOfDeltas >= 2 else {
            detector.resetToNormal()
            return .normal
        }
        let modified = Double(min(numberOfDeltas, Self.minNumDeltas)) * trend * thresholdGain
        modifiedTrend = modified
        previousTrend = trend
        return detector.detect(modifiedTrend: modified, trend: trend, sendDelta: sendDelta, now: now)
    }

    /// Least-squares slope of smoothed delay against arrival time; nil when every arrival is the same.
    static func linearFitSlope(_ points: [PacketTiming]) -> Double? {
        let count = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.arrivalTime } / count
        let meanY = points.reduce(0) { $0 + $1.smoothedDelay } / count
        var numerator = 0.0
        var denominator = 0.0
        for point in points {
            let dx = point.arrivalTime - meanX
            numerator += dx * (point.smoothedDelay - meanY)
            denominator += dx * dx
        }
        return denominator == 0 ? nil : numerator / denominator
    }
}
