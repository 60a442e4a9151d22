/// ArgumentParser's usage errors as one line that starts with the option: "--fps 'x': not a whole number; expected
/// 1…240" instead of "The value 'x' is invalid for '--fps <fps>': …", and a list of valid values (one per line
/// when there are six or more, which a one-line report would cut off) joined into that line.
enum UsageMessage {
    static func oneLine(_ fullMessage: String) -> String {
        var lines = fullMessage.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard var first = lines.first, !first.isEmpty else { return "invalid arguments" }
        if first.hasPrefix("Error: ") { first.removeFirst(7) }
        lines.removeFirst()
        // "Please provide one of the following:" is followed by "  - value" lines.
        let listed = lines.prefix { $0.hasPrefix("  - ") }.map { String($0.dropFirst(4)) }
        guard let invalid = invalidValue(first) else { return first }
        let reason: String
        if invalid.rest.hasPrefix(": ") {
            reason = String(invalid.rest.dropFirst(2))
        } else if invalid.rest.hasPrefix(". Please provide one of the following:") {
            reason = "expected one of \(listed.joined(separator: ", "))"
        } else if invalid.rest.hasPrefix(". Please provide one of ") {
            // ". Please provide one of 'a', 'b' or 'c'."
            var values = invalid.rest.dropFirst(". Please provide one of ".count)
            if values.hasSuffix(".") { values.removeLast() }
            reason = "expected one of \(values.replacing("' and '", with: "' or '").replacing("'", with: ""))"
        } else {
            reason = "invalid value"
        }
        return "\(invalid.option) '\(invalid.value)': \(reason)"
    }

    /// The parts of "The value 'V' is invalid for '--option <name>'REST".
    private static func invalidValue(_ line: String) -> (value: Substring, option: Substring, rest: Substring)? {
        let prefix = "The value '"
        let middle = "' is invalid for '"
        guard line.hasPrefix(prefix), let middleRange = line.firstRange(of: middle) else { return nil }
        let value = line[line.index(line.startIndex, offsetBy: prefix.count)..<middleRange.lowerBound]
        let afterMiddle = line[middleRange.upperBound...]
        guard let close = afterMiddle.firstIndex(of: "'") else { return nil }
        let synopsis = afterMiddle[..<close]
        // "--fps <fps>" names the option; a positional argument is only "<file>".
        let option = synopsis.hasPrefix("-") ? synopsis.prefix { $0 != " " } : synopsis
        return (value, option, afterMiddle[afterMiddle.index(after: close)...])
    }
}
