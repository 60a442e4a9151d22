extension WebRTCSDP {
    /// The direction attributes (RFC 3264 §5.1; RFC 8866 §6.7), from the writer's point of view.
    public enum Direction: String, Sendable, Hashable {
        case sendrecv
        case sendonly
        case recvonly
        case inactive

        /// The direction an answer to this one may take (RFC 3264 §6.1), when the answerer does all it can.
        public var reversed: Direction {
            switch self {
            case .sendonly: .recvonly
            case .recvonly: .sendonly
            case .sendrecv, .inactive: self
            }
        }
    }

    /// One payload type: its `a=rtpmap` (RFC 8866 §6.6), `a=fmtp` (§6.15) and `a=rtcp-fb` lines (RFC 4585 §4.2).
    public struct Codec: Sendable, Hashable {
        public var payloadType: UInt8
        /// As written: "H264", "H265", "VP8", "rtx"… Compare with `isEncoding(_:)`, which ignores case.
        public var encodingName: String
        public var clockRate: UInt32
        /// The channel count after a second slash (audio), if written.
        public var channels: Int?
        public var parameters: FormatParameters
        public var feedback: [Feedback]

        public init(payloadType: UInt8, encodingName: String, clockRate: UInt32 = 90_000, channels: Int? = nil,
                    parameters: FormatParameters = .init(), feedback: [Feedback] = []) {
            self.payloadType = payloadType
            self.encodingName = encodingName
            self.clockRate = clockRate
            self.channels = channels
            self.parameters = parameters
            self.feedback = feedback
        }

        /// Whether the encoding name is `name`; media type names are case-insensitive (RFC 4855 §3).
        public func isEncoding(_ name: String) -> Bool { encodingName.lowercased() == name.lowercased() }

        /// RFC 4588 §8.6: an `rtx` payload type names the payload type it retransmits in `apt`.
        public var associatedPayloadType: UInt8? {
            isEncoding("rtx") ? parameters["apt"].flatMap { UInt8($0) } : nil
        }

        /// H.264's packetization-mode, 0 when absent (RFC 6184 §8.1); nil for other codecs or a value that is not
        /// a number.
        public var packetizationMode: Int? {
            guard isEncoding("H264") else { return nil }
            guard let value = parameters["packetization-mode"] else { return 0 }
            return Int(value)
        }

        /// `a=rtpmap` value: `<pt> <name>/<clock rate>[/<channels>]`.
        var rtpmapValue: String {
            "\(payloadType) \(encodingName)/\(clockRate)" + (channels.map { "/\($0)" } ?? "")
        }
    }

    /// An fmtp parameter list (`key=value;key=value`, RFC 8866 §6.15 leaves its syntax to the media type), kept in
    /// the writer's order and spelling so that an answer can echo it byte for byte. Keys compare without case.
    public struct FormatParameters: Sendable, Hashable, ExpressibleByDictionaryLiteral {
        /// key = value pairs; a part without "=" (VP8's "x-google-…" flags, telephone-event's "0-15") has a nil value.
        public var pairs: [(key: String, value: String?)]

        public init(pairs: [(key: String, value: String?)] = []) { self.pairs = pairs }

        public init(dictionaryLiteral elements: (String, String)...) {
            pairs = elements.map { (key: $0.0, value: $0.1) }
        }

        /// Parses `a; b=c; …` (spaces around parts are trimmed).
        public init(parsing text: some StringProtocol) {
            pairs = text.split(separator: ";").compactMap { part in
                let trimmed = part.trimmingSDPSpaces
                guard !trimmed.isEmpty else { return nil }
                guard let equals = trimmed.firstIndex(of: "=") else { return (key: String(trimmed), value: nil) }
                return (key: String(trimmed[..<equals].trimmingSDPSpaces),
                        value: String(trimmed[trimmed.index(after: equals)...].trimmingSDPSpaces))
            }
        }

        /// The value of the first `key` (any case).
        public subscript(key: String) -> String? {
            let lowered = key.lowercased()
            return pairs.first { $0.key.lowercased() == lowered }?.value ?? nil
        }

        public var isEmpty: Bool { pairs.isEmpty }

        /// These parameters with `key` (any case) set to `value`: the first such pair replaced where it was, or one
        /// added at the end.
        public func setting(_ key: String, to value: String) -> Self {
            var copy = self
            let lowered = key.lowercased()
            if let index = copy.pairs.firstIndex(where: { $0.key.lowercased() == lowered }) {
                copy.pairs[index].value = value
            } else {
                copy.pairs.append((key: key, value: value))
            }
            return copy
        }

        /// `key=value;key=value`, as written.
        public var text: String {
            pairs.map { pair in pair.value.map { "\(pair.key)=\($0)" } ?? pair.key }.joined(separator: ";")
        }

        public static func == (a: Self, b: Self) -> Bool { a.text == b.text }
        public func hash(into hasher: inout Hasher) { hasher.combine(text) }
    }

    /// `a=rtcp-fb:<pt> <type> [<parameter>]` (RFC 4585 §4.2): "nack", "nack pli", "ccm fir", "goog-remb",
    /// "transport-cc".
    public struct Feedback: Sendable, Hashable, CustomStringConvertible {
        public var type: String
        public var parameter: String?

        public init(_ type: String, _ parameter: String? = nil) {
            self.type = type
            self.parameter = parameter
        }

        public static let nack = Feedback("nack")
        public static let pictureLossIndication = Feedback("nack", "pli")
        public static let fullIntraRequest = Feedback("ccm", "fir")
        public static let receiverEstimatedMaximumBitrate = Feedback("goog-remb")
        public static let transportCC = Feedback("transport-cc")

        public var description: String { parameter.map { "\(type) \($0)" } ?? type }
    }

    /// `a=extmap:<id>[/<direction>] <uri> [<attributes>]` (RFC 8285 §8).
    public struct Extmap: Sendable, Hashable {
        /// 1–14 fit the one-byte header, 1–255 the two-byte one (RFC 8285 §4.2, §4.3).
        public var id: UInt16
        public var direction: Direction?
        public var uri: String
        public var attributes: String?

        public init(id: UInt16, direction: Direction? = nil, uri: String, attributes: String? = nil) {
            self.id = id
            self.direction = direction
            self.uri = uri
            self.attributes = attributes
        }

        /// The header extensions rtenc negotiates, by URI.
        public static let absSendTimeURI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
        public static let sdesMidURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
        public static let transportWideCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
        public static let playoutDelayURI = "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"

        var attributeValue: String {
            "\(id)" + (direction.map { "/\($0.rawValue)" } ?? "") + " \(uri)" + (attributes.map { " \($0)" } ?? "")
        }
    }

    /// `a=ssrc:<ssrc> <attribute>[:<value>]` (RFC 5576 §4.1): "cname", "msid"…
    public struct SSRCAttribute: Sendable, Hashable {
        public var ssrc: UInt32
        public var name: String
        public var value: String?

        public init(ssrc: UInt32, name: String, value: String? = nil) {
            self.ssrc = ssrc
            self.name = name
            self.value = value
        }

        var attributeValue: String { "\(ssrc) \(name)" + (value.map { ":\($0)" } ?? "") }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSDPSpaces: SubSequence {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first ... last]
    }
}
