import MediaCore

/// CLOCK_MONOTONIC in µs (MediaCore's `MonotonicMediaClock`), for the per-frame stats. A syscall-free vDSO read:
/// cheap enough to take four times per frame.
@inline(__always)
func monotonicMicroseconds() -> Double {
    Double(MonotonicMediaClock().now.nanoseconds) / 1_000
}
