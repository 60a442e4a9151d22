/// One ICE candidate as SDP carries it (RFC 8839 §5.1) and as RFC 8445 §5.1.2 ranks it.
///
///     candidate-attribute = "candidate" ":" foundation SP component-id SP transport SP priority SP
///                           connection-address SP port SP "typ" SP cand-type
///                           [SP "raddr" SP connection-address] [SP "rport" SP port] *(SP extension-name SP value)
///
///     a=candidate:1 1 udp 2130706431 192.0.2.1 8189 typ host
///     a=candidate:842163049 1 udp 1677729535 198.51.100.7 61665 typ srflx raddr 10.0.0.5 rport 61665 generation 0
public struct ICECandidate: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case host, srflx, prflx, relay

        /// RFC 8445 §5.1.2.2's recommended type preferences.
        public var typePreference: UInt32 {
            switch self {
            case .host: 126
            case .prflx: 110
            case .srflx: 100
            case .relay: 0
            }
        }
    }

    /// 1–32 ice-chars; candidates of one type from one base and server share it (RFC 8445 §5.1.1.3).
    public var foundation: String
    /// 1 for RTP (and RTCP too, with rtcp-mux).
    public var component: Int
    /// "udp" (compared case-insensitively), or another transport such as "tcp", which rtenc does not pair.
    public var transport: String
    public var priority: UInt32
    /// An IP address, or a name (an mDNS "….local" name hides a browser's address, RFC 8839 §5.1).
    public var connectionAddress: String
    public var port: UInt16
    public var kind: Kind
    public var relatedAddress: String?
    public var relatedPort: UInt16?
    /// What follows (generation, ufrag, network-id, tcptype…), kept in order.
    public var extensions: [(name: String, value: String)]

    public init(
        foundation: String, component: Int = 1, transport: String = "udp", priority: UInt32, connectionAddress: String,
        port: UInt16, kind: Kind, relatedAddress: String? = nil, relatedPort: UInt16? = nil,
        extensions: [(name: String, value: String)] = []
    ) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.connectionAddress = connectionAddress
        self.port = port
        self.kind = kind
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    /// A host candidate on `address` (RFC 8445 §5.1.1.1), its priority by §5.1.2.1.
    public init(host address: TransportAddress, localPreference: UInt16 = 65535, component: Int = 1) {
        self.init(
            foundation: Self.foundation(kind: .host, base: address.ip), component: component,
            priority: Self.priority(kind: .host, localPreference: localPreference, component: component),
            connectionAddress: address.ip.description, port: address.port, kind: .host
        )
    }

    /// RFC 8445 §5.1.2.1: priority = 2^24 × type preference + 2^8 × local preference + (256 − component ID).
    public static func priority(kind: Kind, localPreference: UInt16, component: Int = 1) -> UInt32 {
        kind.typePreference << 24 | UInt32(localPreference) << 8 | UInt32(256 - min(max(component, 1), 256))
    }

    /// RFC 8445 §6.1.2.3: a pair's priority, 2^32 × MIN(G, D) + 2 × MAX(G, D) + (G > D ? 1 : 0), with G the
    /// controlling agent's candidate priority and D the controlled agent's.
    public static func pairPriority(controlling g: UInt32, controlled d: UInt32) -> UInt64 {
        UInt64(min(g, d)) << 32 + 2 * UInt64(max(g, d)) + (g > d ? 1 : 0)
    }

    /// A foundation for a candidate of `kind` on `base` (RFC 8445 §5.1.1.3: same type, base IP and transport → same
    /// foundation): a CRC-32 of those, in decimal, so it is stable across runs and at most 10 digits.
    public static func foundation(kind: Kind, base: IPAddress, transport: String = "udp") -> String {
        String(CRC32.checksum(Array("\(kind.rawValue) \(base) \(transport.lowercased())".utf8)))
    }

    /// The address to send to, when `connectionAddress` is numeric; nil for a name (mDNS), which rtenc does not
    /// resolve.
    public var transportAddress: TransportAddress? {
        IPAddress(connectionAddress).map { TransportAddress(ip: $0, port: port) }
    }

    public var isUDP: Bool { transport.lowercased() == "udp" }

    /// A candidate line: "a=candidate:…", "candidate:…" (the form a browser's RTCIceCandidate carries), or the value
    /// alone. Unknown candidate types and transports are refused or kept as the RFC says: an unknown `typ` is an
    /// error here (RFC 8839 allows extensions, but no peer sends one and rtenc could not rank it).
    public init(parsing line: some StringProtocol) throws(WebRTCError) {
        var text = Substring(line)
        while let last = text.last, last == "\r" || last == "\n" || last == " " { text = text.dropLast() }
        if text.hasPrefix("a=") { text = text.dropFirst(2) }
        if text.hasPrefix("candidate:") { text = text.dropFirst("candidate:".count) }
        let fields = text.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 8 else {
            throw .make(.invalidCandidate, "\(fields.count) fields, need at least 8: \(line)")
        }
        let foundation = fields[0]
        guard (1...32).contains(foundation.count), foundation.allSatisfy(ICECredentials.isICEChar) else {
            throw .make(.invalidCandidate, "foundation \"\(foundation)\" is not 1–32 ice-chars")
        }
        guard fields[1].count <= 3, let component = Int(fields[1]), (1...256).contains(component) else {
            throw .make(.invalidCandidate, "component-id \"\(fields[1])\" is not 1–256")
        }
        guard fields[3].count <= 10, let priority = UInt32(fields[3]), priority >= 1, priority < 1 << 31 else {
            throw .make(.invalidCandidate, "priority \"\(fields[3])\" is not 1 to 2^31−1")
        }
        guard let port = UInt16(fields[5]) else { throw .make(.invalidCandidate, "port \"\(fields[5])\" is not 0–65535") }
        guard fields[6] == "typ" else { throw .make(.invalidCandidate, "\"typ\" expected, found \"\(fields[6])\"") }
        guard let kind = Kind(rawValue: String(fields[7])) else {
            throw .make(.invalidCandidate, "candidate type \"\(fields[7])\" (host, srflx, prflx or relay)")
        }
        var relatedAddress: String? = nil
        var relatedPort: UInt16? = nil
        var extensions: [(String, String)] = []
        var i = 8
        while i < fields.count {
            guard i + 1 < fields.count else { throw .make(.invalidCandidate, "\"\(fields[i])\" without a value") }
            let (name, value) = (fields[i], fields[i + 1])
            switch name {
            case "raddr" where relatedAddress == nil && extensions.isEmpty: relatedAddress = String(value)
            case "rport" where relatedPort == nil && extensions.isEmpty:
                guard let p = UInt16(value) else { throw .make(.invalidCandidate, "rport \"\(value)\" is not 0–65535") }
                relatedPort = p
            default: extensions.append((String(name), String(value)))
            }
            i += 2
        }
        self.init(
            foundation: String(foundation), component: component, transport: String(fields[2]), priority: priority,
            connectionAddress: String(fields[4]), port: port, kind: kind, relatedAddress: relatedAddress,
            relatedPort: relatedPort, extensions: extensions
        )
    }

    /// The attribute value: "candidate:…", without "a=" (prefix it for an SDP line).
    public var attributeValue: String {
        var text = "candidate:\(foundation) \(component) \(transport) \(priority) \(connectionAddress) \(port) typ \(kind.rawValue)"
        if let relatedAddress { text += " raddr \(relatedAddress)" }
        if let relatedPort { text += " rport \(relatedPort)" }
        for (name, value) in extensions { text += " \(name) \(value)" }
        return text
    }

    public var description: String { attributeValue }

    public static func == (a: Self, b: Self) -> Bool { a.attributeValue == b.attributeValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(attributeValue) }
}
