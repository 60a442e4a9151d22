/// A WHIP server's answer to rtenc's offer, checked against it: which payload type, which DTLS role we take, the
/// server's ICE credentials, candidates and fingerprints (design/webrtc.md §6.3).
///
/// Refused (`.unacceptable`): no answer to our video section, a rejected one (port 0), a direction that does not
/// receive, no rtcp-mux, no ICE credentials or fingerprint, a setup role an answer may not take (`actpass`,
/// `holdconn`). `.noCompatibleCodec`: a payload type we did not offer, or H.264 not in packetization-mode 1.
/// Tolerated with a warning: sendrecv (we only send), no BUNDLE group (one section), no setup attribute (RFC 4145:
/// active), no candidates (only peer-reflexive ones can then be learnt). RTX (RFC 4588) is used when the answer keeps
/// our `rtx` payload type with `apt` naming our video's; an answer without it (or with another apt) only leaves RTX out.
/// Header extensions are used with the id the answer gives them, and only those we offered (RFC 8285 §6): an answer
/// without our playout-delay leaves it out.
public struct WHIPAnswer: Sendable, Hashable {
    public var description: WebRTCSDP.Description
    public var video: WebRTCSDP.NegotiatedVideo
    public var remote: WebRTCSDP.RemoteTransport
    public var warnings: [String]

    public init(answerText: String, offer: WHIPOffer) throws(WebRTCError) {
        try self.init(answer: WebRTCSDP.Description(parsing: answerText), offer: offer)
    }

    public init(answer: WebRTCSDP.Description, offer: WHIPOffer) throws(WebRTCError) {
        var warnings: [String] = []
        guard let section = answer.media.first(where: { $0.mid == offer.mid })
            ?? (answer.media.count == 1 && answer.media[0].mid == nil ? answer.media[0] : nil) else {
            throw .make(.unacceptable, "the answer has no section for our video (mid \(offer.mid))")
        }
        guard section.port != 0 else { throw .make(.unacceptable, "the server rejected our video (m=video 0): it takes none of it") }
        switch section.direction {
        case .recvonly: break
        case .sendrecv: warnings.append("the answer's video is sendrecv; rtenc only sends")
        case .sendonly, .inactive:
            throw .make(.unacceptable, "the answer's video is \(section.direction.rawValue): the server does not receive what we "
                                + "offered (sendonly)")
        }
        if let bundle = answer.bundle {
            guard bundle.contains(offer.mid) else { throw .make(.unacceptable, "the answer's BUNDLE group does not hold our mid \(offer.mid)") }
        } else {
            warnings.append("the answer has no a=group:BUNDLE (one section, so one transport anyway)")
        }
        guard section.rtcpMux else {
            throw .make(.unacceptable, "the answer has no a=rtcp-mux; rtenc sends RTP and RTCP on one port (RFC 5761)")
        }
        let remote = try WebRTCSDP.remoteTransport(of: section, in: answer, role: "answer")
        let role: WebRTCSDP.DTLSRole
        switch section.setup {
        case .active: role = .server
        case .passive: role = .client
        case nil:
            role = .server
            warnings.append("the answer has no a=setup; taking it as active (RFC 4145 §4), so rtenc is the DTLS server")
        case .actpass, .holdconn:
            throw .make(.unacceptable, "the answer says a=setup:\(section.setup!.rawValue); an answer must say active or passive (RFC 5763 §5)")
        }
        let ours = offer.section.codecs[0]
        guard let answered = section.formats.lazy.compactMap({ UInt8($0) }).compactMap(section.codec(payloadType:)).first(where: {
            $0.payloadType == ours.payloadType && $0.isEncoding(ours.encodingName)
        }) else {
            throw .make(.noCompatibleCodec, "the answer does not accept our \(ours.encodingName) payload type \(ours.payloadType) "
                                     + "(it answers \(section.formats.joined(separator: " ")))")
        }
        if answered.isEncoding("H264") {
            if answered.parameters.isEmpty {
                warnings.append("the answer's H.264 has no fmtp; taking it as our packetization-mode=1")
            } else if answered.packetizationMode != 1 {
                let mode = answered.parameters["packetization-mode"] ?? "0 (absent)"
                throw .make(.noCompatibleCodec, "the answer's H.264 has packetization-mode=\(mode); "
                                         + "rtenc sends FU-A and STAP-A (packetization-mode=1)")
            }
        }
        if case .hevc = offer.encoding {
            // RFC 7798 §7.2.2: the answer keeps our profile and tier, and its level-id (or max-recv-level-id) is the
            // highest level the server receives. The encoder is running already, so a stream above it is refused.
            warnings += try WebRTCSDP.selectCodec(from: [answered], for: offer.encoding, side: "answer").get().warnings
        }
        if remote.candidates.isEmpty {
            warnings.append("the answer has no candidates; only a server that sends checks can be reached")
        }
        let feedback = ours.feedback.filter(answered.feedback.contains)
        func answeredID(_ uri: String) -> UInt16? {
            guard offer.section.extmaps.contains(where: { $0.uri == uri }) else { return nil }
            return section.extmapID(uri)
        }
        // Our rtx payload type, kept for our video payload type (RFC 4588 §8.6), or no RTX at all.
        let retransmission = offer.retransmission.flatMap { ours -> WebRTCSDP.NegotiatedRetransmission? in
            guard let rtx = section.codec(payloadType: ours.payloadType),
                  rtx.associatedPayloadType == answered.payloadType else { return nil }
            return ours
        }
        description = answer
        video = WebRTCSDP.NegotiatedVideo(
            mid: offer.mid, payloadType: answered.payloadType, codec: answered, feedback: feedback,
            absSendTimeID: answeredID(WebRTCSDP.Extmap.absSendTimeURI), midExtensionID: answeredID(WebRTCSDP.Extmap.sdesMidURI),
            transportCCExtensionID: answeredID(WebRTCSDP.Extmap.transportWideCCURI), rtcpReducedSize: section.rtcpRsize,
            dtlsRole: role, retransmission: retransmission, playoutDelayID: answeredID(WebRTCSDP.Extmap.playoutDelayURI))
        self.remote = remote
        self.warnings = warnings
    }
}
