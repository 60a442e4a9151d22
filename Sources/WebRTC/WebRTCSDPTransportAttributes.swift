extension WebRTCSDP {
    /// `o=<username> <sess-id> <sess-version> <nettype> <addrtype> <unicast-address>` (RFC 8866 §5.2), kept as text:
    /// browsers write session ids past 64 bits' worth of digits.
    public struct Origin: Sendable, Hashable {
        public var username: String
        public var sessionID: String
        public var sessionVersion: String
        public var networkType: String
        public var addressType: String
        public var address: String

        public init(username: String = "-", sessionID: String, sessionVersion: String = "2", networkType: String = "IN",
                    addressType: String = "IP4", address: String = "127.0.0.1") {
            self.username = username
            self.sessionID = sessionID
            self.sessionVersion = sessionVersion
            self.networkType = networkType
            self.addressType = addressType
            self.address = address
        }

        var text: String { "\(username) \(sessionID) \(sessionVersion) \(networkType) \(addressType) \(address)" }
    }

    /// `c=<nettype> <addrtype> <connection-address>` (RFC 8866 §5.7). WebRTC writes `IN IP4 0.0.0.0`, or the default
    /// candidate's address.
    public struct Connection: Sendable, Hashable {
        public var networkType: String
        public var addressType: String
        public var address: String

        public init(networkType: String = "IN", addressType: String = "IP4", address: String = "0.0.0.0") {
            self.networkType = networkType
            self.addressType = addressType
            self.address = address
        }

        /// `IN IP4|IP6 address`, the address type following the address.
        public init(address: String) {
            self.init(addressType: address.contains(":") ? "IP6" : "IP4", address: address)
        }

        var text: String { "\(networkType) \(addressType) \(address)" }
    }

    /// `a=group:<semantics> <mid>…` (RFC 5888 §5).
    public struct Group: Sendable, Hashable {
        public var semantics: String
        public var mids: [String]

        public init(semantics: String, mids: [String]) {
            self.semantics = semantics
            self.mids = mids
        }
    }

    /// An attribute the model has no field for, kept as written: `a=<name>` or `a=<name>:<value>`.
    public struct Attribute: Sendable, Hashable {
        public var name: String
        public var value: String?

        public init(_ name: String, _ value: String? = nil) {
            self.name = name
            self.value = value
        }

        var text: String { value.map { "\(name):\($0)" } ?? name }
    }

    /// `a=fingerprint:<hash-func> <XX:XX:…>` (RFC 8122 §5): the hash of the DTLS certificate the writer will present.
    public struct Fingerprint: Sendable, Hashable, CustomStringConvertible {
        /// Lower case, as RFC 8122 registers them: "sha-256", "sha-1"…
        public var hashFunction: String
        public var bytes: [UInt8]

        public init(hashFunction: String, bytes: [UInt8]) {
            self.hashFunction = hashFunction.lowercased()
            self.bytes = bytes
        }

        /// The digest length a known hash function has (RFC 8122 §5 names them); nil for others.
        public static func digestLength(of hashFunction: String) -> Int? {
            switch hashFunction.lowercased() {
            case "sha-1": 20
            case "sha-224": 28
            case "sha-256": 32
            case "sha-384": 48
            case "sha-512": 64
            case "md5", "md2": 16
            default: nil
            }
        }

        /// Upper-case hex pairs joined by colons, as the attribute writes them.
        public var hexPairs: String {
            let table = Array("0123456789ABCDEF".utf8)
            var out: [UInt8] = []
            for (index, byte) in bytes.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ":")) }
                out.append(table[Int(byte >> 4)])
                out.append(table[Int(byte & 0x0F)])
            }
            return String(decoding: out, as: UTF8.self)
        }

        public var description: String { "\(hashFunction) \(hexPairs)" }

        /// Parses `sha-256 AB:CD:…`; nil when the value is not a hash function name and colon-separated hex pairs, or
        /// when a known hash function's digest has the wrong length.
        init?(attributeValue value: Substring) {
            let fields = value.sdpFields
            guard fields.count == 2 else { return nil }
            var bytes: [UInt8] = []
            for pair in fields[1].split(separator: ":", omittingEmptySubsequences: false) {
                guard pair.utf8.count == 2, let byte = UInt8(pair, radix: 16) else { return nil }
                bytes.append(byte)
            }
            let hashFunction = String(fields[0]).lowercased()
            if let length = Self.digestLength(of: hashFunction), length != bytes.count { return nil }
            self.init(hashFunction: hashFunction, bytes: bytes)
        }
    }

    /// `a=setup:` (RFC 4145 §4, RFC 5763 §5): who opens the DTLS association. `active` sends the ClientHello (DTLS
    /// client), `passive` waits for it (DTLS server); an offer says `actpass` and the answer picks.
    public enum SetupRole: String, Sendable, Hashable {
        case active
        case passive
        case actpass
        case holdconn
    }

    /// The DTLS role a setup attribute gives its writer once negotiated.
    public enum DTLSRole: String, Sendable, Hashable {
        /// Sends the ClientHello (`a=setup:active`).
        case client
        /// Answers it (`a=setup:passive`).
        case server
    }

    /// `a=candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> [raddr <a>]
    /// [rport <p>] *(<name> <value>)` (RFC 8839 §5.1). The address may be an mDNS `.local` name, so it stays text.
    public struct Candidate: Sendable, Hashable {
        public var foundation: String
        /// 1 for RTP (the only one with rtcp-mux).
        public var component: Int
        /// "udp" (lower-cased) or "tcp".
        public var transport: String
        public var priority: UInt32
        public var address: String
        public var port: UInt16
        /// "host", "srflx", "prflx", "relay".
        public var type: String
        public var relatedAddress: String?
        public var relatedPort: UInt16?
        /// Extension pairs (generation, ufrag, network-id, tcptype…), in order.
        public var extensions: [Attribute]

        public init(foundation: String, component: Int = 1, transport: String = "udp", priority: UInt32, address: String,
                    port: UInt16, type: String = "host", relatedAddress: String? = nil, relatedPort: UInt16? = nil,
                    extensions: [Attribute] = []) {
            self.foundation = foundation
            self.component = component
            self.transport = transport
            self.priority = priority
            self.address = address
            self.port = port
            self.type = type
            self.relatedAddress = relatedAddress
            self.relatedPort = relatedPort
            self.extensions = extensions
        }

        /// The priority RFC 8445 §5.1.2.1 gives a host candidate: (2^24)·126 + (2^8)·localPreference + (256 − component).
        public static func hostPriority(localPreference: UInt16 = 65_535, component: Int = 1) -> UInt32 {
            // 126 << 24 + 65535 << 8 + 255 = 2_130_706_431 < 2^32: cannot overflow.
            126 << 24 + UInt32(localPreference) << 8 + UInt32(256 - min(max(component, 1), 256))
        }

        /// Parses the attribute value (after `candidate:`); nil when a field is missing or not a number.
        init?(attributeValue value: Substring) {
            let fields = value.sdpFields
            guard fields.count >= 8, fields[6] == "typ", let component = Int(fields[1]), (1 ... 256).contains(component),
                  let priority = UInt32(fields[3]), let port = UInt16(fields[5]) else { return nil }
            self.init(foundation: String(fields[0]), component: component, transport: fields[2].lowercased(),
                      priority: priority, address: String(fields[4]), port: port, type: String(fields[7]))
            var rest = fields[8...]
            while let name = rest.popFirst() {
                guard let value = rest.popFirst() else { return nil }  // extensions come in name-value pairs
                switch name {
                case "raddr": relatedAddress = String(value)
                case "rport":
                    guard let port = UInt16(value) else { return nil }
                    relatedPort = port
                default: extensions.append(Attribute(String(name), String(value)))
                }
            }
        }

        /// The attribute value (after `candidate:`).
        public var attributeValue: String {
            var text = "\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(type)"
            if let relatedAddress { text += " raddr \(relatedAddress)" }
            if let relatedPort { text += " rport \(relatedPort)" }
            for pair in extensions { text += " \(pair.name) \(pair.value ?? "")" }
            return text
        }
    }
}

extension StringProtocol {
    /// The space-separated fields of an SDP value; runs of spaces and tabs count as one (lenient, as browsers are).
    var sdpFields: [SubSequence] { split(whereSeparator: { $0 == " " || $0 == "\t" }) }
}
