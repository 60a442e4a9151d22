/// Bits per second over the last second, in ten 100 ms buckets (pure; time passed in).
struct RateMeter: Sendable {
    private var buckets = [Int](repeating: 0, count: 10)
    private var currentBucket: Int64 = 0

    mutating func add(_ bytes: Int, now: RTPInstant) {
        advance(to: now)
        buckets[Int(currentBucket % 10)] += bytes
    }

    mutating func bitsPerSecond(now: RTPInstant) -> Double {
        advance(to: now)
        return Double(buckets.reduce(0, +) * 8)
    }

    private mutating func advance(to now: RTPInstant) {
        let bucket = now.nanosecondsSinceEpoch / 100_000_000
        guard bucket > currentBucket else { return }
        let steps = min(10, bucket - currentBucket)
        for k in 1 ... steps { buckets[Int((currentBucket + k) % 10)] = 0 }
        currentBucket = bucket
    }
}
