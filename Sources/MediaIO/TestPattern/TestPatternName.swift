/// How an input names the built-in test pattern: `testsrc`, then `:`-separated options in any order — `noise`
/// (random noise instead of the bars) and `barcode` (the wall clock as a `ClockBarcode` along the top). An empty
/// input is the plain pattern.
///
///     testsrc            bars, ramp, moving box, frame number and time
///     testsrc:noise      random noise (the bitrate cap's worst case), with the same digits
///     testsrc:barcode    bars with the clock barcode (glass-to-glass latency)
///     testsrc:noise:barcode
public struct TestPatternName: Sendable, Hashable {
    public init(content: TestPatternSource.Content, barcode: Bool) {
        self.content = content
        self.barcode = barcode
    }

    public var content: TestPatternSource.Content
    public var barcode: Bool

    public static let options = ["noise", "barcode"]

    /// nil when `input` does not name the test pattern (a file, `-`).
    /// - Throws: `.invalidArgument` for a `testsrc:` option that does not exist or is repeated.
    public init?(parsing input: String) throws(MediaIOError) {
        content = .bars
        barcode = false
        if input.isEmpty { return }
        var parts = input.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.removeFirst() == "testsrc" else { return nil }
        var seen: Set<Substring> = []
        for part in parts {
            guard seen.insert(part).inserted else {
                throw .make(.invalidArgument, "test pattern '\(input)': '\(part)' is given twice")
            }
            switch part {
            case "noise": content = .noise
            case "barcode": barcode = true
            default:
                throw .make(.invalidArgument,
                    "test pattern '\(input)': unknown option '\(part)'; expected testsrc with any of "
                        + Self.options.map { ":\($0)" }.joined(separator: ", ") + " (e.g. testsrc:noise:barcode)")
            }
        }
    }
}
