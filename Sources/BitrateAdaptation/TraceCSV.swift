/// Bandwidth traces as CSV: one `time_s,target_kbps` row per change.
///
///     # comment lines and blank lines are skipped
///     time_s,target_kbps        ← optional header (the first row, when its fields are not numbers)
///     0,1800
///     0.5,1650.5
///
/// Times are seconds, starting at 0 and strictly increasing; targets are kb/s (1000 bit/s), decimals allowed. Each
/// target holds until the next row; the last holds for as long as the gap before it (1 s when there is one row), so a
/// trace sampled every 0.5 s ends 0.5 s after its last row. Cellular traces (Mahimahi, NYU/Ghent LTE logs) convert to
/// this with one line of awk.
public enum TraceCSV {
    /// A trace this size is already ~50,000 rows; more is not a trace but an attack or a mistake.
    public static let maximumBytes = 4 << 20
    public static let maximumRows = 100_000

    /// Parses `text` into a scenario named `name`.
    /// - Throws: `.emptyTrace`, `.wrongFieldCount`, `.invalidNumber`, `.timeNotIncreasing`, `.outOfRange`,
    ///   `.limitExceeded` — each with the 1-based line.
    public static func parse(_ text: String, name: String = "trace") throws(AdaptationError) -> Scenario {
        guard text.utf8.count <= maximumBytes else {
            throw .trace(.limitExceeded, "trace is \(text.utf8.count) bytes, more than \(maximumBytes)", line: nil)
        }
        var changes: [Scenario.Change] = []
        var sawRow = false
        var lineNumber = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }
            guard fields.count == 2 else {
                throw .trace(.wrongFieldCount, "expected time_s,target_kbps, found \(fields.count) field(s)", line: lineNumber)
            }
            defer { sawRow = true }
            // A header is allowed only as the first row, and only when neither field is a number.
            if !sawRow, number(fields[0]) == nil, number(fields[1]) == nil { continue }
            guard let time = number(fields[0]) else {
                throw .trace(.invalidNumber, "time \"\(fields[0])\" is not a number", line: lineNumber)
            }
            guard let kbps = number(fields[1]) else {
                throw .trace(.invalidNumber, "target \"\(fields[1])\" is not a number", line: lineNumber)
            }
            if let last = changes.last {
                guard time > last.time else {
                    throw .trace(.timeNotIncreasing, "time \(time) s is not after \(last.time) s", line: lineNumber)
                }
            } else if time != 0 {
                throw .trace(.timeNotIncreasing, "the first row must be at time 0, not \(time) s", line: lineNumber)
            }
            guard time <= Scenario.maximumDuration else {
                throw .trace(.outOfRange, "time \(time) s exceeds \(Scenario.maximumDuration) s", line: lineNumber)
            }
            let bitsPerSecond = kbps * 1000
            guard bitsPerSecond >= Double(Scenario.bitRateRange.lowerBound),
                bitsPerSecond <= Double(Scenario.bitRateRange.upperBound)
            else {
                throw .trace(
                    .outOfRange, "target \(kbps) kb/s is outside \(Scenario.bitRateRange.lowerBound / 1000)…"
                        + "\(Scenario.bitRateRange.upperBound / 1000) kb/s", line: lineNumber)
            }
            guard changes.count < maximumRows else {
                throw .trace(.limitExceeded, "more than \(maximumRows) rows", line: lineNumber)
            }
            changes.append(Scenario.Change(time: time, bitRate: Int(bitsPerSecond.rounded())))
        }
        guard let last = changes.last else { throw .trace(.emptyTrace, "the trace has no rows", line: nil) }
        let lastGap = changes.count > 1 ? last.time - changes[changes.count - 2].time : 1
        let duration = min(last.time + lastGap, Scenario.maximumDuration)
        guard duration > last.time else {
            throw .trace(.outOfRange, "the last row at \(last.time) s leaves no time to play it", line: lineNumber)
        }
        return try Scenario(name: name, changes: changes, duration: duration)
    }

    /// Serialises a scenario as a trace (with header) that `parse` reads back to the same changes.
    public static func format(_ scenario: Scenario) -> String {
        var text = "time_s,target_kbps\n"
        for change in scenario.changes {
            text += "\(change.time),\(Double(change.bitRate) / 1000)\n"
        }
        return text
    }

    /// A finite decimal ("1", "-2.5", "1e3"); nil for anything else, including Swift's "nan", "inf" and hex floats.
    static func number(_ field: Substring) -> Double? {
        guard !field.isEmpty, field.utf8.allSatisfy({ Self.decimalCharacters.contains($0) }),
            let value = Double(field), value.isFinite
        else { return nil }
        return value
    }

    private static let decimalCharacters = Set("0123456789.-+eE".utf8)
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" || first == "\r" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" || last == "\r" { result = result.dropLast() }
        return result
    }
}
