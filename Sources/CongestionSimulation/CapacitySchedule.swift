/// A piecewise-constant link capacity (RFC 8867 §5's schedules: "1.0 × ref at 0 s, 2.5 × at 40 s, …"): each step
/// holds from its start until the next one. Times are integer nanoseconds from the start of the run.
public struct CapacitySchedule: Sendable, Hashable {
    public struct Step: Sendable, Hashable {
        public var start: Int64
        public var bitsPerSecond: Double

        public init(start: Int64, bitsPerSecond: Double) {
            self.start = start
            self.bitsPerSecond = bitsPerSecond
        }
    }

    public let steps: [Step]

    /// - Throws: `.invalidArgument` for no steps, a first step after 0, starts out of order, or a negative or
    ///   non-finite rate.
    public init(_ steps: [Step]) throws(SimulationError) {
        guard let first = steps.first, first.start == 0 else {
            throw .make(.invalidArgument, "a capacity schedule must start at 0 s")
        }
        for (previous, next) in zip(steps, steps.dropFirst()) where next.start <= previous.start {
            throw .make(.invalidArgument, "capacity steps out of order at \(Double(next.start) / 1e9) s")
        }
        if let bad = steps.first(where: { !($0.bitsPerSecond >= 0 && $0.bitsPerSecond.isFinite) }) {
            throw .make(.invalidArgument, "a capacity of \(bad.bitsPerSecond) b/s at \(Double(bad.start) / 1e9) s")
        }
        self.steps = steps
    }

    /// A constant capacity.
    public static func constant(_ bitsPerSecond: Double) throws(SimulationError) -> CapacitySchedule {
        try CapacitySchedule([Step(start: 0, bitsPerSecond: bitsPerSecond)])
    }

    /// Steps of `reference × factor` at the given seconds (RFC 8867 writes its schedules as ratios of a reference).
    public static func ratios(reference: Double, _ points: [(seconds: Double, factor: Double)]) throws(SimulationError) -> CapacitySchedule {
        try CapacitySchedule(points.map { Step(start: Int64(($0.seconds * 1e9).rounded()), bitsPerSecond: reference * $0.factor) })
    }

    private func index(at time: Int64) -> Int {
        // Few steps (≤ 6 in RFC 8867): a linear scan from the end is cheaper than a search.
        var i = steps.count - 1
        while i > 0 && steps[i].start > time { i -= 1 }
        return i
    }

    public func rate(at time: Int64) -> Double { steps[index(at: time)].bitsPerSecond }

    /// The start of the step after the one in force at `time` (nil: this one lasts forever).
    public func nextChange(after time: Int64) -> Int64? {
        let i = index(at: time)
        return i + 1 < steps.count ? steps[i + 1].start : nil
    }

    /// When `bytes` finish serialising if they start at `start` (nil: the capacity is 0 from some point on and they
    /// never do). Rounded up to the nanosecond, so a packet never leaves before its last bit.
    public func finish(bytes: Int, startingAt start: Int64) -> Int64? {
        var bits = Double(bytes * 8)
        var time = start
        while true {
            let rate = rate(at: time)
            let change = nextChange(after: time)
            if rate > 0 {
                let need = bits / rate * 1e9
                if let change, Double(time) + need > Double(change) {
                    bits -= rate * Double(change - time) / 1e9
                    time = change
                    continue
                }
                return time + Int64(need.rounded(.up))
            }
            guard let change else { return nil }
            time = change
        }
    }
}
