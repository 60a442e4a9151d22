/// When the next RTCP report goes out: RFC 3550 §6.2/§6.3.1 (A.7) as libwebrtc applies them to video.
///
/// A session of two does not need the bandwidth-share computation of §6.3.1 (one sender, one receiver, 5 % of a
/// video stream's rate is far more than a report a second needs), so the nominal interval is configured (libwebrtc:
/// 1 s for video). What stays from the RFC is the randomization: each actual interval is drawn uniformly from
/// [0.5, 1.5] × nominal (§6.3.1 step 5; A.7 `rtcp_interval`), so reports of many senders started together do not
/// stay in step, and the mean is the nominal interval. The first report goes out half a nominal interval after
/// media starts (§6.2: "the first RTCP packet … after half the minimum interval"; libwebrtc's first report
/// likewise). The §6.3.1 division by e − 3/2 compensates for timer reconsideration, which a fixed-interval
/// two-party session does not do, so it is left out, as libwebrtc leaves it out.
///
/// Pure: time comes in as `now`, randomness from the injected generator (seeded in tests).
package struct RTCPReportSchedule: Sendable {
    /// The smallest and largest factor applied to the nominal interval (RFC 3550 §6.3.1).
    package static let randomizationRange: ClosedRange<Double> = 0.5 ... 1.5

    package let nominalInterval: Duration
    package private(set) var nextReportTime: RTPInstant?
    private var random: any RandomNumberGenerator & Sendable

    package init(nominalInterval: Duration, random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.nominalInterval = nominalInterval
        self.random = random
    }

    /// Media is flowing: the first report goes out half a nominal interval from `now`. Later calls change nothing.
    package mutating func start(now: RTPInstant) {
        if nextReportTime == nil { nextReportTime = now + nominalInterval / 2 }
    }

    /// True when a report is due at `now`; then the next one is scheduled one randomized interval later.
    /// A wall clock that stepped back by more than the longest interval would postpone reports by the size of the
    /// step, so that counts as due too (and reschedules from the new time line).
    package mutating func takeIfDue(now: RTPInstant) -> Bool {
        guard let due = nextReportTime else { return false }
        guard now >= due || due - now > Self.interval(nominal: nominalInterval, factor: Self.randomizationRange.upperBound) else {
            return false
        }
        nextReportTime = now + nextInterval()
        return true
    }

    /// One randomized interval: nominal × U[0.5, 1.5].
    package mutating func nextInterval() -> Duration {
        Self.interval(nominal: nominalInterval, factor: Self.drawFactor(using: &random))
    }

    /// `nominal` × `factor`, to the nanosecond.
    package static func interval(nominal: Duration, factor: Double) -> Duration {
        .nanoseconds(Int64((Double(nominal.nanoseconds) * factor).rounded()))
    }

    private static func drawFactor(using random: inout some RandomNumberGenerator) -> Double {
        Double.random(in: randomizationRange, using: &random)
    }
}
