/// A strict RFC 8259 JSON parser for timeline documents: UTF-8 only, no comments, no trailing commas, no duplicate
/// keys, nothing after the value. Every syntax error names the byte offset, the JSON path being read and what was
/// expected, so a cut-off or hand-edited file says where it went wrong.
public struct JSONParser {
    /// A timeline is a few kilobytes; 4 MiB bounds what a hostile file can make us hold.
    public static let maximumDocumentSize = 4 << 20
    /// Timelines nest four levels deep; 64 bounds recursion on hostile input (`[[[[…`).
    public static let maximumDepth = 64

    private let bytes: [UInt8]
    private var offset = 0
    private var path = JSONPath.root

    public static func parse(_ bytes: [UInt8]) throws(TimelineError) -> JSONValue {
        guard bytes.count <= maximumDocumentSize else {
            throw TimelineError(code: .limitExceeded,
                                   reason: "document of \(bytes.count) bytes exceeds \(maximumDocumentSize) bytes")
        }
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        if parser.offset == bytes.count { throw parser.error("the document is empty: expected a JSON value") }
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.offset == bytes.count else {
            throw parser.error("unexpected \(parser.describeCurrent()) after the document's value")
        }
        return value
    }

    public static func parse(_ text: String) throws(TimelineError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func error(_ reason: String) -> TimelineError {
        TimelineError(code: .syntax, reason: "at byte \(offset): \(reason)", path: path.description)
    }

    private func describeCurrent() -> String {
        guard offset < bytes.count else { return "end of input" }
        let byte = bytes[offset]
        if byte >= 0x21, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
    }

    private mutating func parseValue(depth: Int) throws(TimelineError) -> JSONValue {
        guard depth < Self.maximumDepth else {
            throw TimelineError(code: .limitExceeded, reason: "at byte \(offset): nesting deeper than "
                                   + "\(Self.maximumDepth) levels", path: path.description)
        }
        guard offset < bytes.count else { throw error("unexpected end of input: expected a value") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected \(describeCurrent()): expected a value")
        }
    }

    private mutating func expectLiteral(_ literal: String) throws(TimelineError) {
        for byte in literal.utf8 {
            guard offset < bytes.count, bytes[offset] == byte else {
                throw error("unexpected \(describeCurrent()) in literal: expected \(literal)")
            }
            offset += 1
        }
    }

    private mutating func parseObject(depth: Int) throws(TimelineError) -> JSONValue {
        offset += 1 // {
        var members: [(key: String, value: JSONValue)] = []
        var keys = Set<String>()
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeCurrent()): expected a member name in double quotes")
            }
            let key = try parseString()
            guard keys.insert(key).inserted else { throw error("duplicate member name \"\(key)\"") }
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
                throw error("unexpected \(describeCurrent()): expected ':' after \"\(key)\"")
            }
            offset += 1
            skipWhitespace()
            let saved = path
            path = path.appending(key)
            let value = try parseValue(depth: depth + 1)
            path = saved
            members.append((key, value))
            skipWhitespace()
            guard offset < bytes.count else { throw error("unexpected end of input: expected ',' or '}'") }
            if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
            if bytes[offset] == UInt8(ascii: "}") { offset += 1; return .object(members) }
            throw error("unexpected \(describeCurrent()): expected ',' or '}'")
        }
    }

    private mutating func parseArray(depth: Int) throws(TimelineError) -> JSONValue {
        offset += 1 // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            let saved = path
            path = path.appending(elements.count)
            let value = try parseValue(depth: depth + 1)
            path = saved
            elements.append(value)
            skipWhitespace()
            guard offset < bytes.count else { throw error("unexpected end of input: expected ',' or ']'") }
            if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
            if bytes[offset] == UInt8(ascii: "]") { offset += 1; return .array(elements) }
            throw error("unexpected \(describeCurrent()): expected ',' or ']'")
        }
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, returned as its text.
    private mutating func parseNumber() throws(TimelineError) -> String {
        let start = offset
        func digits(_ parser: inout JSONParser) -> Int {
            let first = parser.offset
            while parser.offset < parser.bytes.count, (0x30...0x39).contains(parser.bytes[parser.offset]) {
                parser.offset += 1
            }
            return parser.offset - first
        }
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < bytes.count, (0x30...0x39).contains(bytes[offset]) else {
            throw error("unexpected \(describeCurrent()) in a number: expected a digit")
        }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
            if offset < bytes.count, (0x30...0x39).contains(bytes[offset]) {
                throw error("a number may not have a leading zero")
            }
        } else {
            _ = digits(&self)
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard digits(&self) > 0 else { throw error("unexpected \(describeCurrent()): expected a digit after '.'") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard digits(&self) > 0 else { throw error("unexpected \(describeCurrent()): expected an exponent") }
        }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    /// RFC 8259 §7, with the escapes decoded and UTF-8 validated (surrogate pairs joined, lone surrogates refused).
    private mutating func parseString() throws(TimelineError) -> String {
        offset += 1 // opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = offset
        var raw: [UInt8] = []
        func flush(_ parser: JSONParser, into raw: inout [UInt8], from start: Int) {
            raw.append(contentsOf: parser.bytes[start..<parser.offset])
        }
        while true {
            guard offset < bytes.count else { throw error("unexpected end of input inside a string") }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                flush(self, into: &raw, from: runStart)
                offset += 1
                break
            }
            if byte < 0x20 { throw error("control character 0x\(String(byte, radix: 16)) inside a string: escape it") }
            if byte != UInt8(ascii: "\\") { offset += 1; continue }
            flush(self, into: &raw, from: runStart)
            offset += 1
            guard offset < bytes.count else { throw error("unexpected end of input after '\\'") }
            let escape = bytes[offset]
            offset += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): raw.append(escape)
            case UInt8(ascii: "b"): raw.append(0x08)
            case UInt8(ascii: "f"): raw.append(0x0C)
            case UInt8(ascii: "n"): raw.append(0x0A)
            case UInt8(ascii: "r"): raw.append(0x0D)
            case UInt8(ascii: "t"): raw.append(0x09)
            case UInt8(ascii: "u"):
                var value = try hexQuad()
                if (0xD800...0xDBFF).contains(value) {
                    guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                          bytes[offset + 1] == UInt8(ascii: "u") else {
                        throw error("a high surrogate \\u\(String(value, radix: 16)) must be followed by a low one")
                    }
                    offset += 2
                    let low = try hexQuad()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate in a \\u escape") }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(value) {
                    throw error("a lone low surrogate in a \\u escape")
                }
                // Valid by the checks above: not a surrogate, at most 0x10FFFF.
                raw.append(contentsOf: Array(String(Character(Unicode.Scalar(value)!)).utf8))
            default:
                offset -= 1
                throw error("invalid escape \\\(describeCurrent())")
            }
            runStart = offset
        }
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw error("a string is not valid UTF-8")
        }
        scalars.append(contentsOf: text.unicodeScalars)
        return String(scalars)
    }

    private mutating func hexQuad() throws(TimelineError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard offset < bytes.count, let digit = hexDigit(bytes[offset]) else {
                throw error("unexpected \(describeCurrent()) in a \\u escape: expected 4 hex digits")
            }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }

    private func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: UInt32(byte - 0x30)
        case 0x41...0x46: UInt32(byte - 0x41 + 10)
        case 0x61...0x66: UInt32(byte - 0x61 + 10)
        default: nil
        }
    }
}
