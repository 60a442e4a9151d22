/// WebRTC's SDP (RFC 8866 syntax with the attributes of RFC 8829 JSEP): a typed model that parses what browsers write
/// and writes what they read, and the offer/answer built on it (`WHEPAnswer`, `WHIPOffer`, `WHIPAnswer`).
///
/// Richer than the plain RTP SDP of `RTP.SessionDescription` (one payload type, a port per stream): BUNDLE, rtcp-mux,
/// ICE and DTLS attributes, several payload types each with its fmtp and rtcp-fb, header extensions.
public enum WebRTCSDP {
    /// Bounds for hostile input, each with its reason.
    public enum Limits {
        /// The whole text, in UTF-8 bytes: the same 64 KiB the WHIP/WHEP endpoint caps request bodies at. Chromium
        /// 156's offer with every codec is 5 KiB.
        public static let maxBytes = 65_536
        /// m= sections: a browser writes one per transceiver; 64 is far above any single-stream WHEP/WHIP session.
        public static let maxMediaSections = 64
    }

    /// A whole session description: the session-level part and its media sections in order.
    public struct Description: Sendable, Hashable {
        /// `o=`; a description without one reads as `o=- 0 2 IN IP4 127.0.0.1`.
        public var origin: Origin
        /// `s=`; "-" when there is nothing to say (JSEP §5.2.1).
        public var sessionName: String
        /// A session-level `c=`, the default for media sections without one.
        public var connection: Connection?
        /// `a=group:` lines (RFC 5888), e.g. BUNDLE (RFC 8843).
        public var groups: [Group]
        /// `a=ice-lite` (RFC 8839 §5.3): the agent that wrote this only answers checks.
        public var iceLite: Bool
        /// `a=msid-semantic:` (e.g. "WMS" or "WMS *"), kept as written.
        public var msidSemantic: String?
        /// `a=extmap-allow-mixed` (RFC 8285 §6): one-byte and two-byte header extensions may be mixed.
        public var extmapAllowMixed: Bool
        /// Session-level ICE and DTLS attributes: the defaults of every media section (RFC 8839 §5.4, RFC 8122 §5).
        /// The parser copies them into each section that has none of its own.
        public var iceUfrag: String?
        public var icePwd: String?
        public var iceOptions: [String]
        public var fingerprints: [Fingerprint]
        public var setup: SetupRole?
        /// A session-level direction attribute, the default for media sections without one.
        public var direction: Direction?
        /// Every other session-level attribute, in order (unknown attributes are kept, never an error).
        public var otherAttributes: [Attribute]
        public var media: [MediaSection]

        public init(
            origin: Origin = Origin(sessionID: "0"), sessionName: String = "-", connection: Connection? = nil, groups: [Group] = [],
            iceLite: Bool = false, msidSemantic: String? = nil, extmapAllowMixed: Bool = false, iceUfrag: String? = nil,
            icePwd: String? = nil, iceOptions: [String] = [], fingerprints: [Fingerprint] = [], setup: SetupRole? = nil,
            direction: Direction? = nil, otherAttributes: [Attribute] = [], media: [MediaSection] = []
        ) {
            self.origin = origin
            self.sessionName = sessionName
            self.connection = connection
            self.groups = groups
            self.iceLite = iceLite
            self.msidSemantic = msidSemantic
            self.extmapAllowMixed = extmapAllowMixed
            self.iceUfrag = iceUfrag
            self.icePwd = icePwd
            self.iceOptions = iceOptions
            self.fingerprints = fingerprints
            self.setup = setup
            self.direction = direction
            self.otherAttributes = otherAttributes
            self.media = media
        }

        /// The mids of the first `a=group:BUNDLE` (RFC 8843 §7.1); nil without one.
        public var bundle: [String]? { groups.first { $0.semantics == "BUNDLE" }?.mids }
    }

    /// One m= section with the attributes WebRTC uses typed, and the rest kept.
    public struct MediaSection: Sendable, Hashable {
        /// "video", "audio", "application"…
        public var kind: String
        /// 0 marks a rejected (or bundled-only) section (RFC 8843 §7.3).
        public var port: UInt16
        /// "UDP/TLS/RTP/SAVPF" in WebRTC.
        public var proto: String
        /// The format list of the m= line in order: payload types for RTP, "webrtc-datachannel" for data.
        public var formats: [String]
        public var connection: Connection?
        public var mid: String?
        /// sendrecv when the section (and the session) says nothing (RFC 3264 §5.1).
        public var direction: Direction
        public var rtcpMux: Bool
        /// `a=rtcp-rsize` (RFC 5506): reduced-size RTCP (a lone NACK or PLI) may come.
        public var rtcpRsize: Bool
        public var iceUfrag: String?
        public var icePwd: String?
        public var iceOptions: [String]
        public var fingerprints: [Fingerprint]
        public var setup: SetupRole?
        public var candidates: [Candidate]
        /// `a=end-of-candidates` (RFC 8840 §8.2): no more candidates will come for this section.
        public var endOfCandidates: Bool
        /// rtpmap, fmtp and rtcp-fb gathered per payload type, in the order of the m= line.
        public var codecs: [Codec]
        public var extmaps: [Extmap]
        /// `a=msid:<stream id> [<track id>]` (RFC 8830), kept as written.
        public var msid: String?
        /// `a=ssrc:<ssrc> <attribute>[:<value>]` lines (RFC 5576), in order.
        public var ssrcAttributes: [SSRCAttribute]
        /// Every other attribute of the section, in order.
        public var otherAttributes: [Attribute]

        public init(
            kind: String, port: UInt16 = 9, proto: String = "UDP/TLS/RTP/SAVPF", formats: [String] = [],
            connection: Connection? = nil, mid: String? = nil, direction: Direction = .sendrecv, rtcpMux: Bool = false,
            rtcpRsize: Bool = false, iceUfrag: String? = nil, icePwd: String? = nil, iceOptions: [String] = [],
            fingerprints: [Fingerprint] = [], setup: SetupRole? = nil, candidates: [Candidate] = [],
            endOfCandidates: Bool = false, codecs: [Codec] = [], extmaps: [Extmap] = [], msid: String? = nil,
            ssrcAttributes: [SSRCAttribute] = [], otherAttributes: [Attribute] = []
        ) {
            self.kind = kind
            self.port = port
            self.proto = proto
            self.formats = formats
            self.connection = connection
            self.mid = mid
            self.direction = direction
            self.rtcpMux = rtcpMux
            self.rtcpRsize = rtcpRsize
            self.iceUfrag = iceUfrag
            self.icePwd = icePwd
            self.iceOptions = iceOptions
            self.fingerprints = fingerprints
            self.setup = setup
            self.candidates = candidates
            self.endOfCandidates = endOfCandidates
            self.codecs = codecs
            self.extmaps = extmaps
            self.msid = msid
            self.ssrcAttributes = ssrcAttributes
            self.otherAttributes = otherAttributes
        }

        /// The codec of payload type `payloadType`, if the section maps it.
        public func codec(payloadType: UInt8) -> Codec? { codecs.first { $0.payloadType == payloadType } }

        /// The id the section gives the header extension `uri`, if it offers it.
        public func extmapID(_ uri: String) -> UInt16? { extmaps.first { $0.uri == uri }?.id }
    }
}
