extension WebRTCSDP {
    /// An RFC 4588 retransmission stream both sides settled on for the video: its payload type (whose `apt` is the
    /// video's), our SSRC for it (`a=ssrc-group:FID <media> <rtx>`, RFC 5576 §4.2 and RFC 4588 §8.7) and the
    /// `rtx-time` the offer named, if it did. NACKed packets go out on it, and so do a congestion controller's probes
    /// (padding-only packets, as libwebrtc sends them).
    public struct NegotiatedRetransmission: Sendable, Hashable {
        public var payloadType: UInt8
        public var ssrc: UInt32
        /// Milliseconds (RFC 4588 §8.6), as the offer wrote it; nil when it did not.
        public var rtxTime: Int?

        public init(payloadType: UInt8, ssrc: UInt32, rtxTime: Int? = nil) {
            self.payloadType = payloadType
            self.ssrc = ssrc
            self.rtxTime = rtxTime
        }

        /// The `a=rtpmap:<pt> rtx/<clock>` and `a=fmtp:<pt> apt=<video>[;rtx-time=<ms>]` of this stream.
        func codec(retransmitting video: Codec, encodingName: String = "rtx") -> Codec {
            var parameters: FormatParameters = ["apt": "\(video.payloadType)"]
            if let rtxTime { parameters = parameters.setting("rtx-time", to: "\(rtxTime)") }
            return Codec(payloadType: payloadType, encodingName: encodingName, clockRate: video.clockRate, parameters: parameters)
        }

        /// `a=ssrc-group:FID <media ssrc> <rtx ssrc>` (the order is the rule: original first).
        func ssrcGroup(media ssrc: UInt32) -> Attribute { Attribute("ssrc-group", "FID \(ssrc) \(self.ssrc)") }
    }

    /// The offered `rtx` payload type that retransmits `video` (RFC 4588 §8.6: `apt` names it), if any, with its
    /// `rtx-time`, and what is worth knowing about the ones passed over. An offer usually has one for every codec
    /// (Chromium's does); those for other payload types are simply not ours (nor are those missing from the m= line:
    /// the parser keeps only its payload types). Passed over with a warning: an `rtx` for `video` whose clock rate
    /// differs (§8.6: it must be the original's). An
    /// `rtx-time` that is not a number of milliseconds is dropped with a warning, the stream kept.
    static func selectRetransmission(from section: MediaSection, for video: Codec)
        -> (chosen: (codec: Codec, rtxTime: Int?)?, warnings: [String])
    {
        var warnings: [String] = []
        for codec in section.codecs where codec.associatedPayloadType == video.payloadType {
            guard codec.clockRate == video.clockRate else {
                warnings.append("rtx payload type \(codec.payloadType) has clock rate \(codec.clockRate), not its original's "
                                + "\(video.clockRate) (RFC 4588 §8.6); passed over")
                continue
            }
            var rtxTime: Int?
            if let text = codec.parameters["rtx-time"] {
                if let value = Int(text), value >= 0 {
                    rtxTime = value
                } else {
                    warnings.append("rtx payload type \(codec.payloadType): rtx-time=\(text) is not milliseconds; left out")
                }
            }
            return ((codec, rtxTime), warnings)
        }
        return (nil, warnings)
    }
}
