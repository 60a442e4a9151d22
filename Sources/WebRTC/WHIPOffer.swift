import Bitstream

/// rtenc's offer to a WHIP server (design/webrtc.md §6.3): what the WHEP answer carries, but rtenc offers — sendonly,
/// `a=setup:actpass` (the server picks the DTLS role), full ICE (no `a=ice-lite`), our host candidates and
/// `a=end-of-candidates` (no trickle), one payload type:
///
///     m=video <port> UDP/TLS/RTP/SAVPF 96
///     a=rtpmap:96 H264/90000
///     a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
///     (HEVC: a=rtpmap:96 H265/90000, a=fmtp:96 profile-id=1;tier-flag=0;level-id=93)
///     a=rtcp-fb:96 nack / nack pli / ccm fir / goog-remb (and transport-cc when asked for)
///     a=extmap: abs-send-time (and transport-wide-cc when asked for), sdes:mid, playout-delay when asked for
///       (`LocalParameters.playoutDelay`: the server's player renders each frame as soon as it is decoded)
///     with an RTX SSRC (`LocalParameters.rtxSSRC`): 97 on the m= line too, a=rtpmap:97 rtx/90000, a=fmtp:97 apt=96,
///     a=ssrc:<rtx ssrc> cname: / msid:, a=ssrc-group:FID <ssrc> <rtx ssrc> (RFC 4588: the retransmission stream
///     NACKs are answered on and a controller's probes are sent on)
///
/// Asked for transport-cc, the offer lists it beside REMB, as Chromium's offers do: the server's answer keeps what it
/// supports (aiortc keeps REMB only), and `WHIPAnswer` reports what was kept.
///
/// One codec only, the encoder's: libwebrtc offers H.265 and H.264 side by side, but rtenc's encoder is open (its first
/// frame made the SPS the offer describes) before the answer arrives, so a server that chose the other codec could
/// not be served; it refuses or rejects the one offered instead, and the caller says which `--codec` to try.
///
/// Constrained Baseline is written `42e01f` (constraint_set0–2), as browsers, pion and MediaMTX write it; byte
/// matchers (pion, SRS) refuse rtenc's plain-RTP `42c01f` (design/webrtc.md §4).
public struct WHIPOffer: Sendable, Hashable {
    public var description: WebRTCSDP.Description
    /// The one section's mid ("0") and payload type.
    public var mid: String
    public var payloadType: UInt8
    public var encoding: WebRTCSDP.VideoEncoding
    public var transportCC: Bool
    /// The playout-delay extension is offered (the answer says whether the server takes it).
    public var playoutDelay: Bool
    /// The RTX stream we offer (its payload type the one after the video's, or 126 when that is 127), or nil.
    public var retransmission: WebRTCSDP.NegotiatedRetransmission?

    /// The header extension ids we offer (RFC 8285 one-byte ids, as Chromium numbers them).
    public static let absSendTimeID: UInt16 = 2
    public static let transportCCExtensionID: UInt16 = 4
    public static let midExtensionID: UInt16 = 9
    public static let playoutDelayID: UInt16 = 5

    /// The offer as SDP text (CRLF).
    public var text: String { description.text }

    /// - Throws: `.invalidLocalParameters` for local values SDP cannot carry, or a payload type outside the dynamic
    ///   range 96–127.
    public init(encoding: WebRTCSDP.VideoEncoding, local: WebRTCSDP.LocalParameters, payloadType: UInt8 = 96)
        throws(WebRTCError)
    {
        let local = try local.validated()
        guard (96 ... 127).contains(payloadType) else {
            throw .make(.invalidLocalParameters, "payload type \(payloadType) is not a dynamic one (96–127, RFC 3551 §6)")
        }
        let parameters: WebRTCSDP.FormatParameters
        switch encoding {
        case .h264(let profile, let level):
            parameters = ["level-asymmetry-allowed": "1", "packetization-mode": "1",
                          "profile-level-id": H264.ProfileLevelID(profile: profile, level: level).hexString]
        case .hevc(let hevc):
            parameters = .init(parsing: hevc.fmtp)
        }
        let retransmission = local.rtxSSRC.map {
            WebRTCSDP.NegotiatedRetransmission(payloadType: payloadType == 127 ? 126 : payloadType + 1, ssrc: $0)
        }
        let codec = WebRTCSDP.Codec(payloadType: payloadType, encodingName: encoding.encodingName, parameters: parameters,
                                    feedback: WebRTCSDP.ourFeedback(transportCC: false) + (local.transportCC ? [.transportCC] : []))
        let extmaps: [WebRTCSDP.Extmap] = [.init(id: Self.absSendTimeID, uri: WebRTCSDP.Extmap.absSendTimeURI)]
            + (local.transportCC ? [.init(id: Self.transportCCExtensionID, uri: WebRTCSDP.Extmap.transportWideCCURI)] : [])
            + [.init(id: Self.midExtensionID, uri: WebRTCSDP.Extmap.sdesMidURI)]
            + (local.playoutDelay ? [.init(id: Self.playoutDelayID, uri: WebRTCSDP.Extmap.playoutDelayURI)] : [])
        let mid = "0"
        let destination = local.defaultDestination
        let section = WebRTCSDP.MediaSection(
            kind: "video", port: destination.port, formats: ["\(payloadType)"] + (retransmission.map { ["\($0.payloadType)"] } ?? []),
            connection: destination.connection, mid: mid,
            direction: .sendonly, rtcpMux: true, rtcpRsize: true, iceUfrag: local.iceUfrag, icePwd: local.icePwd,
            fingerprints: [local.fingerprint], setup: .actpass, candidates: local.sdpCandidates, endOfCandidates: true,
            codecs: [codec] + (retransmission.map { [$0.codec(retransmitting: codec)] } ?? []), extmaps: extmaps,
            msid: "\(local.streamID) \(local.trackID)", ssrcAttributes: local.ssrcAttributes(rtx: retransmission?.ssrc),
            otherAttributes: retransmission.map { [$0.ssrcGroup(media: local.ssrc)] } ?? [])
        description = WebRTCSDP.Description(
            origin: .init(sessionID: "\(local.sessionID)"), groups: [.init(semantics: "BUNDLE", mids: [mid])],
            msidSemantic: "WMS *", media: [section])
        self.mid = mid
        self.payloadType = payloadType
        self.encoding = encoding
        transportCC = local.transportCC
        playoutDelay = local.playoutDelay
        self.retransmission = retransmission
    }

    /// Our one offered section.
    var section: WebRTCSDP.MediaSection { description.media[0] }
}
