/// What the encoder is asked to do over time: a piecewise-constant target bitrate.
///
/// `changes[0]` is at time 0; each target holds until the next change, the last one until `duration`. Times are
/// seconds of the simulated (or real) clock the harness stamps frames with.
public struct Scenario: Sendable, Hashable {
    public struct Change: Sendable, Hashable {
        /// Seconds from the start.
        public var time: Double
        /// Target, bits per second.
        public var bitRate: Int

        public init(time: Double, bitRate: Int) {
            self.time = time
            self.bitRate = bitRate
        }
    }

    public let name: String
    public let changes: [Change]
    public let duration: Double

    /// Targets a scenario may ask for. Below 10 kb/s no frame fits a 1 s window; above 100 Mb/s is beyond any level
    /// this project opens encoders at (H.264 level 5.1 High: 300 Mb/s max, but x264 realtime here tops out far lower).
    public static let bitRateRange = 10_000...100_000_000
    /// One hour: longer runs are better split, and a bound keeps a hostile trace from asking for days of frames.
    public static let maximumDuration = 3600.0

    /// - Throws: `.invalidArgument` when there are no changes, the first is not at 0, times do not increase strictly
    ///   or `duration` does not lie after the last change; `.outOfRange` for a bitrate outside `bitRateRange` or a
    ///   duration above `maximumDuration`.
    public init(name: String, changes: [Change], duration: Double) throws(AdaptationError) {
        guard let first = changes.first, first.time == 0 else {
            throw .make(.invalidArgument, "scenario \(name): the first target must be at time 0")
        }
        guard duration.isFinite, duration > (changes.last?.time ?? 0) else {
            throw .make(.invalidArgument, "scenario \(name): duration \(duration) s must lie after the last change")
        }
        guard duration <= Self.maximumDuration else {
            throw AdaptationError(code: .outOfRange, reason: "scenario \(name): \(duration) s exceeds \(Self.maximumDuration) s")
        }
        for (previous, next) in zip(changes, changes.dropFirst()) where !(next.time > previous.time) {
            throw .make(.invalidArgument, "scenario \(name): change times must increase (\(previous.time) then \(next.time))")
        }
        for change in changes where !Self.bitRateRange.contains(change.bitRate) {
            throw AdaptationError(
                code: .outOfRange,
                reason: "scenario \(name): target \(change.bitRate) b/s at \(change.time) s is outside \(Self.bitRateRange)")
        }
        self.name = name
        self.changes = changes
        self.duration = duration
    }

    /// Index into `changes` of the target in force at `time` (the last change at or before it; 0 before the start).
    public func changeIndex(at time: Double) -> Int {
        // Binary search: traces can have thousands of rows and this runs for every frame.
        var low = 0, high = changes.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if changes[middle].time <= time + Self.timeSlack { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The target in force at `time`, bits per second.
    public func target(at time: Double) -> Int { changes[changeIndex(at: time)].bitRate }

    /// End of the segment that starts at `changes[index]`.
    public func segmentEnd(_ index: Int) -> Double {
        index + 1 < changes.count ? changes[index + 1].time : duration
    }

    /// Frame times are `index / fps`, computed in floating point; a frame meant to land exactly on a change must not
    /// miss it by a rounding error (far below any frame interval).
    static let timeSlack = 1e-9
}

// MARK: Built-in scenarios

extension Scenario {
    /// 2 Mb/s → 500 kb/s → 4 Mb/s, `hold` seconds each (the step).
    public static func step(
        _ rates: [Int] = [2_000_000, 500_000, 4_000_000], hold: Double = 4
    ) throws(AdaptationError) -> Scenario {
        let changes = rates.enumerated().map { Change(time: Double($0.offset) * hold, bitRate: $0.element) }
        return try Scenario(name: "step", changes: changes, duration: Double(rates.count) * hold)
    }

    /// `from` for `lead` seconds, then a linear ramp to `to` over `over` seconds in steps of `stepSeconds`, then `to`
    /// for `tail` seconds. (The encoder gets discrete updates anyway; a step every 0.5 s is what a congestion
    /// controller's probing looks like.)
    public static func ramp(
        from: Int = 500_000, to: Int = 4_000_000, lead: Double = 2, over: Double = 8, tail: Double = 2,
        stepSeconds: Double = 0.5
    ) throws(AdaptationError) -> Scenario {
        guard stepSeconds > 0, over >= stepSeconds, lead >= 0, tail > 0 else {
            throw .make(.invalidArgument, "ramp: lead ≥ 0, tail > 0 and over ≥ stepSeconds > 0 are required")
        }
        let steps = Int((over / stepSeconds).rounded(.down))
        var changes = lead > 0 ? [Change(time: 0, bitRate: from)] : []
        for index in 1...steps {
            let fraction = Double(index) / Double(steps)
            let rate = Int((Double(from) + (Double(to) - Double(from)) * fraction).rounded())
            changes.append(Change(time: lead + Double(index - 1) * stepSeconds, bitRate: rate))
        }
        return try Scenario(name: "ramp", changes: changes, duration: lead + over + tail)
    }

    /// Alternates `high` and `low` every `halfPeriod` seconds, starting high, for `cycles` periods.
    public static func squareWave(
        high: Int = 2_000_000, low: Int = 500_000, halfPeriod: Double = 2, cycles: Int = 4
    ) throws(AdaptationError) -> Scenario {
        guard cycles > 0, halfPeriod > 0 else { throw .make(.invalidArgument, "square: cycles and halfPeriod must be > 0") }
        let changes = (0..<(2 * cycles)).map { Change(time: Double($0) * halfPeriod, bitRate: $0 % 2 == 0 ? high : low) }
        return try Scenario(name: "square", changes: changes, duration: Double(2 * cycles) * halfPeriod)
    }

    /// The built-in scenario with this name: `step`, `ramp` or `square`.
    public static func named(_ name: String) throws(AdaptationError) -> Scenario {
        switch name {
        case "step": return try step()
        case "ramp": return try ramp()
        case "square": return try squareWave()
        default: throw .make(.invalidArgument, "unknown scenario \(name) (step, ramp, square, or trace:FILE)")
        }
    }
}
