/// A set of packet numbers given as ranges (`0`, `3`, `10…19`), for the `dropPackets` filter: held as ranges so
/// that "the first million packets" costs two integers, not a million set entries.
public struct PacketNumbers: Sendable, Equatable {
    /// Bound on the ranges one filter may hold (each is checked for every packet).
    public static let maxRanges = 1024

    public private(set) var ranges: [ClosedRange<Int>]

    public init(_ ranges: [ClosedRange<Int>] = []) { self.ranges = ranges }

    public var isEmpty: Bool { ranges.isEmpty }

    public func contains(_ number: Int) -> Bool { ranges.contains { $0.contains(number) } }

    /// Parses `N`, `N-M` and comma-separated lists of them (`0-4,7,20-29`); nil for anything else, a range that
    /// runs backwards, or more than `maxRanges` parts.
    public init?(parsing text: some StringProtocol) {
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
                .map { Int(String($0.filter { $0 != " " })) }
            guard let first = bounds.first, let low = first, low >= 0 else { return nil }
            let high = bounds.count == 2 ? bounds[1] : low
            guard let high, high >= low else { return nil }
            ranges.append(low ... high)
        }
        guard !ranges.isEmpty, ranges.count <= Self.maxRanges else { return nil }
        self.ranges = ranges
    }
}
