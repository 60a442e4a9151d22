/// The last `capacity` durations of something that happens once a frame — a stage of the encode loop, a frame's wait
/// in a pacer queue — for percentiles over a recent window without keeping the whole run. A ring allocated once:
/// `record` never allocates, so it can sit on a per-packet path; `summary` sorts a copy (call it once a second, not
/// once a frame).
public struct RecentDurations: Sendable, Equatable {
    /// Percentiles of the window, nearest rank (the p-th percentile of n sorted samples is the ⌈p·n⌉-th: always a
    /// sample that was recorded, never an interpolation).
    public struct Summary: Sendable, Equatable {
        /// Samples in the window (at most `capacity`).
        public var count: Int
        public var median: Duration
        public var p90: Duration
        public var max: Duration

        public init(count: Int, median: Duration, p90: Duration, max: Duration) {
            self.count = count
            self.median = median
            self.p90 = p90
            self.max = max
        }
    }

    public let capacity: Int
    private var samples: [Duration]
    private var next = 0
    /// Every sample ever recorded, the ones the window has forgotten included.
    public private(set) var recorded = 0

    /// A window of the last `capacity` samples (at least 1; 64 is about two seconds at 30 fps).
    public init(capacity: Int = 64) {
        self.capacity = Swift.max(1, capacity)
        samples = []
        samples.reserveCapacity(self.capacity)
    }

    public mutating func record(_ duration: Duration) {
        if samples.count < capacity {
            samples.append(duration)
        } else {
            samples[next] = duration
        }
        next = (next + 1) % capacity
        recorded += 1
    }

    /// The window's percentiles; nil before the first sample.
    public var summary: Summary? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func rank(_ p: Double) -> Duration {
            // ⌈p·n⌉ − 1, within 0 ..< n.
            let index = Int((p * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.min(sorted.count - 1, Swift.max(0, index))]
        }
        return Summary(count: sorted.count, median: rank(0.5), p90: rank(0.9), max: sorted[sorted.count - 1])
    }
}
