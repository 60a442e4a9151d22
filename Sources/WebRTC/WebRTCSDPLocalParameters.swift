extension WebRTCSDP {
    /// Our side's values that go into an offer or answer. Everything random (credentials, SSRC, ids) is made by the
    /// caller, which owns the randomness; this module only checks and writes it.
    public struct LocalParameters: Sendable, Hashable {
        /// `a=ice-ufrag`: 4–256 ice-chars (RFC 8839 §5.4: ALPHA / DIGIT / "+" / "/").
        public var iceUfrag: String
        /// `a=ice-pwd`: 22–256 ice-chars.
        public var icePwd: String
        /// The fingerprint of the DTLS certificate we will present (SHA-256 as browsers expect).
        public var fingerprint: Fingerprint
        /// Where we receive: host candidates, in order of preference (the first is also the m= line's default).
        /// Loopback addresses are kept: tests and local players use them.
        public var candidates: [HostCandidate]
        public var ssrc: UInt32
        /// `a=ssrc:<ssrc> cname:` (RFC 7022: a random string per session).
        public var cname: String
        /// `a=msid:<streamID> <trackID>` (RFC 8830).
        public var streamID: String
        public var trackID: String
        /// The o= line's session id (RFC 8866 §5.2: a number, random for a new session).
        public var sessionID: UInt64
        /// Negotiate transport-wide congestion control (transport-cc and its header extension) instead of REMB and
        /// abs-send-time: an offer (WHIP) asks for it; an answer (WHEP) takes it when the offer has both the feedback
        /// and the extension, and falls back to REMB + abs-send-time otherwise. Chrome sends transport-cc feedback
        /// instead of REMB once it is negotiated, so a sender that asks for it must run a controller on it.
        public var transportCC: Bool
        /// The SSRC of our RFC 4588 retransmission stream: an offer (WHIP) offers `rtx` with it, an answer (WHEP)
        /// takes the offer's `rtx` for the chosen payload type with it. Nil: no RTX (NACKed packets are re-sent on
        /// the media SSRC, and a controller's probes cannot be sent).
        public var rtxSSRC: UInt32?
        /// The playout-delay header extension, to send min = max = 0 on it (the player renders each frame as soon as
        /// it is decoded): an offer (WHIP) offers it, an answer (WHEP) takes it when the offer has it.
        public var playoutDelay = false

        public init(iceUfrag: String, icePwd: String, fingerprint: Fingerprint, candidates: [HostCandidate] = [],
                    ssrc: UInt32, cname: String, streamID: String = "rtenc", trackID: String = "video",
                    sessionID: UInt64, transportCC: Bool = false, rtxSSRC: UInt32? = nil) {
            self.iceUfrag = iceUfrag
            self.icePwd = icePwd
            self.fingerprint = fingerprint
            self.candidates = candidates
            self.ssrc = ssrc
            self.cname = cname
            self.streamID = streamID
            self.trackID = trackID
            self.sessionID = sessionID
            self.transportCC = transportCC
            self.rtxSSRC = rtxSSRC
        }

        /// The values checked against what SDP and the RFCs allow.
        func validated() throws(WebRTCError) -> Self {
            guard WebRTCSDP.isICEUfrag(iceUfrag) else {
                throw .make(.invalidLocalParameters, "ice-ufrag \"\(iceUfrag)\" must be 4–256 of A–Z a–z 0–9 + / (RFC 8839 §5.4)")
            }
            guard WebRTCSDP.isICEPwd(icePwd) else {
                throw .make(.invalidLocalParameters, "ice-pwd must be 22–256 of A–Z a–z 0–9 + / (RFC 8839 §5.4), has \(icePwd.utf8.count) characters")
            }
            guard !fingerprint.bytes.isEmpty, Fingerprint.digestLength(of: fingerprint.hashFunction).map({ $0 == fingerprint.bytes.count }) ?? true,
                  fingerprint.hashFunction.isSDPToken else {
                throw .make(.invalidLocalParameters, "fingerprint \(fingerprint) is not a digest of its hash function's length")
            }
            for (name, value) in [("cname", cname), ("stream id", streamID), ("track id", trackID)] {
                guard !value.isEmpty, value.isSDPToken else {
                    throw .make(.invalidLocalParameters, "\(name) \"\(value)\" must be non-empty, without spaces or control characters")
                }
            }
            if let rtxSSRC, rtxSSRC == ssrc {
                throw .make(.invalidLocalParameters, "the RTX SSRC \(rtxSSRC) is the media SSRC; RFC 4588 §4 sends RTX on an SSRC of its own")
            }
            for candidate in candidates where candidate.address.isEmpty || !candidate.address.isSDPToken || candidate.port == 0 {
                throw .make(.invalidLocalParameters, "candidate \(candidate.address):\(candidate.port) needs an address and a port 1…65535")
            }
            return self
        }

        /// The host candidates as SDP candidates: foundation 1, 2… and RFC 8445 host priorities in the given order.
        var sdpCandidates: [Candidate] {
            candidates.enumerated().map { index, host in
                Candidate(foundation: "\(index + 1)", priority: Candidate.hostPriority(localPreference: UInt16(clamping: 65_535 - index)),
                          address: host.address, port: host.port)
            }
        }

        /// `a=ssrc:` cname and msid lines for the media SSRC, then for the RTX SSRC when there is one (RFC 5576).
        func ssrcAttributes(rtx: UInt32?) -> [SSRCAttribute] {
            ([ssrc] + (rtx.map { [$0] } ?? [])).flatMap { ssrc in
                [SSRCAttribute(ssrc: ssrc, name: "cname", value: cname),
                 SSRCAttribute(ssrc: ssrc, name: "msid", value: "\(streamID) \(trackID)")]
            }
        }

        /// The m= line's port and c= line: the first candidate's (JSEP §5.3.1), or 9 and 0.0.0.0 without one.
        var defaultDestination: (port: UInt16, connection: Connection) {
            guard let first = candidates.first else { return (9, Connection()) }
            return (first.port, Connection(address: first.address))
        }
    }

    /// RFC 8839 §5.4: ice-ufrag is 4–256 ice-chars (ALPHA / DIGIT / "+" / "/"), which also keeps the colon of STUN's
    /// USERNAME `<ufrag>:<ufrag>` unambiguous.
    static func isICEUfrag(_ text: String) -> Bool { (4 ... 256).contains(text.utf8.count) && isICEChars(text) }

    /// RFC 8839 §5.4: ice-pwd is 22–256 ice-chars.
    static func isICEPwd(_ text: String) -> Bool { (22 ... 256).contains(text.utf8.count) && isICEChars(text) }

    private static func isICEChars(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a") ... UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A") ... UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        }
    }

    /// A host candidate: a numeric address (IPv4 or IPv6) and a UDP port we receive on.
    public struct HostCandidate: Sendable, Hashable {
        public var address: String
        public var port: UInt16

        public init(address: String, port: UInt16) {
            self.address = address
            self.port = port
        }
    }
}

extension String {
    /// Non-empty visible ASCII or UTF-8 without spaces and control characters: safe as one SDP field.
    var isSDPToken: Bool { !isEmpty && utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F } }
}
