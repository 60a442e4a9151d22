/// An IP address, version 4 or 6, as the pure WebRTC code sees it: a value, parsed and printed without libc.
/// (RTPOut's `SocketAddress` is the edge's type, built from `sockaddr`s; the edge converts between the two.)
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The 32 address bits, network order as an integer (192.0.2.1 is 0xC000_0201).
    case v4(UInt32)
    /// The 128 address bits as two integers, most significant first.
    case v6(high: UInt64, low: UInt64)

    /// From 4 or 16 bytes in network order; nil for any other count.
    public init?<Bytes: Collection<UInt8>>(bytes: Bytes) {
        switch bytes.count {
        case 4: self = .v4(bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        case 16:
            let high = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let low = bytes.dropFirst(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self = .v6(high: high, low: low)
        default: return nil
        }
    }

    /// The address in network order: 4 or 16 bytes.
    public var bytes: [UInt8] {
        switch self {
        case .v4(let value): (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
        case .v6(let high, let low):
            (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
                + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
        }
    }

    public var isIPv4: Bool { if case .v4 = self { true } else { false } }

    /// Loopback: 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        switch self {
        case .v4(let value): value >> 24 == 127
        case .v6(let high, let low): high == 0 && low == 1
        }
    }

    /// Parses dotted-quad IPv4 ("192.0.2.1") or IPv6 text (RFC 4291 §2.2: "2001:db8::1", "::ffff:192.0.2.1"),
    /// with or without brackets; nil for anything else (a host name, an mDNS ".local" name, a zone index).
    public init?(_ text: some StringProtocol) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let v4 = Self.parseIPv4(text) {
            self = .v4(v4)
        } else if let v6 = Self.parseIPv6(text) {
            self = v6
        } else {
            return nil
        }
    }

    private static func parseIPv4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            // 1–3 decimal digits, no sign, no leading zero (inet_pton refuses "01" too: it could be octal).
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit), part == "0" || part.first != "0",
                  let octet = UInt8(part)
            else { return nil }
            value = value << 8 | UInt32(octet)
        }
        return value
    }

    private static func parseIPv6(_ text: Substring) -> IPAddress? {
        guard text.contains(":") else { return nil }
        var groups: [UInt16] = []
        var gapAt: Int? = nil
        let halves = splitAtDoubleColon(text)
        guard halves.count <= 2 else { return nil }
        for (index, half) in halves.enumerated() {
            if index == 1 { gapAt = groups.count }
            guard !half.isEmpty else { continue }
            let pieces = half.split(separator: ":", omittingEmptySubsequences: false)
            for (k, piece) in pieces.enumerated() {
                if k == pieces.count - 1, index == halves.count - 1, piece.contains("."), let v4 = parseIPv4(piece) {
                    groups.append(UInt16(v4 >> 16))
                    groups.append(UInt16(truncatingIfNeeded: v4))
                    continue
                }
                guard (1...4).contains(piece.count), piece.allSatisfy(\.isHexDigit), let group = UInt16(piece, radix: 16) else {
                    return nil
                }
                groups.append(group)
            }
        }
        if let gapAt {
            guard groups.count < 8 else { return nil }
            groups.insert(contentsOf: repeatElement(0, count: 8 - groups.count), at: gapAt)
        }
        guard groups.count == 8 else { return nil }
        let high = groups[0..<4].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        let low = groups[4..<8].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        return .v6(high: high, low: low)
    }

    /// `text` cut at each "::" (no Foundation here for `components(separatedBy:)`).
    private static func splitAtDoubleColon(_ text: Substring) -> [Substring] {
        var parts: [Substring] = []
        var start = text.startIndex
        var i = text.startIndex
        while i < text.endIndex {
            let next = text.index(after: i)
            if text[i] == ":", next < text.endIndex, text[next] == ":" {
                parts.append(text[start..<i])
                start = text.index(after: next)
                i = start
            } else {
                i = next
            }
        }
        parts.append(text[start...])
        return parts
    }

    /// Dotted quad, or the RFC 5952 canonical IPv6 text (lower case, the longest run of two or more zero groups as
    /// "::", the first such run on a tie).
    public var description: String {
        switch self {
        case .v4(let value):
            return (0..<4).map { String(UInt8(truncatingIfNeeded: value >> (24 - 8 * $0))) }.joined(separator: ".")
        case .v6(let high, let low):
            let groups = (0..<4).map { UInt16(truncatingIfNeeded: high >> (48 - 16 * $0)) }
                + (0..<4).map { UInt16(truncatingIfNeeded: low >> (48 - 16 * $0)) }
            var best: Range<Int>? = nil
            var start: Int? = nil
            for i in 0...8 {
                if i < 8, groups[i] == 0 {
                    if start == nil { start = i }
                } else if let s = start {
                    if i - s >= 2, i - s > (best?.count ?? 0) { best = s..<i }
                    start = nil
                }
            }
            let hex = groups.map { String($0, radix: 16) }
            guard let best else { return hex.joined(separator: ":") }
            return hex[..<best.lowerBound].joined(separator: ":") + "::" + hex[best.upperBound...].joined(separator: ":")
        }
    }
}

/// An IP address and a UDP port: where a STUN message came from or goes to (RFC 8445's "transport address").
public struct TransportAddress: Sendable, Hashable, CustomStringConvertible {
    public var ip: IPAddress
    public var port: UInt16

    public init(ip: IPAddress, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    /// "192.0.2.1:5000" or "[2001:db8::1]:5000"; nil when the text is not a numeric address and port.
    public init?(_ text: some StringProtocol) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        let host = text[..<colon]
        if host.hasPrefix("[") != host.hasSuffix("]") { return nil }
        // A bare IPv6 address has colons of its own: it must be bracketed to carry a port.
        if !host.hasPrefix("["), host.contains(":") { return nil }
        guard let ip = IPAddress(host) else { return nil }
        self.init(ip: ip, port: port)
    }

    public var description: String {
        ip.isIPv4 ? "\(ip):\(port)" : "[\(ip)]:\(port)"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
