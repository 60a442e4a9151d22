#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// CLOCK_MONOTONIC in µs, for the per-frame stats. A plain syscall-free vDSO read: cheap enough to take four times
/// per frame.
@inline(__always)
func monotonicMicroseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1_000_000 + Double(ts.tv_nsec) / 1_000
}
