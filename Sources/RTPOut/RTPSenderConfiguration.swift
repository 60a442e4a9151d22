import MediaCore

/// Everything an `RTPSender` needs to know, as one `Sendable` value. All of it is fixed for the sender's life
/// except the pacing bitrate, which REMB/TMMBR (or `RTPSender.setTargetBitrate`) change live.
public struct RTPSenderConfiguration: Sendable {
    /// How packets are spread in time (`.unpaced` or `.paced(targetBitrate:factor:)`); see `RTPSendSession.Pacing`.
    public typealias Pacing = RTPSendSession.Pacing

    /// The receiver's RTP address.
    public var destination: SocketAddress
    /// The receiver's RTCP port: nil = destination port + 1 (RFC 3550 §11), or the same port with `rtcpMux`.
    public var destinationRTCPPort: UInt16?
    /// Our RTP port (0 = any free port). RTCP is received on this port + 1, or on this port with `rtcpMux`.
    public var localRTPPort: UInt16
    public var rtcpMux: Bool
    public var payloadType: UInt8
    public var ssrc: UInt32
    public var cname: String
    public var payloader: H264PayloaderConfiguration
    public var pacing: Pacing
    /// Packets kept for NACK retransmission.
    public var historySize: Int
    /// RFC 4588 retransmission stream (payload type, SSRC), when the SDP negotiated it.
    public var rtx: (payloadType: UInt8, ssrc: UInt32)?
    /// NACKed packets go out as RTX when there is an RTX stream; false keeps RTX for probe padding alone
    /// (`RTPSendSession.Configuration.retransmitsOnRTX`).
    public var retransmitsOnRTX = true
    public var minKeyframeRequestInterval: Duration
    /// Nominal RTCP report interval; each actual one is randomized in [0.5, 1.5] × this (RFC 3550 §6.3.1).
    public var reportInterval: Duration
    /// Packets that may wait for the pacer; beyond this new packets are dropped and counted (paced mode; unpaced,
    /// a full queue is sent before more is packetized).
    public var queueCapacity: Int
    /// Time between the last media packet and the BYE at `close()`. Receivers end the stream at a BYE even with
    /// media still unread: ffmpeg lost the tail of the last frame that way under load, and GStreamer's rtpbin dropped
    /// what its 200 ms jitter buffer held. 500 ms covers both. Skipped when nobody listens (our last datagrams were
    /// refused with ICMP port unreachable and the peer never sent RTCP).
    public var goodbyeDelay: Duration
    /// Random per RFC 3550 §5.1; fixed values make tests deterministic.
    public var initialSequenceNumber: UInt16
    public var timestampOffset: UInt32
    /// SRTP/SRTCP (RFC 3711) with these keys; nil = plain RTP. The I/O thread protects each packet as it leaves
    /// (queue and history keep plaintext), so a plain NACK retransmission goes out as the very same SRTP bytes.
    public var srtp: SRTPConfiguration?
    /// The codec sent: which payloader the sender makes (RFC 6184 for H.264, RFC 7798 for HEVC) and which access
    /// units `send` takes (another codec's are refused with `.unsupported`).
    public var codec: VideoCodec
    /// Header extensions on every packet (transport-wide sequence number, abs-send-time) with their negotiated IDs;
    /// the transport-wide number turns on transport-cc feedback (`RTPSender`'s `onTransportFeedback`).
    public var headerExtensions = RTPSendHeaderExtensions()
    /// Read RFC 8888 congestion control feedback too (no header extension needed).
    public var acceptsCongestionControlFeedback = false

    public init(
        destination: SocketAddress, destinationRTCPPort: UInt16? = nil, localRTPPort: UInt16 = 0, rtcpMux: Bool = false,
        payloadType: UInt8 = 96, ssrc: UInt32 = .random(in: 1 ... .max), cname: String = "rtenc",
        payloader: H264PayloaderConfiguration = .init(), pacing: Pacing = .paced(targetBitrate: 2_000_000),
        historySize: Int = 1024, rtx: (payloadType: UInt8, ssrc: UInt32)? = nil,
        minKeyframeRequestInterval: Duration = .milliseconds(300), reportInterval: Duration = .seconds(1),
        queueCapacity: Int = 4096, goodbyeDelay: Duration = .milliseconds(500), initialSequenceNumber: UInt16 = .random(in: 0 ... .max),
        timestampOffset: UInt32 = .random(in: 0 ... .max), srtp: SRTPConfiguration? = nil,
        codec: VideoCodec = .h264
    ) {
        self.codec = codec
        self.srtp = srtp
        self.destination = destination
        self.destinationRTCPPort = destinationRTCPPort
        self.localRTPPort = localRTPPort
        self.rtcpMux = rtcpMux
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
    }

    /// The receiver's RTCP address.
    public var destinationRTCP: SocketAddress {
        destination.withPort(destinationRTCPPort ?? (rtcpMux ? destination.port : destination.port &+ 1))
    }
}

extension RTPSenderConfiguration {
    /// What the sans-IO session needs of this (no addresses, no keys): `batchSize` is the driver's sendmmsg batch,
    /// `wireOverhead` the SRTP tag it adds to every packet.
    func sessionConfiguration(batchSize: Int, wireOverhead: Int) -> RTPSendSession.Configuration {
        var session = RTPSendSession.Configuration(
            payloadType: payloadType, ssrc: ssrc, cname: cname, payloader: payloader, pacing: pacing, historySize: historySize,
            rtx: rtx, minKeyframeRequestInterval: minKeyframeRequestInterval, reportInterval: reportInterval,
            queueCapacity: queueCapacity, goodbyeDelay: goodbyeDelay, initialSequenceNumber: initialSequenceNumber,
            timestampOffset: timestampOffset, batchSize: batchSize, wireOverhead: wireOverhead, codec: codec)
        session.headerExtensions = headerExtensions
        session.acceptsCongestionControlFeedback = acceptsCongestionControlFeedback
        session.retransmitsOnRTX = retransmitsOnRTX
        return session
    }
}
