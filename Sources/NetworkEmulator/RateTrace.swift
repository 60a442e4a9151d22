/// A bandwidth trace: the link rate as a piecewise-constant function of time, read from CSV lines `time_s,kbps`
/// (e.g. `0,2000` then `10,500`: 2 Mb/s for ten seconds, then 500 kb/s). A first line that is not numeric is taken
/// as a header; empty lines and lines starting with `#` are skipped. Before the first point the first rate holds;
/// after the last, the last. A rate of 0 is an outage: packets wait in the queue (and overflow it).
public struct RateTrace: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        /// From the trace's start (the relay's start).
        public var time: Duration
        public var bitsPerSecond: Int

        public init(time: Duration, bitsPerSecond: Int) {
            self.time = time
            self.bitsPerSecond = bitsPerSecond
        }
    }

    /// A trace is a file someone hands us: bound what it can make us hold.
    public static let maxPoints = 1_000_000
    /// 100 Gb/s: anything above is a typo in the units.
    public static let maxKilobitsPerSecond = 100_000_000.0

    public let points: [Point]

    public init(points: [Point]) throws(NetworkEmulatorError) {
        guard !points.isEmpty else { throw .make(.invalidSetting, "a rate trace needs at least one point") }
        guard points.count <= Self.maxPoints else { throw .limitExceeded("more than \(Self.maxPoints) trace points") }
        for (previous, next) in zip(points, points.dropFirst()) where next.time <= previous.time {
            throw .make(.invalidSetting, "trace times must increase")
        }
        self.points = points
    }

    public init(csv text: String) throws(NetworkEmulatorError) {
        var points: [Point] = []
        var seenData = false
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingASCIIWhitespace
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(\.trimmingASCIIWhitespace)
            guard fields.count == 2, let seconds = Double(fields[0]), let kilobits = Double(fields[1]) else {
                if !seenData && points.isEmpty { seenData = true; continue }  // the header
                throw .invalidTrace("expected `time_s,kbps`, got `\(line.prefix(80))`", line: index + 1)
            }
            seenData = true
            guard seconds.isFinite, seconds >= 0, seconds < 1e9 else {
                throw .invalidTrace("time \(fields[0]) is not 0…1e9 s", line: index + 1)
            }
            guard kilobits.isFinite, kilobits >= 0, kilobits <= Self.maxKilobitsPerSecond else {
                throw .invalidTrace("rate \(fields[1]) is not 0…\(Int(Self.maxKilobitsPerSecond)) kb/s", line: index + 1)
            }
            let time = Duration.nanoseconds(Int64((seconds * 1e9).rounded()))
            if let last = points.last, time <= last.time {
                throw .invalidTrace("time \(fields[0]) does not come after \(last.time)", line: index + 1)
            }
            guard points.count < Self.maxPoints else { throw .limitExceeded("more than \(Self.maxPoints) trace points", line: index + 1) }
            points.append(Point(time: time, bitsPerSecond: Int((kilobits * 1000).rounded())))
        }
        try self.init(points: points)
    }

    /// Index of the point in force at `time`.
    private func segment(at time: Duration) -> Int {
        // Binary search for the last point at or before `time`.
        var low = 0, high = points.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if points[middle].time <= time { low = middle } else { high = middle - 1 }
        }
        return low
    }

    public func bitsPerSecond(at time: Duration) -> Int { points[segment(at: time)].bitsPerSecond }

    /// When `bits` started at `start` have all been sent, walking through rate changes; nil if the trace ends in an
    /// outage before they are.
    public func transmissionEnd(start: Duration, bits: Int) -> Duration? {
        var index = segment(at: start)
        var now = start
        var remaining = Double(bits)
        while true {
            let rate = Double(points[index].bitsPerSecond)
            let segmentEnd = index + 1 < points.count ? points[index + 1].time : nil
            if rate > 0 {
                let finish = now + .seconds(remaining / rate)
                guard let end = segmentEnd, finish > end else { return finish }
                remaining -= rate * (end - now).seconds
            }
            guard let next = segmentEnd else { return nil }
            now = next
            index += 1
        }
    }
}

extension Duration {
    /// Seconds as a Double (for rates and reports).
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}

extension Substring {
    fileprivate var trimmingASCIIWhitespace: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }
}
