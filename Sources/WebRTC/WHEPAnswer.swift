/// rtenc's answer to a WHEP player's offer (design/webrtc.md §6.2 steps 1–2): rtenc sends, ICE-lite, DTLS client
/// (`a=setup:active`) unless the offer decides otherwise.
///
/// The offer must carry a BUNDLE group, a video section that receives (recvonly or sendrecv) with a mid in that
/// group, rtcp-mux, ICE credentials, a DTLS fingerprint, a setup role we can answer, and a payload type that carries
/// the encoder's stream (`WebRTCSDP.selectCodec`). The answer then has, in the JSEP order:
///
///     a=ice-lite, a=group:BUNDLE <mid>, a=msid-semantic: WMS *
///     m=video <port> UDP/TLS/RTP/SAVPF <pt>                  c=IN IP4 <address>  (the first candidate, or 9 / 0.0.0.0)
///     a=mid, a=ice-ufrag, a=ice-pwd, a=fingerprint:sha-256 …, a=setup:active, a=candidate… typ host, a=end-of-candidates
///     a=sendonly, a=rtcp-mux, a=rtcp-rsize (if offered)
///     a=extmap:<offered id> sdes:mid and abs-send-time (transport-wide-cc instead when asked for and offered), if offered
///     a=msid, a=rtpmap:<pt> H264/90000 (or H265/90000), a=fmtp:<pt> <the offered fmtp, echoed; for H.265 with our
///     level-id>, a=rtcp-fb:<pt> nack / nack pli / ccm fir / goog-remb (transport-cc instead when asked for and
///     offered; those offered), a=ssrc:<ssrc> cname: / msid:
///     with an RTX SSRC of ours and an offered `rtx` whose apt is <pt> (RFC 4588): <rtx pt> on the m= line too,
///     a=rtpmap:<rtx pt> rtx/90000, a=fmtp:<rtx pt> apt=<pt>[;rtx-time=<the offer's>], a=ssrc:<rtx ssrc> cname: / msid:,
///     a=ssrc-group:FID <ssrc> <rtx ssrc>
///
/// Every other offered section (audio, data, a second video) is rejected with port 0 (RFC 8829 §5.3.1).
public struct WHEPAnswer: Sendable, Hashable {
    public var description: WebRTCSDP.Description
    public var video: WebRTCSDP.NegotiatedVideo
    /// The player's transport values (its candidates are usually none: an ICE-lite server needs none).
    public var remote: WebRTCSDP.RemoteTransport
    /// What is worth telling the operator but is no reason to refuse (a level above the offered one…).
    public var warnings: [String]

    /// The answer as SDP text (CRLF).
    public var text: String { description.text }

    /// Parses `offerText` and answers it.
    /// - Throws: `WebRTCError`: `.malformed`/`.limitExceeded` for text that is not SDP, `.unacceptable` or
    ///   `.noCompatibleCodec` (the reason says why and what would work) for an offer rtenc cannot answer,
    ///   `.invalidLocalParameters` for bad local values.
    public init(offerText: String, encoding: WebRTCSDP.VideoEncoding, local: WebRTCSDP.LocalParameters,
                preferredRole: WebRTCSDP.DTLSRole = .client) throws(WebRTCError) {
        try self.init(offer: WebRTCSDP.Description(parsing: offerText), encoding: encoding, local: local,
                      preferredRole: preferredRole)
    }

    /// Answers a parsed offer. `preferredRole` is ours when the offer leaves the choice to us (`actpass`): the DTLS
    /// client by default, so rtenc sends the ClientHello and never has to parse a browser's (design/webrtc.md trap 3).
    public init(offer: WebRTCSDP.Description, encoding: WebRTCSDP.VideoEncoding, local: WebRTCSDP.LocalParameters,
                preferredRole: WebRTCSDP.DTLSRole = .client) throws(WebRTCError) {
        let local = try local.validated()
        guard let bundle = offer.bundle else {
            throw .make(.unacceptable, "the offer has no a=group:BUNDLE; rtenc sends everything on one transport (RFC 8843), "
                                + "as every browser offers")
        }
        let videos = offer.media.indices.filter { offer.media[$0].kind == "video" && offer.media[$0].port != 0 }
        guard !videos.isEmpty else {
            let kinds = offer.media.map(\.kind)
            throw .make(.unacceptable, "the offer has no video section (m=video) to send to (its sections: "
                                + (kinds.isEmpty ? "none" : kinds.joined(separator: ", ")) + ")")
        }
        guard let index = videos.first(where: { [.recvonly, .sendrecv].contains(offer.media[$0].direction) }) else {
            let direction = offer.media[videos[0]].direction
            throw .make(.unacceptable, "the offer's video is \(direction.rawValue): the offerer does not want to receive video; "
                                + "a WHEP offer is recvonly (or sendrecv)")
        }
        let offered = offer.media[index]
        guard let mid = offered.mid else { throw .make(.unacceptable, "the offer's video section has no a=mid (RFC 8829 §5.2.1)") }
        guard bundle.contains(mid) else {
            throw .make(.unacceptable, "the offer's video section (mid \(mid)) is not in its BUNDLE group (\(bundle.joined(separator: " ")))")
        }
        guard offered.proto.uppercased().hasPrefix("UDP/TLS/RTP/SAVP") else {
            throw .make(.unacceptable, "the offer's video is \(offered.proto), not UDP/TLS/RTP/SAVPF (DTLS-SRTP over UDP)")
        }
        guard offered.rtcpMux else {
            throw .make(.unacceptable, "the offer's video has no a=rtcp-mux; rtenc sends RTP and RTCP on one port (RFC 5761)")
        }
        let remote = try WebRTCSDP.remoteTransport(of: offered, in: offer, role: "offer")
        let (ourSetup, role) = try Self.answerSetup(to: offered.setup, preferred: preferredRole)
        let (codec, codecWarnings) = try WebRTCSDP.selectCodec(from: offered.codecs, for: encoding).get()
        // RTX only when we have an SSRC for it and the offer retransmits the chosen payload type; an offer's rtx for
        // other payload types (Chromium offers one per codec) is not ours to take.
        var retransmission: WebRTCSDP.NegotiatedRetransmission?
        var retransmissionCodec: WebRTCSDP.Codec?
        var rtxWarnings: [String] = []
        if let rtxSSRC = local.rtxSSRC {
            let selection = WebRTCSDP.selectRetransmission(from: offered, for: codec)
            rtxWarnings = selection.warnings
            if let chosen = selection.chosen {
                let negotiated = WebRTCSDP.NegotiatedRetransmission(payloadType: chosen.codec.payloadType, ssrc: rtxSSRC,
                                                                    rtxTime: chosen.rtxTime)
                retransmission = negotiated
                retransmissionCodec = negotiated.codec(retransmitting: codec, encodingName: chosen.codec.encodingName)
            }
        }

        // transport-cc when we want it and the player offers both halves (the feedback on this payload type and the
        // transport-wide sequence number extension); otherwise REMB + abs-send-time, which every player that gives
        // bandwidth feedback without transport-cc offers (aiortc does).
        let transportCC = local.transportCC && codec.feedback.contains(.transportCC)
            && offered.extmaps.contains { $0.uri == WebRTCSDP.Extmap.transportWideCCURI }
        let feedback = WebRTCSDP.ourFeedback(transportCC: transportCC).filter(codec.feedback.contains)
        let extmaps = WebRTCSDP.ourExtensionURIs(transportCC: transportCC, playoutDelay: local.playoutDelay).compactMap { uri in
            offered.extmaps.first { $0.uri == uri }.map { WebRTCSDP.Extmap(id: $0.id, uri: uri) }
        }
        var answered = codec
        answered.feedback = feedback
        if case .hevc(let ours) = encoding {
            // RFC 7798 §7.2.2: the answer's level-id is the level we send, which may be below the offered one (the
            // selection refused an offer whose level is below ours); profile, tier and tx-mode stay as offered.
            answered.parameters = answered.parameters.setting("level-id", to: "\(ours.levelID)")
        }
        let destination = local.defaultDestination
        let section = WebRTCSDP.MediaSection(
            kind: "video", port: destination.port, proto: offered.proto,
            formats: ["\(codec.payloadType)"] + (retransmission.map { ["\($0.payloadType)"] } ?? []),
            connection: destination.connection, mid: mid, direction: .sendonly,
            rtcpMux: true, rtcpRsize: offered.rtcpRsize, iceUfrag: local.iceUfrag, icePwd: local.icePwd,
            fingerprints: [local.fingerprint], setup: ourSetup, candidates: local.sdpCandidates, endOfCandidates: true,
            codecs: [answered] + (retransmissionCodec.map { [$0] } ?? []), extmaps: extmaps,
            msid: "\(local.streamID) \(local.trackID)", ssrcAttributes: local.ssrcAttributes(rtx: retransmission?.ssrc),
            otherAttributes: retransmission.map { [$0.ssrcGroup(media: local.ssrc)] } ?? [])
        var media: [WebRTCSDP.MediaSection] = []
        for (position, other) in offer.media.enumerated() {
            media.append(position == index ? section : Self.rejected(other))
        }
        description = WebRTCSDP.Description(
            origin: .init(sessionID: "\(local.sessionID)"), sessionName: "-", groups: [.init(semantics: "BUNDLE", mids: [mid])],
            iceLite: true, msidSemantic: "WMS *", media: media)
        video = WebRTCSDP.NegotiatedVideo(
            mid: mid, payloadType: codec.payloadType, codec: codec, feedback: feedback,
            absSendTimeID: extmaps.first { $0.uri == WebRTCSDP.Extmap.absSendTimeURI }?.id,
            midExtensionID: extmaps.first { $0.uri == WebRTCSDP.Extmap.sdesMidURI }?.id,
            transportCCExtensionID: extmaps.first { $0.uri == WebRTCSDP.Extmap.transportWideCCURI }?.id,
            rtcpReducedSize: offered.rtcpRsize, dtlsRole: role, retransmission: retransmission,
            playoutDelayID: extmaps.first { $0.uri == WebRTCSDP.Extmap.playoutDelayURI }?.id)
        self.remote = remote
        warnings = codecWarnings + rtxWarnings
    }

    /// Our setup attribute and DTLS role for the offer's (RFC 5763 §5, RFC 8842 §5.3). An absent attribute is
    /// `active` (RFC 4145 §4), so we are passive.
    static func answerSetup(to offered: WebRTCSDP.SetupRole?, preferred: WebRTCSDP.DTLSRole) throws(WebRTCError)
        -> (WebRTCSDP.SetupRole, WebRTCSDP.DTLSRole)
    {
        switch offered ?? .active {
        case .actpass: preferred == .client ? (.active, .client) : (.passive, .server)
        case .active: (.passive, .server)
        case .passive: (.active, .client)
        case .holdconn:
            throw .make(.unacceptable, "the offer says a=setup:holdconn: it wants no DTLS connection yet (RFC 4145 §4)")
        }
    }

    /// A section we do not take: port 0, its formats and mid kept, inactive (RFC 3264 §6, RFC 8829 §5.3.1).
    private static func rejected(_ offered: WebRTCSDP.MediaSection) -> WebRTCSDP.MediaSection {
        WebRTCSDP.MediaSection(kind: offered.kind, port: 0, proto: offered.proto,
                               formats: offered.formats.isEmpty ? ["0"] : offered.formats, connection: WebRTCSDP.Connection(),
                               mid: offered.mid, direction: .inactive)
    }
}
