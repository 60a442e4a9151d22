import MediaCore

/// The SDP that describes our H.264 or HEVC stream (RFC 4566, RFC 6184 §8, RFC 7798 §7, RFC 4585 §4.2, RFC 4588 §8):
///
///     v=0
///     o=- <session id> 1 IN IP4 <origin>
///     s=rtenc
///     c=IN IP4 <destination>
///     t=0 0
///     m=video <RTP port> RTP/AVP 96
///     a=rtpmap:96 H264/90000
///     a=fmtp:96 packetization-mode=1;profile-level-id=42c01f;sprop-parameter-sets=<SPS>,<PPS>
///     (HEVC: a=rtpmap:96 H265/90000
///            a=fmtp:96 profile-id=1;tier-flag=0;level-id=93;sprop-vps=<VPS>;sprop-sps=<SPS>;sprop-pps=<PPS>)
///     a=rtcp:<RTCP port>                        (or a=rtcp-mux)
///     a=rtcp-fb:96 nack / nack pli / ccm fir / goog-remb / transport-cc   (a=rtcp-fb:* ack ccfb: RFC 8888)
///     a=extmap:<ID> <URI>                       (header extensions: transport-wide-cc-01, abs-send-time)
///     a=ssrc:<SSRC> cname:<CNAME>
///     a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:<key||salt>   (SRTP: RFC 4568 SDES, with RTP/SAVP on the m= line)
///
/// sprop-parameter-sets (HEVC: sprop-vps/sps/pps) is always written (ffmpeg's muxer leaves it out for live x264, and
/// a receiver that joins between IDRs then cannot decode anything). HEVC is sent without DONL, so
/// sprop-max-don-diff is left at its default of 0 (RFC 7798 §7.1).
public struct SessionDescription: Sendable, Equatable {
    public struct Feedback: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let nack = Feedback(rawValue: 1)
        public static let pictureLossIndication = Feedback(rawValue: 2)
        public static let fullIntraRequest = Feedback(rawValue: 4)
        public static let receiverEstimatedMaximumBitrate = Feedback(rawValue: 8)
        public static let temporaryMaximumBitrate = Feedback(rawValue: 16)
        public static let all: Feedback = [.nack, .pictureLossIndication, .fullIntraRequest, .receiverEstimatedMaximumBitrate, .temporaryMaximumBitrate]
    }

    public var sessionID: UInt64
    public var originAddress: String
    public var sessionName: String
    /// Where the media goes (the receiver's address); IPv6 when it contains a colon.
    public var connectionAddress: String
    public var port: UInt16
    /// RTCP port; nil means RTP port + 1 (RFC 3550 §11) and is written explicitly anyway.
    public var rtcpPort: UInt16?
    public var rtcpMux: Bool
    public var payloadType: UInt8
    /// The payload format: H.264 (RFC 6184) unless made with `hevc(…)` (RFC 7798).
    public var codec: VideoCodec = .h264
    /// H.264 only.
    public var packetizationMode: H264PayloaderConfiguration.PacketizationMode
    /// HEVC only: the VPS for `sprop-vps`.
    public var videoParameterSet: [UInt8] = []
    public var sequenceParameterSet: [UInt8]
    public var pictureParameterSet: [UInt8]
    public var feedback: Feedback
    public var ssrc: UInt32?
    public var cname: String?
    /// RFC 4588 retransmission stream, when negotiated.
    public var rtx: (payloadType: UInt8, ssrc: UInt32)?
    /// SRTP keys (RFC 4568 SDES): the text then carries the key, so write it where only the receiver can read it.
    public var srtp: SRTPConfiguration?
    /// Header extensions the sender writes (`a=extmap`); the transport-wide sequence number also asks for
    /// transport-cc feedback (`a=rtcp-fb:PT transport-cc`).
    public var headerExtensions = RTPSendHeaderExtensions()
    /// Asks for RFC 8888 feedback (`a=rtcp-fb:* ack ccfb`, RFC 8888 §6).
    public var congestionControlFeedback = false

    public init(
        connectionAddress: String, port: UInt16, rtcpPort: UInt16? = nil, rtcpMux: Bool = false, payloadType: UInt8 = 96,
        packetizationMode: H264PayloaderConfiguration.PacketizationMode = .nonInterleaved,
        sequenceParameterSet: [UInt8], pictureParameterSet: [UInt8], feedback: Feedback = [.nack, .pictureLossIndication, .fullIntraRequest],
        ssrc: UInt32? = nil, cname: String? = nil, rtx: (payloadType: UInt8, ssrc: UInt32)? = nil,
        srtp: SRTPConfiguration? = nil, sessionID: UInt64 = 1, originAddress: String = "127.0.0.1",
        sessionName: String = "rtenc"
    ) {
        self.srtp = srtp
        self.connectionAddress = connectionAddress
        self.port = port
        self.rtcpPort = rtcpPort
        self.rtcpMux = rtcpMux
        self.payloadType = payloadType
        self.packetizationMode = packetizationMode
        self.sequenceParameterSet = sequenceParameterSet
        self.pictureParameterSet = pictureParameterSet
        self.feedback = feedback
        self.ssrc = ssrc
        self.cname = cname
        self.rtx = rtx
        self.sessionID = sessionID
        self.originAddress = originAddress
        self.sessionName = sessionName
    }

    /// The description of an HEVC stream (RFC 7798): the H.264 description's fields, with `H265/90000` and the
    /// VPS/SPS/PPS and profile/tier/level parameters in the fmtp line.
    public static func hevc(
        connectionAddress: String, port: UInt16, rtcpPort: UInt16? = nil, rtcpMux: Bool = false, payloadType: UInt8 = 96,
        videoParameterSet: [UInt8], sequenceParameterSet: [UInt8], pictureParameterSet: [UInt8],
        feedback: Feedback = [.nack, .pictureLossIndication, .fullIntraRequest], ssrc: UInt32? = nil, cname: String? = nil,
        rtx: (payloadType: UInt8, ssrc: UInt32)? = nil, srtp: SRTPConfiguration? = nil, sessionID: UInt64 = 1,
        originAddress: String = "127.0.0.1", sessionName: String = "rtenc"
    ) -> Self {
        var description = Self(
            connectionAddress: connectionAddress, port: port, rtcpPort: rtcpPort, rtcpMux: rtcpMux, payloadType: payloadType,
            sequenceParameterSet: sequenceParameterSet, pictureParameterSet: pictureParameterSet, feedback: feedback,
            ssrc: ssrc, cname: cname, rtx: rtx, srtp: srtp, sessionID: sessionID, originAddress: originAddress,
            sessionName: sessionName)
        description.codec = .hevc
        description.videoParameterSet = videoParameterSet
        return description
    }

    public static func == (a: Self, b: Self) -> Bool { a.text == b.text }

    /// HEVC: profile-id, tier-flag and level-id from the SPS's profile_tier_level (nil for H.264 or a short SPS).
    public var hevcParameters: HEVCFormatParameters? {
        codec == .hevc ? HEVCFormatParameters(sequenceParameterSet: sequenceParameterSet) : nil
    }

    /// profile_idc, constraint flags and level_idc: SPS bytes 1…3 as six hex digits (RFC 6184 §8.1); nil for HEVC.
    public var profileLevelID: String? {
        guard codec == .h264, sequenceParameterSet.count >= 4 else { return nil }
        return sequenceParameterSet[1 ... 3].map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    public var text: String {
        let ipVersion: (String) -> String = { $0.contains(":") ? "IP6" : "IP4" }
        let pt = payloadType
        var lines = [
            "v=0",
            "o=- \(sessionID) 1 IN \(ipVersion(originAddress)) \(originAddress)",
            "s=\(sessionName)",
            "c=IN \(ipVersion(connectionAddress)) \(connectionAddress)",
            "t=0 0",
            "m=video \(port) \(srtp == nil ? "RTP/AVP" : "RTP/SAVP") \(pt)" + (rtx.map { " \($0.payloadType)" } ?? ""),
        ]
        switch codec {
        case .h264:
            lines.append("a=rtpmap:\(pt) H264/90000")
            var fmtp = "a=fmtp:\(pt) packetization-mode=\(packetizationMode.rawValue)"
            if let profileLevelID { fmtp += ";profile-level-id=\(profileLevelID)" }
            fmtp += ";sprop-parameter-sets=\(Base64.encode(sequenceParameterSet)),\(Base64.encode(pictureParameterSet))"
            lines.append(fmtp)
        case .hevc:
            lines.append("a=rtpmap:\(pt) H265/90000")
            lines.append("a=fmtp:\(pt) " + (hevcParameters.map { $0.fmtp + ";" } ?? "")
                + "sprop-vps=\(Base64.encode(videoParameterSet));sprop-sps=\(Base64.encode(sequenceParameterSet))"
                + ";sprop-pps=\(Base64.encode(pictureParameterSet))")
        }
        lines.append(rtcpMux ? "a=rtcp-mux" : "a=rtcp:\(rtcpPort ?? port &+ 1)")
        if feedback.contains(.nack) { lines.append("a=rtcp-fb:\(pt) nack") }
        if feedback.contains(.pictureLossIndication) { lines.append("a=rtcp-fb:\(pt) nack pli") }
        if feedback.contains(.fullIntraRequest) { lines.append("a=rtcp-fb:\(pt) ccm fir") }
        if feedback.contains(.temporaryMaximumBitrate) { lines.append("a=rtcp-fb:\(pt) ccm tmmbr") }
        if feedback.contains(.receiverEstimatedMaximumBitrate) { lines.append("a=rtcp-fb:\(pt) goog-remb") }
        if headerExtensions.transportSequenceNumberID != nil { lines.append("a=rtcp-fb:\(pt) transport-cc") }
        if congestionControlFeedback { lines.append("a=rtcp-fb:* ack ccfb") }
        if let id = headerExtensions.absoluteSendTimeID { lines.append("a=extmap:\(id) \(RTPSendHeaderExtensions.absoluteSendTimeURI)") }
        if let id = headerExtensions.transportSequenceNumberID {
            lines.append("a=extmap:\(id) \(RTPSendHeaderExtensions.transportSequenceNumberURI)")
        }
        if let rtx {
            lines.append("a=rtpmap:\(rtx.payloadType) rtx/90000")
            lines.append("a=fmtp:\(rtx.payloadType) apt=\(pt)")
            if let ssrc { lines.append("a=ssrc-group:FID \(ssrc) \(rtx.ssrc)") }
        }
        if let ssrc, let cname { lines.append("a=ssrc:\(ssrc) cname:\(cname)") }
        if let rtx, let cname { lines.append("a=ssrc:\(rtx.ssrc) cname:\(cname)") }
        if let srtp { lines.append("a=crypto:" + srtp.cryptoAttribute(tag: 1)) }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

/// What a receiver needs from an SDP offer: where to listen and how to read the H.264 or HEVC payload.
public struct ReceivedSessionDescription: Sendable, Equatable {
    public var connectionAddress: String
    public var port: UInt16
    public var rtcpPort: UInt16
    public var rtcpMux: Bool
    public var payloadType: UInt8
    /// H.264 unless the payload type's rtpmap says H265.
    public var codec: VideoCodec
    public var packetizationMode: Int
    /// Decoded sprop-parameter-sets NAL units (SPS, PPS…) — for HEVC sprop-vps, sprop-sps, sprop-pps in that
    /// order — empty if absent.
    public var parameterSets: [[UInt8]]
    /// HEVC: profile-space, profile-id, tier-flag, level-id (RFC 7798 §7.1 defaults where absent); nil for H.264.
    public var hevc: HEVCFormatParameters?
    /// The first `a=crypto` of the video section with a suite rtenc has (RFC 4568 §5.1: offers are in preference
    /// order); nil without one.
    public var srtp: SRTPConfiguration?
    /// The ID of the transport-wide sequence number extension (`a=extmap:ID …transport-wide-cc-extensions-01`).
    public var transportSequenceNumberID: UInt8?
    /// `a=rtcp-fb:<PT or *> transport-cc` for our payload type.
    public var wantsTransportCC = false
    /// `a=rtcp-fb:<PT or *> ack ccfb` (RFC 8888 §6).
    public var wantsCongestionControlFeedback = false

    /// A parse of the first `m=video` section, its first H.264 or H.265 payload type (in m= line order). Accepts `\n`
    /// or `\r\n` line ends; ignores lines it does not use.
    /// - Throws: `.invalidSDP` for what cannot be read; `.unsupported` for an HEVC stream with DONL
    ///   (sprop-max-don-diff or sprop-depack-buf-nalus > 0, RFC 7798 §7.1) or sent over several RTP sessions
    ///   (tx-mode MRST/MSST), which the depacketizer does not reorder by.
    public init(parsing text: String) throws(RTPError) {
        var address: String?
        var port: UInt16?
        var rtcpPort: UInt16?
        var mux = false
        var payloadTypes: [UInt8] = []
        var encodings: [UInt8: VideoCodec] = [:]
        var fmtp: [UInt8: Substring] = [:]
        var inVideo = false
        var srtp: SRTPConfiguration?
        var unsupportedCrypto: RTPError?
        var transportSequenceNumberID: UInt8?
        var feedbackLines: [(payloadType: Substring, value: Substring)] = []
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            if line.hasPrefix("m=") {
                if port != nil { break }  // only the first video section
                let fields = line.dropFirst(2).split(separator: " ")
                inVideo = fields.first == "video"
                guard inVideo else { continue }
                guard fields.count >= 4, let p = UInt16(fields[1]) else { throw .make(.invalidSDP, "bad media line: \(line)") }
                port = p
                payloadTypes = fields.dropFirst(3).compactMap { UInt8($0) }
            } else if line.hasPrefix("c=") {
                let fields = line.dropFirst(2).split(separator: " ")
                guard fields.count == 3, fields[0] == "IN" else { throw .make(.invalidSDP, "bad connection line: \(line)") }
                let addr = fields[2].split(separator: "/").first.map(String.init) ?? ""  // drop /ttl
                if address == nil || inVideo { address = addr }
            } else if inVideo, line.hasPrefix("a=") {
                let attribute = line.dropFirst(2)
                if attribute == "rtcp-mux" {
                    mux = true
                } else if attribute.hasPrefix("rtcp:") {
                    rtcpPort = attribute.dropFirst(5).split(separator: " ").first.flatMap { UInt16($0) }
                } else if attribute.hasPrefix("rtpmap:") {
                    let parts = attribute.dropFirst(7).split(separator: " ")
                    if parts.count == 2, let pt = UInt8(parts[0]) {
                        let name = parts[1].uppercased()
                        if name.hasPrefix("H264/") { encodings[pt] = .h264 } else if name.hasPrefix("H265/") { encodings[pt] = .hevc }
                    }
                } else if attribute.hasPrefix("crypto:"), srtp == nil {
                    do throws(RTPError) {
                        srtp = try SRTPConfiguration.parse(cryptoAttribute: attribute.dropFirst(7)).configuration
                    } catch where error.code == .unsupported {
                        unsupportedCrypto = unsupportedCrypto ?? error  // a later line may offer a suite we have
                    }
                } else if attribute.hasPrefix("fmtp:") {
                    let parts = attribute.dropFirst(5).split(separator: " ", maxSplits: 1)
                    if parts.count == 2, let pt = UInt8(parts[0]) { fmtp[pt] = parts[1] }
                } else if attribute.hasPrefix("extmap:") {
                    // a=extmap:<ID>[/<direction>] <URI> (RFC 8285 §8)
                    let parts = attribute.dropFirst(7).split(separator: " ")
                    if parts.count >= 2, parts[1] == RTPSendHeaderExtensions.transportSequenceNumberURI,
                       let id = parts[0].split(separator: "/").first.flatMap({ UInt8($0) }), (1 ... 255).contains(id) {
                        transportSequenceNumberID = id
                    }
                } else if attribute.hasPrefix("rtcp-fb:") {
                    let parts = attribute.dropFirst(8).split(separator: " ", maxSplits: 1)
                    if parts.count == 2 { feedbackLines.append((parts[0], parts[1])) }
                }
            }
        }
        guard let port else { throw .make(.invalidSDP, "no m=video line") }
        guard let address else { throw .make(.invalidSDP, "no c= line") }
        guard let payloadType = payloadTypes.first(where: { encodings[$0] != nil }) ?? payloadTypes.first else {
            throw .make(.invalidSDP, "no payload type")
        }
        if srtp == nil, let unsupportedCrypto { throw unsupportedCrypto }
        let ours = feedbackLines.filter { $0.payloadType == "*" || UInt8($0.payloadType) == payloadType }.map(\.value)
        self.transportSequenceNumberID = transportSequenceNumberID
        wantsTransportCC = transportSequenceNumberID != nil && ours.contains("transport-cc")
        wantsCongestionControlFeedback = ours.contains("ack ccfb")
        let codec = encodings[payloadType] ?? .h264
        var mode = 0
        var parameterSets: [[UInt8]] = []
        var hevcSets: [Substring: [[UInt8]]] = [:]
        var hevc = codec == .hevc ? HEVCFormatParameters() : nil
        func decodeList(_ key: Substring, _ value: Substring) throws(RTPError) -> [[UInt8]] {
            var sets: [[UInt8]] = []
            for set in value.split(separator: ",") {
                guard let bytes = Base64.decode(set), !bytes.isEmpty else { throw .make(.invalidSDP, "bad base64 in \(key): \(set)") }
                sets.append(bytes)
            }
            return sets
        }
        for parameter in (fmtp[payloadType] ?? "").split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let key = pair[0].trimmingSpaces
            let value = pair[1].trimmingSpaces
            switch (codec, key) {
            case (.h264, "packetization-mode"):
                guard let m = Int(value) else { throw .make(.invalidSDP, "packetization-mode \(pair[1])") }
                mode = m
            case (.h264, "sprop-parameter-sets"):
                parameterSets += try decodeList(key, value)
            case (.hevc, "sprop-vps"), (.hevc, "sprop-sps"), (.hevc, "sprop-pps"):
                hevcSets[key] = try decodeList(key, value)
            case (.hevc, "sprop-max-don-diff"), (.hevc, "sprop-depack-buf-nalus"):
                guard let number = Int(value), number >= 0 else { throw .make(.invalidSDP, "\(key)=\(value)") }
                guard number == 0 else {
                    throw .make(.unsupported, "\(key)=\(value): the stream carries DONL and needs reordering by decoding order, "
                                       + "which rtenc does not do (send with sprop-max-don-diff=0)")
                }
            case (.hevc, "tx-mode"):
                guard value.uppercased() == "SRST" else {
                    throw .make(.unsupported, "tx-mode=\(value): HEVC over several RTP sessions is not supported (SRST only)")
                }
            case (.hevc, _):
                _ = try hevc?.apply(key: key, value: value)
            default:
                break
            }
        }
        if codec == .hevc { parameterSets = ["sprop-vps", "sprop-sps", "sprop-pps"].flatMap { hevcSets[$0] ?? [] } }
        connectionAddress = address
        self.port = port
        rtcpMux = mux
        self.rtcpPort = mux ? port : (rtcpPort ?? port &+ 1)
        self.payloadType = payloadType
        self.codec = codec
        packetizationMode = mode
        self.parameterSets = parameterSets
        self.hevc = hevc
        self.srtp = srtp
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
