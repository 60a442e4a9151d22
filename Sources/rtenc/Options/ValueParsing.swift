import ArgumentParser
import Bitstream
import FoundationEssentials
import RTPOut

// Every option value that is not plain text is parsed here, by a function that says why it refuses a value and what
// it would take instead. Options use them as `transform:` closures: ArgumentParser shows a transform's error after
// the option's name ("The value 'x' is invalid for '--fps <fps>': …", turned into one line by `UsageMessage`), where a
// failing `ExpressibleByArgument.init?(argument:)` gives no reason at all. A transform hides the default from
// --help, so options with one say it in their help (`ArgumentHelp(_:default:)`), written as the user would type it.
// Those options read their value `parsing: .unconditional`: otherwise ArgumentParser takes "-1" for an option and
// reports "Missing value for '--keyint <keyint>'", and the range that would have been quoted is never reached.

/// Why a command-line value was refused, and a form that would have been accepted.
struct OptionValueError: Error, CustomStringConvertible, Equatable {
    /// What is wrong with the value ("not a whole number").
    var reason: String
    /// What to write instead ("expected 1…240").
    var expected: String

    init(_ reason: String, expected: String) {
        self.reason = reason
        self.expected = expected
    }

    var description: String { "\(reason); \(expected)" }
}

/// Parsers for numbers with the range each option allows, as `transform:` closures.
enum OptionNumber {
    /// A whole number in `range`; `unit` follows the range in the message ("1…240 frames per second").
    static func integer<T: FixedWidthInteger & Sendable>(
        _ range: ClosedRange<T>, unit: String = ""
    ) -> @Sendable (String) throws(OptionValueError) -> T {
        { text throws(OptionValueError) in
            let expected = "expected " + (range.lowerBound < range.upperBound && range.lowerBound + 1 == range.upperBound
                ? "\(range.lowerBound) or \(range.upperBound)\(unit.isEmpty ? "" : " \(unit)")"
                : describe(range, unit: unit))
            let trimmed = text.trimmingWhitespace()
            guard let value = T(trimmed) else {
                // Digits that do not fit the type are a number out of range, not "not a number".
                let digits = trimmed.hasPrefix("-") ? trimmed.dropFirst() : trimmed[...]
                if !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    throw OptionValueError("out of range", expected: expected)
                }
                throw OptionValueError("not a whole number", expected: expected)
            }
            guard range.contains(value) else { throw OptionValueError("out of range", expected: expected) }
            return value
        }
    }

    /// A finite decimal number that `accepts`; `expected` says which ("0…100 percent").
    static func decimal(
        expected: String, accepts: @escaping @Sendable (Double) -> Bool
    ) -> @Sendable (String) throws(OptionValueError) -> Double {
        { text throws(OptionValueError) in
            guard let value = Double(text.trimmingWhitespace()), value.isFinite else {
                throw OptionValueError("not a number", expected: "expected \(expected)")
            }
            guard accepts(value) else { throw OptionValueError("out of range", expected: "expected \(expected)") }
            return value
        }
    }

    /// A finite decimal number in `range`.
    static func decimal(_ range: ClosedRange<Double>, unit: String = "") -> @Sendable (String) throws(OptionValueError) -> Double {
        decimal(expected: describe(range, unit: unit)) { range.contains($0) }
    }

    /// "1…240 frames per second", "0 or more".
    static func describe<T: Comparable & CustomStringConvertible>(_ range: ClosedRange<T>, unit: String) -> String {
        let suffix = unit.isEmpty ? "" : " \(unit)"
        if let integerRange = range as? ClosedRange<Int>, integerRange.upperBound == .max {
            return "\(range.lowerBound) or more\(suffix)"
        }
        return "\(plain(range.lowerBound))…\(plain(range.upperBound))\(suffix)"
    }

    /// 10.0 as "10", 0.5 as "0.5".
    private static func plain<T: CustomStringConvertible>(_ value: T) -> String {
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}

extension ArgumentHelp {
    /// Help that ends in "(default: X)" as ArgumentParser writes it for the types it parses itself; an option parsed
    /// by a `transform:` closure shows no default otherwise.
    init(_ abstract: String, default value: some CustomStringConvertible, valueName: String? = nil,
         discussion: String? = nil) {
        self.init("\(abstract) (default: \(value))", discussion: discussion, valueName: valueName)
    }
}

/// A bit rate as people write it: `2M`, `500k`, `2000000`, `1.5M` (bits per second; a trailing `bps` is allowed).
struct BitRate: Sendable, Hashable, CustomStringConvertible {
    var bitsPerSecond: Int

    init(bitsPerSecond: Int) { self.bitsPerSecond = bitsPerSecond }

    static let forms = "a bit rate like 2M, 500k or 2000000 (bits per second)"

    /// Parses a bit rate within `range` (bits per second).
    static func parser(in range: ClosedRange<Int>) -> @Sendable (String) throws(OptionValueError) -> BitRate {
        { text throws(OptionValueError) in
            let rate = try parse(text)
            guard range.contains(rate.bitsPerSecond) else {
                throw OptionValueError(
                    "out of range", expected: "expected \(BitRate(bitsPerSecond: range.lowerBound))…"
                        + "\(BitRate(bitsPerSecond: range.upperBound)) (like 2M, 500k or 2000000)")
            }
            return rate
        }
    }

    static func parse(_ argument: String) throws(OptionValueError) -> BitRate {
        var text = argument.trimmingWhitespace().lowercased()
        var multiplier = 1.0
        if text.hasSuffix("bps") { text.removeLast(3) }
        switch text.last {
        case "k": multiplier = 1e3; text.removeLast()
        case "m": multiplier = 1e6; text.removeLast()
        case "g": multiplier = 1e9; text.removeLast()
        default: break
        }
        guard let value = Double(text), value.isFinite else {
            throw OptionValueError("not a bit rate", expected: "expected \(forms)")
        }
        guard value > 0 else { throw OptionValueError("a bit rate must be more than 0", expected: "expected \(forms)") }
        guard value * multiplier <= 10e9 else { throw OptionValueError("more than 10G", expected: "expected \(forms)") }
        let bitsPerSecond = Int((value * multiplier).rounded())
        guard bitsPerSecond > 0 else { throw OptionValueError("less than 1 bit per second", expected: "expected \(forms)") }
        return BitRate(bitsPerSecond: bitsPerSecond)
    }

    /// As it would be typed: 2000000 → "2M", 500000 → "500k", 1500000 → "1.5M", 2000001 → "2000001".
    var description: String {
        for (divisor, suffix) in [(1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")] where bitsPerSecond >= divisor {
            // Up to one decimal place, and only when it is exact (1.5M, not 1.234567M).
            if bitsPerSecond % divisor == 0 { return "\(bitsPerSecond / divisor)\(suffix)" }
            if bitsPerSecond % (divisor / 10) == 0 {
                return "\(bitsPerSecond / divisor).\(bitsPerSecond % divisor / (divisor / 10))\(suffix)"
            }
        }
        return "\(bitsPerSecond)"
    }

    var kilobitsPerSecond: Double { Double(bitsPerSecond) / 1000 }
}

/// `WxH`, e.g. `1280x720`: even sides (4:2:0 subsamples chroma by two both ways) of 16…8192 (the encoder's limits).
struct FrameSize: Sendable, Hashable, CustomStringConvertible {
    var width: Int
    var height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    static let sides = 16...8192

    static func parse(_ argument: String) throws(OptionValueError) -> FrameSize {
        let parts = argument.trimmingWhitespace().lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw OptionValueError("not a size", expected: "expected WxH, like 1280x720")
        }
        // The nearest valid size: each side clamped to 16…8192, then an odd one rounded down to even.
        let nearest = FrameSize(width: nearestSide(width), height: nearestSide(height))
        guard sides.contains(width), sides.contains(height) else {
            throw OptionValueError("width and height must be \(sides.lowerBound)…\(sides.upperBound)",
                                   expected: "nearest valid size \(nearest)")
        }
        guard width % 2 == 0, height % 2 == 0 else {
            throw OptionValueError("4:2:0 video needs an even width and height",
                                   expected: "nearest valid size \(nearest) (odd sides rounded down)")
        }
        return FrameSize(width: width, height: height)
    }

    private static func nearestSide(_ side: Int) -> Int {
        let clamped = min(max(side, sides.lowerBound), sides.upperBound)
        return clamped & ~1
    }

    var description: String { "\(width)x\(height)" }
}

/// `HOST:PORT`; an IPv6 host is written in brackets: `[::1]:5004`. A host name is resolved when it is used
/// (`HostResolver`), so a name that does not resolve is a runtime error, not a usage error.
struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    var host: String
    var port: UInt16

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// RTCP goes to port + 1, so 65535 cannot be an RTP port.
    static let ports: ClosedRange<UInt16> = 1...65534

    static func parse(_ argument: String) throws(OptionValueError) -> Endpoint {
        let text = argument.trimmingWhitespace()
        let expected = "expected HOST:PORT with PORT 1…65534, like 127.0.0.1:5004, localhost:5004 or [::1]:5004"
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw OptionValueError("no ']' after the IPv6 address", expected: expected)
            }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw OptionValueError("no port", expected: expected) }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw OptionValueError("no port", expected: expected) }
            host = text[..<colon]
            guard !host.contains(":") else {
                throw OptionValueError("an IPv6 address needs brackets", expected: expected)
            }
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw OptionValueError("no host", expected: expected) }
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw OptionValueError("port '\(portText)' is not a number", expected: expected)
        }
        guard let port = UInt16(portText), ports.contains(port) else {
            throw OptionValueError("port \(portText) is out of range", expected: expected)
        }
        return Endpoint(host: String(host), port: port)
    }

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// `--bind`: a numeric address of this host, or localhost (what `SocketAddress` takes: the socket is bound before
/// anything is resolved).
enum NumericAddress {
    static func parse(_ argument: String) throws(OptionValueError) -> String {
        let text = argument.trimmingWhitespace()
        guard (try? SocketAddress(host: text, port: 0)) != nil else {
            throw OptionValueError("not a numeric IP address",
                                   expected: "expected an IPv4 or IPv6 address like 0.0.0.0, 127.0.0.1 or ::, or localhost")
        }
        return text
    }
}

/// The profiles the CLI offers (`--profile`).
enum ProfileArgument: String, ExpressibleByArgument, CaseIterable {
    case baseline
    case constrainedBaseline = "constrained-baseline"
    case main
    case high
    case constrainedHigh = "constrained-high"
    /// HEVC only.
    case main10

    /// The H.264 profile; nil for an HEVC-only one.
    var h264Profile: H264Profile? {
        switch self {
        case .baseline: .baseline
        case .constrainedBaseline: .constrainedBaseline
        case .main: .main
        case .high: .high
        case .constrainedHigh: .constrainedHigh
        case .main10: nil
        }
    }

    /// The HEVC profile; nil for an H.264-only one.
    var hevcProfile: HEVC.Profile? {
        switch self {
        case .main: .main
        case .main10: .main10
        default: nil
        }
    }
}

/// `--codec`, the same on every command that takes one (encode, stream, send, receive, packetize, inspect): h264 or
/// avc for H.264, hevc or h265 for H.265.
enum CodecArgument: String, ExpressibleByArgument, CaseIterable {
    case h264, avc, hevc, h265

    var codec: VideoCodec {
        switch self {
        case .h264, .avc: .h264
        case .hevc, .h265: .hevc
        }
    }

    /// The codec's name in messages: "H.264" or "H.265".
    static func name(_ codec: VideoCodec) -> String { codec == .hevc ? "H.265" : "H.264" }
}

/// `--level`: H.264 levels as people write them: 3, 3.0 and 30 (its level_idc) are the same level, as are 3.1 and 31;
/// 1b is level 1b.
enum LevelArgument {
    static let names = H264Level.allCases.sorted().map(\.name)

    static func parse(_ argument: String) throws(OptionValueError) -> H264Level {
        let text = argument.trimmingWhitespace().lowercased()
        let expected = "expected one of \(names.joined(separator: ", ")) (3.1 may also be written 31)"
        var name = text.hasSuffix(".0") ? String(text.dropLast(2)) : text
        // Two digits are a level_idc: 31 is 3.1, 30 is 3 (level_idc 11 is 1.1; 1b has no two-digit form here).
        if name.count == 2, let first = name.first, let last = name.last, name.allSatisfy({ $0.isASCII && $0.isNumber }) {
            name = last == "0" ? "\(first)" : "\(first).\(last)"
        }
        guard let level = H264Level(name: name) else { throw OptionValueError("not an H.264 level", expected: expected) }
        return level
    }
}

extension LevelArgument {
    /// The HEVC level of the same name (`parse` reads the H.264 spelling, of which HEVC's names are a subset); nil
    /// for one HEVC does not have (1b, 1.1 … 1.3, 2.2, 3.2, 4.2).
    static func hevc(_ level: H264Level) -> HEVC.Level? { HEVC.Level(name: level.name) }
}

/// `--force-idr 0,150,300`: frame numbers counted from 0, comma separated.
struct FrameList: Sendable, Hashable {
    var frames: Set<Int>

    static func parse(_ argument: String) throws(OptionValueError) -> FrameList {
        var frames = Set<Int>()
        for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
            guard let frame = Int(part.trimmingWhitespace()), frame >= 0 else {
                throw OptionValueError("'\(part)' is not a frame number",
                                       expected: "expected frame numbers from 0, comma separated, like 0,150,300")
            }
            frames.insert(frame)
        }
        return FrameList(frames: frames)
    }
}
