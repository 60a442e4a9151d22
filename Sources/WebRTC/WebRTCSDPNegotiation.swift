extension WebRTCSDP {
    /// What an offer/answer exchange settled for the one video stream: enough for the transport and the RTP sender.
    public struct NegotiatedVideo: Sendable, Hashable {
        /// The BUNDLE tag: the one media section's mid (also sent in the sdes:mid header extension when negotiated).
        public var mid: String
        public var payloadType: UInt8
        /// The codec as the offerer wrote it (its fmtp is echoed in the answer).
        public var codec: Codec
        /// RTCP feedback both sides use for `payloadType`.
        public var feedback: [Feedback]
        /// Header extension ids both sides use; nil when not negotiated.
        public var absSendTimeID: UInt16?
        public var midExtensionID: UInt16?
        public var transportCCExtensionID: UInt16?
        /// The peer sends reduced-size RTCP (RFC 5506).
        public var rtcpReducedSize: Bool
        /// Our DTLS role.
        public var dtlsRole: DTLSRole
        /// The RFC 4588 retransmission stream, when both sides want one (NACKs and probe padding go out on it).
        public var retransmission: NegotiatedRetransmission? = nil
        /// The playout-delay extension's id, when we asked for it (`LocalParameters.playoutDelay`) and the offer has it.
        public var playoutDelayID: UInt16? = nil
    }

    /// The peer's transport values, from its offer or answer.
    public struct RemoteTransport: Sendable, Hashable {
        public var iceUfrag: String
        public var icePwd: String
        /// The peer is ICE-lite (RFC 8445 §2.5): it answers checks but sends none.
        public var iceLite: Bool
        /// The peer's certificate must match one of these (RFC 8122 §5).
        public var fingerprints: [Fingerprint]
        public var candidates: [Candidate]
        public var endOfCandidates: Bool
    }

    /// The feedback we use with the peer, in our order: NACK, PLI, FIR, and REMB — or transport-cc instead of REMB
    /// when asked for. Never both (design/webrtc.md trap 9).
    static func ourFeedback(transportCC: Bool) -> [Feedback] {
        [.nack, .pictureLossIndication, .fullIntraRequest] + (transportCC ? [.transportCC] : [.receiverEstimatedMaximumBitrate])
    }

    /// The header extensions we use, by URI: abs-send-time goes with REMB, transport-wide-cc with transport-cc; and
    /// playout-delay when asked for.
    static func ourExtensionURIs(transportCC: Bool, playoutDelay: Bool = false) -> [String] {
        [Extmap.sdesMidURI, transportCC ? Extmap.transportWideCCURI : Extmap.absSendTimeURI] + (playoutDelay ? [Extmap.playoutDelayURI] : [])
    }

    /// The remote transport of a section: ICE credentials and at least one fingerprint are required.
    static func remoteTransport(of section: MediaSection, in description: Description, role: String)
        throws(WebRTCError) -> RemoteTransport
    {
        guard let ufrag = section.iceUfrag, let pwd = section.icePwd else {
            throw .make(.unacceptable, "the \(role) has no a=ice-ufrag/a=ice-pwd for its video section: ICE (RFC 8839) needs them")
        }
        guard isICEUfrag(ufrag), isICEPwd(pwd) else {
            throw .make(.unacceptable, "the \(role)'s ICE credentials are not 4+ and 22+ of A–Z a–z 0–9 + / (RFC 8839 §5.4): "
                                + "ufrag \"\(ufrag.prefix(40))\", a password of \(pwd.utf8.count) characters")
        }
        guard !section.fingerprints.isEmpty else {
            throw .make(.unacceptable, "the \(role) has no a=fingerprint: DTLS-SRTP (RFC 5763) cannot check the peer's certificate without one")
        }
        return RemoteTransport(iceUfrag: ufrag, icePwd: pwd, iceLite: description.iceLite, fingerprints: section.fingerprints,
                               candidates: section.candidates, endOfCandidates: section.endOfCandidates)
    }
}
