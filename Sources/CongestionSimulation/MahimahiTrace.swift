/// A Mahimahi packet-delivery trace (ravinet/mahimahi, `mm-link(1)`, `link_queue.cc`): one integer a line, the
/// millisecond at which the link can deliver one opportunity of `MahimahiTrace.opportunityBytes`; repeated values
/// are several opportunities in that millisecond. The trace wraps: after its last line it starts again, shifted by
/// the last timestamp (so a file holding only `1` is one opportunity every millisecond, 12 Mb/s).
public struct MahimahiTrace: Sendable, Hashable {
    /// Mahimahi's `PACKET_SIZE`: each opportunity may deliver 1504 bytes (a 1500-byte IP packet plus its 4-byte
    /// tunnel header). Byte-accounted: small packets share one, a large one spans several.
    public static let opportunityBytes = 1504
    /// Largest trace read (hostile input bound): 10 M lines is an hour of a 40 Mb/s link.
    public static let maxOpportunities = 10_000_000
    /// The longest trace accepted: one year.
    public static let maxMilliseconds: Int64 = 365 * 86_400_000

    /// Delivery opportunities in milliseconds, non-decreasing.
    public let milliseconds: [Int64]

    public init(milliseconds: [Int64]) throws(SimulationError) {
        guard let last = milliseconds.last else { throw .make(.invalidTrace, "the trace holds no delivery opportunity") }
        guard last > 0 else { throw .make(.invalidTrace, "the trace ends at 0 ms, so it cannot wrap") }
        // Times become nanoseconds in Int64 (±292 years); a trace longer than a year is a broken file.
        guard last <= Self.maxMilliseconds else {
            throw .make(.invalidTrace, "the trace ends at \(last) ms, more than a year (\(Self.maxMilliseconds) ms)")
        }
        guard milliseconds.count <= Self.maxOpportunities else {
            throw .make(.invalidTrace, "more than \(Self.maxOpportunities) delivery opportunities")
        }
        for (line, (a, b)) in zip(milliseconds, milliseconds.dropFirst()).enumerated() where b < a || a < 0 {
            throw .make(.invalidTrace, "line \(line + 2): \(b) ms comes before \(a) ms")
        }
        self.milliseconds = milliseconds
    }

    /// Parses the text of a trace file; blank lines are skipped.
    public init(parsing text: String) throws(SimulationError) {
        var values: [Int64] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.filter { $0 != "\r" && $0 != " " && $0 != "\t" }
            if trimmed.isEmpty { continue }
            guard let value = Int64(trimmed), value >= 0 else {
                throw .make(.invalidTrace, "line \(number + 1): \"\(line.prefix(40))\" is not a millisecond count")
            }
            values.append(value)
            if values.count > Self.maxOpportunities {
                throw .make(.invalidTrace, "more than \(Self.maxOpportunities) delivery opportunities")
            }
        }
        try self.init(milliseconds: values)
    }

    /// The wrap period: the last timestamp.
    public var periodMilliseconds: Int64 { milliseconds[milliseconds.count - 1] }

    /// The time of opportunity `index` (counting across wraps), in nanoseconds.
    public func time(ofOpportunity index: Int) -> Int64 {
        let wraps = Int64(index / milliseconds.count)
        return (milliseconds[index % milliseconds.count] + wraps * periodMilliseconds) * 1_000_000
    }

    /// The first opportunity at or after `time` (ns). A trace's entries lie in [0, period], so the opportunity may
    /// still belong to the previous wrap (a trace of `1` delivers at 5 ms as its fifth wrap's entry).
    public func firstOpportunity(atOrAfter time: Int64) -> Int {
        let millisecond = max(0, (time + 999_999) / 1_000_000)
        let wraps = millisecond / periodMilliseconds
        let within = millisecond - wraps * periodMilliseconds
        if wraps > 0 {
            let previous = firstIndex(atLeast: within + periodMilliseconds)
            if previous < milliseconds.count { return Int(wraps - 1) * milliseconds.count + previous }
        }
        return Int(wraps) * milliseconds.count + firstIndex(atLeast: within)
    }

    private func firstIndex(atLeast value: Int64) -> Int {
        var low = 0
        var high = milliseconds.count
        while low < high {
            let mid = (low + high) / 2
            if milliseconds[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The mean rate of the trace, bits/s, at `scale`.
    public func meanBitsPerSecond(scale: Double = 1) -> Double {
        Double(milliseconds.count * Self.opportunityBytes * 8) * scale / (Double(periodMilliseconds) / 1000)
    }
}
