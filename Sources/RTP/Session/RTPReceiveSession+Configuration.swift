import MediaCore

extension RTPReceiveSession {
    /// The congestion-control feedback the receiver sends, when the sender asked for it in the SDP.
    public enum CongestionFeedback: Sendable, Equatable {
        /// Transport-cc (RTPFB FMT 15) about the packets carrying the transport-wide sequence number extension
        /// with this ID (`a=rtcp-fb:* transport-cc`).
        case transportCC(extensionID: UInt8)
        /// RFC 8888 (RTPFB FMT 11) about the RTP sequence numbers of every stream that arrives — media and RTX —
        /// (`a=rtcp-fb:* ack ccfb`).
        case rfc8888
    }

    /// How the receiving session behaves; nothing here is about sockets (the driver's configuration adds those).
    public struct Configuration: Sendable {
        /// Our SSRC and CNAME, in the receiver reports and feedback we send.
        public var ssrc: UInt32
        public var cname: String
        /// Only this payload type is depacketized (nil = any).
        public var payloadType: UInt8?
        /// Packets the reorder buffer spans: a hole is also given up on once a packet this far ahead arrives, so it
        /// must hold what arrives in one round trip, or a NACK cannot fill the hole. 512: an IDR of a few hundred
        /// packets (8 Mb/s 720p noise: ~60 per frame) plus the frames behind it while the retransmission travels.
        public var reorderWindow: Int
        /// Packets wait at most this long behind a missing one before it is declared lost. Default: 300 ms with NACK
        /// (room for three requests one round trip of up to ~100 ms apart), 100 ms without.
        public var maxReorderDelay: Duration
        /// NACK holes (RFC 4585 §6.2.1) at once and again every `nackRetryInterval`, `nackMaxRequests` times in all.
        public var sendNACK: Bool
        public var nackRetryInterval: Duration
        public var nackMaxRequests: Int
        /// Send PLI (throttled) until a decodable IDR arrives — at the start, after an access unit is dropped, after
        /// `decoderFailed` — following the rules of `PictureRecovery`.
        public var sendPictureLossOnDrop: Bool
        /// PLIs closer together than this are not sent (libwebrtc throttles to 300 ms as well).
        public var minPictureLossInterval: Duration
        /// Nominal interval of our receiver reports.
        public var reportInterval: Duration
        /// SPS/PPS known before the stream starts (the SDP's sprop-parameter-sets): an IDR that arrives without its
        /// own is then decodable, and no PLI is sent for it.
        public var parameterSets: [[UInt8]]
        /// Put the known SPS/PPS in front of the access units that lack them (`DeliveredAccessUnit.primedParameterSets`).
        public var primeParameterSets: Bool
        /// The payload format read (RFC 6184 for H.264, RFC 7798 for HEVC: the SDP's `H264/90000` or `H265/90000`),
        /// and whose keyframes and parameter sets the rules above mean (HEVC: IRAP pictures; VPS, SPS and PPS).
        public var codec: VideoCodec
        /// Congestion-control feedback to send (nil: none), one report every `feedbackInterval` while packets arrive.
        public var congestionFeedback: CongestionFeedback?
        public var feedbackInterval: Duration = .milliseconds(100)

        public init(ssrc: UInt32, cname: String = "rtenc-receiver", payloadType: UInt8? = 96, reorderWindow: Int = 512,
                    maxReorderDelay: Duration? = nil, sendNACK: Bool = true, nackRetryInterval: Duration = .milliseconds(100),
                    nackMaxRequests: Int = 3, sendPictureLossOnDrop: Bool = true,
                    minPictureLossInterval: Duration = .milliseconds(300), reportInterval: Duration = .seconds(1),
                    parameterSets: [[UInt8]] = [], primeParameterSets: Bool = true, codec: VideoCodec = .h264) {
            self.codec = codec
            self.ssrc = ssrc
            self.cname = cname
            self.payloadType = payloadType
            self.reorderWindow = reorderWindow
            self.maxReorderDelay = maxReorderDelay ?? (sendNACK ? .milliseconds(300) : .milliseconds(100))
            self.sendNACK = sendNACK
            self.nackRetryInterval = nackRetryInterval
            self.nackMaxRequests = nackMaxRequests
            self.sendPictureLossOnDrop = sendPictureLossOnDrop
            self.minPictureLossInterval = minPictureLossInterval
            self.reportInterval = reportInterval
            self.parameterSets = parameterSets
            self.primeParameterSets = primeParameterSets
        }
    }
}
