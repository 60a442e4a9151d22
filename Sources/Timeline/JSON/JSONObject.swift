/// Typed access to one JSON object's members, every failure naming the member's path and what was expected.
struct JSONObject {
    let path: JSONPath
    private let members: [(key: String, value: JSONValue)]

    init(_ value: JSONValue, at path: JSONPath) throws(TimelineError) {
        guard case let .object(members) = value else { throw .invalid(path, "expected an object, got \(value.kindName)") }
        self.path = path
        self.members = members
    }

    func refuseUnknownKeys(_ known: [String]) throws(TimelineError) {
        for member in members where !known.contains(member.key) {
            throw .invalid(path.appending(member.key),
                           "unknown key \"\(member.key)\" (expected one of: \(known.joined(separator: ", ")))")
        }
    }

    private func value(_ key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }

    /// The member's value as written, for members that take more than one type; nil when absent.
    func anyValue(_ key: String) -> JSONValue? {
        value(key)
    }

    private func required(_ key: String, _ expected: String) throws(TimelineError) -> JSONValue {
        guard let value = value(key) else { throw .invalid(path.appending(key), "missing: expected \(expected)") }
        return value
    }

    func object(_ key: String) throws(TimelineError) -> JSONObject {
        try JSONObject(required(key, "an object"), at: path.appending(key))
    }

    func optionalObject(_ key: String) throws(TimelineError) -> JSONObject? {
        guard let value = value(key), value != .null else { return nil }
        return try JSONObject(value, at: path.appending(key))
    }

    func array(_ key: String) throws(TimelineError) -> [JSONValue] {
        let value = try required(key, "an array")
        guard case let .array(elements) = value else {
            throw .invalid(path.appending(key), "expected an array, got \(value.kindName)")
        }
        return elements
    }

    func string(_ key: String) throws(TimelineError) -> String {
        guard let text = try optionalString(key) else { throw .invalid(path.appending(key), "missing: expected a string") }
        return text
    }

    func nonEmptyString(_ key: String) throws(TimelineError) -> String {
        let text = try string(key)
        guard !text.isEmpty else { throw .invalid(path.appending(key), "must not be empty") }
        return text
    }

    func optionalString(_ key: String) throws(TimelineError) -> String? {
        guard let value = value(key) else { return nil }
        guard case let .string(text) = value else {
            throw .invalid(path.appending(key), "expected a string, got \(value.kindName)")
        }
        return text
    }

    func optionalBool(_ key: String) throws(TimelineError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case let .bool(flag) = value else {
            throw .invalid(path.appending(key), "expected true or false, got \(value.kindName)")
        }
        return flag
    }

    func integer(_ key: String, in range: ClosedRange<Int>) throws(TimelineError) -> Int {
        guard let number = try optionalInteger(key, in: range) else {
            throw .invalid(path.appending(key), "missing: expected an integer")
        }
        return number
    }

    func optionalInteger(_ key: String, in range: ClosedRange<Int>) throws(TimelineError) -> Int? {
        guard let value = value(key) else { return nil }
        guard case let .number(text) = value, let number = Int(text) else {
            let got = if case let .number(text) = value { text } else { value.kindName }
            throw .invalid(path.appending(key), "expected an integer, got \(got)")
        }
        guard range.contains(number) else {
            throw .invalid(path.appending(key), "\(number) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return number
    }

    func fraction(_ key: String) throws(TimelineError) -> Fraction {
        guard let value = try optionalFraction(key) else {
            throw .invalid(path.appending(key), "missing: expected a number or a \"N/D\" string")
        }
        return value
    }

    /// A number (decimal, exact: 0.1 is 1/10) or a string "N/D" or "N" (30000/1001).
    func optionalFraction(_ key: String) throws(TimelineError) -> Fraction? {
        guard let value = value(key) else { return nil }
        let keyPath = path.appending(key)
        switch value {
        case let .number(text):
            guard let fraction = Self.decimal(text) else {
                throw .invalid(keyPath, "\(text) has more than \(Self.maximumDigits) significant digits, is finer than 1e-\(Self.maximumDigits) or too large")
            }
            return fraction
        case let .string(text):
            guard let fraction = Self.ratio(text) else {
                throw .invalid(keyPath, "\"\(text)\" is not a fraction: expected \"N/D\" with N and D at most "
                               + "\(TimelineLimits.maximumTerm), D > 0")
            }
            return fraction
        default:
            throw .invalid(keyPath, "expected a number or a \"N/D\" string, got \(value.kindName)")
        }
    }

    func optionalColor(_ key: String) throws(TimelineError) -> RGBColor? {
        guard let text = try optionalString(key) else { return nil }
        guard let color = RGBColor(hex: text) else {
            throw .invalid(path.appending(key), "\"\(text)\" is not a colour: expected \"#RRGGBB\"")
        }
        return color
    }

    /// Significant digits a decimal may have (10^9 = `TimelineLimits.maximumTerm`).
    static let maximumDigits = 9

    /// The exact value of a JSON number's text (already checked against RFC 8259's grammar), nil when it has more
    /// significant digits or a larger exponent than the planner's arithmetic is bounded for.
    static func decimal(_ text: String) -> Fraction? {
        var mantissa = Substring(text), exponent = 0
        if let e = mantissa.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let value = Int(mantissa[mantissa.index(after: e)...].trimmingPrefix("+")), abs(value) <= 18 else {
                return nil
            }
            exponent = value
            mantissa = mantissa[..<e]
        }
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa = mantissa.dropFirst() }
        var digits = String(mantissa)
        if let dot = digits.firstIndex(of: ".") {
            exponent -= digits.distance(from: dot, to: digits.endIndex) - 1
            digits.remove(at: dot)
        }
        let significant = digits.drop { $0 == "0" }
        guard significant.count <= maximumDigits, exponent >= -maximumDigits, let integer = Int128(digits.isEmpty ? "0" : digits) else { return nil }
        let scale = (0..<abs(exponent)).reduce(Int128(1)) { value, _ in value * 10 }
        let value = exponent >= 0 ? Fraction(integer * scale) : Fraction(integer, scale)
        guard value.numerator <= TimelineLimits.maximumTerm * 1_000_000_000 else { return nil }
        return negative ? Fraction(-value.numerator, value.denominator) : value
    }

    /// "N/D" or "N" with 0 ≤ N and 0 < D, both at most `TimelineLimits.maximumTerm`.
    static func ratio(_ text: String) -> Fraction? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count),
              parts.allSatisfy({ !$0.isEmpty && $0.count <= 10 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let numerator = Int128(parts[0]), numerator <= TimelineLimits.maximumTerm else { return nil }
        let denominator = parts.count == 2 ? Int128(parts[1]) ?? 0 : 1
        guard denominator > 0, denominator <= TimelineLimits.maximumTerm else { return nil }
        return Fraction(numerator, denominator)
    }
}
