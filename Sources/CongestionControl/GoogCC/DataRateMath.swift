import MediaCore

// Small conversions the GoogCC pieces share. libwebrtc keeps rates in `DataRate` (whole bits/s) and times in
// `Timestamp`/`TimeDelta` (microseconds); here rates are `Double` bits/s rounded where libwebrtc's integer units
// round, and times are `Instant`/`Duration` handed in by the caller.

extension Duration {
    /// The duration in seconds as a `Double` (for rate arithmetic).
    package var gccSeconds: Double { Double(nanoseconds) / 1e9 }
    /// The duration in milliseconds as a `Double` (libwebrtc's estimators work in ms).
    package var gccMilliseconds: Double { Double(nanoseconds) / 1e6 }
}

extension Instant {
    /// Milliseconds since the clock's origin, as libwebrtc's `Timestamp::ms<double>()`.
    package var gccMilliseconds: Double { Double(nanoseconds) / 1e6 }
}
