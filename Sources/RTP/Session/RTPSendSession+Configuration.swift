import MediaCore

extension RTPSendSession {
    /// How packets are spread in time.
    public enum Pacing: Sendable {
        /// Every packet may leave as soon as it is queued (file-to-file work, benchmarks). Nothing is dropped: the
        /// queue grows for an access unit larger than it, and the driver waits for a full socket.
        case unpaced
        /// Leaky bucket at `factor` × `targetBitrate` bits/s (libwebrtc: 2.5×); packets beyond `queueCapacity` are
        /// dropped and counted (a live stream must not stall its encoder).
        case paced(targetBitrate: UInt64, factor: Double = defaultFactor)

        /// libwebrtc's pacing factor: a keyframe several times the average frame size still leaves within a few frame
        /// intervals.
        public static let defaultFactor = 2.5
    }

    /// Everything the session needs to know, as one `Sendable` value; no addresses, sockets or keys (the driver's).
    public struct Configuration: Sendable {
        public var payloadType: UInt8
        public var ssrc: UInt32
        /// SDES CNAME (1…255 bytes).
        public var cname: String
        /// For the payloader `init(configuration:)` makes (for HEVC: its size and aggregation, and
        /// `insertParameterSetsBeforeIDR` as `insertParameterSetsBeforeIRAP`); another payloader brings its own.
        public var payloader: H264PayloaderConfiguration
        public var pacing: Pacing
        /// Paced: a packet may leave while the pacer's debt is below this long at the pacing rate (capped at 63 kB), so
        /// what fits leaves at once after an idle queue and only the rest is spread out. 5 ms by default; the WebRTC
        /// transports take libwebrtc's 40 ms, which lets a whole delta frame out at once; zero, none (rtenc's
        /// congestion controller): each packet waits for the one before it to drain at the pacing rate.
        public var pacingBurst: Duration = Pacer.defaultBurst
        /// Packets kept for NACK retransmission.
        public var historySize: Int
        /// RFC 4588 retransmission stream (payload type, SSRC), when the SDP negotiated it.
        public var rtx: (payloadType: UInt8, ssrc: UInt32)?
        /// NACKed packets go out on the RTX stream when there is one (RFC 4588). False keeps RTX for probe padding
        /// alone and retransmits on the media SSRC (for a receiver that reads only the media payload type, such as
        /// `rtenc receive`).
        public var retransmitsOnRTX = true
        /// Keyframe requests closer together than this are merged (libwebrtc: 300 ms).
        public var minKeyframeRequestInterval: Duration
        /// Nominal RTCP report interval; each actual one is randomized in [0.5, 1.5] × this (RFC 3550 §6.3.1).
        public var reportInterval: Duration
        /// Packets that may wait for the pacer (paced: beyond this new packets are dropped and counted).
        public var queueCapacity: Int
        /// Time between the last media packet and the BYE after `close`; skipped when nobody listens.
        public var goodbyeDelay: Duration
        public var initialSequenceNumber: UInt16
        /// Added to every RTP timestamp (RFC 3550 §5.1: random).
        public var timestampOffset: UInt32
        /// Most datagrams one `pollTransmit` hands out (the driver's sendmmsg batch).
        public var batchSize: Int
        /// Bytes the driver adds to every RTP packet on the wire (the SRTP authentication tag): counted in
        /// `bytesSent`, the bitrate and the pacer.
        public var wireOverhead: Int
        /// The codec of the access units: which payloader `RTPSendSession.init(configuration:…)` makes (RFC 6184 for
        /// H.264, RFC 7798 for HEVC, with `payloader`'s size and aggregation); `enqueue` refuses any other.
        public var codec: VideoCodec
        /// Header extensions written on every packet (transport-wide sequence number, abs-send-time), with their
        /// negotiated IDs. The transport-wide number makes the session remember what it sent and read transport-cc
        /// feedback (`RTPSendEvent.transportFeedback`).
        public var headerExtensions: RTPSendHeaderExtensions = .init()
        /// Read RFC 8888 congestion control feedback (`a=rtcp-fb:* ack ccfb`): the session remembers what it sent by
        /// (SSRC, sequence number), no header extension needed.
        public var acceptsCongestionControlFeedback = false

        /// Whether the session numbers what it sends and turns feedback into `TransportPacketsFeedback`.
        public var tracksSentPackets: Bool {
            headerExtensions.transportSequenceNumberID != nil || acceptsCongestionControlFeedback
        }

        public init(
            payloadType: UInt8 = 96, ssrc: UInt32, cname: String = "rtenc", payloader: H264PayloaderConfiguration = .init(),
            pacing: Pacing = .paced(targetBitrate: 2_000_000), historySize: Int = 1024, rtx: (payloadType: UInt8, ssrc: UInt32)? = nil,
            minKeyframeRequestInterval: Duration = .milliseconds(300), reportInterval: Duration = .seconds(1),
            queueCapacity: Int = 4096, goodbyeDelay: Duration = .milliseconds(500), initialSequenceNumber: UInt16 = 0,
            timestampOffset: UInt32 = 0, batchSize: Int = 64, wireOverhead: Int = 0, codec: VideoCodec = .h264
        ) {
            self.codec = codec
            self.payloadType = payloadType
            self.ssrc = ssrc
            self.cname = cname
            self.payloader = payloader
            self.pacing = pacing
            self.historySize = historySize
            self.rtx = rtx
            self.minKeyframeRequestInterval = minKeyframeRequestInterval
            self.reportInterval = reportInterval
            self.queueCapacity = queueCapacity
            self.goodbyeDelay = goodbyeDelay
            self.initialSequenceNumber = initialSequenceNumber
            self.timestampOffset = timestampOffset
            self.batchSize = batchSize
            self.wireOverhead = wireOverhead
        }
    }
}
