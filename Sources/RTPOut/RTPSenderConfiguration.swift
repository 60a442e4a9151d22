/// Everything an `RTPSender` needs to know, as one `Sendable` value. All of it is fixed for the sender's life
/// except the pacing bitrate, which REMB/TMMBR (or `RTPSender.setTargetBitrate`) change live.
public struct RTPSenderConfiguration: Sendable {
    public enum Pacing: Sendable {
        /// Every packet leaves as soon as it is queued (file-to-file work, benchmarks): `send` puts the whole access
        /// unit on the wire on the caller's thread and waits for a full socket rather than drop anything.
        case unpaced
        /// Leaky bucket at `factor` × `targetBitrate` bits/s (libwebrtc: 2.5×), sent by the I/O thread; packets
        /// beyond `queueCapacity` are dropped and counted (a live stream must not stall its encoder).
        case paced(targetBitrate: UInt64, factor: Double = Pacer.defaultPacingFactor)
    }

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

    public init(
        destination: SocketAddress, destinationRTCPPort: UInt16? = nil, localRTPPort: UInt16 = 0, rtcpMux: Bool = false,
        payloadType: UInt8 = 96, ssrc: UInt32 = .random(in: 1 ... .max), cname: String = "rtenc",
        payloader: H264PayloaderConfiguration = .init(), pacing: Pacing = .paced(targetBitrate: 2_000_000),
        historySize: Int = 1024, rtx: (payloadType: UInt8, ssrc: UInt32)? = nil,
        minKeyframeRequestInterval: Duration = .milliseconds(300), reportInterval: Duration = .seconds(1),
        queueCapacity: Int = 4096, goodbyeDelay: Duration = .milliseconds(500), initialSequenceNumber: UInt16 = .random(in: 0 ... .max),
        timestampOffset: UInt32 = .random(in: 0 ... .max), srtp: SRTPConfiguration? = nil
    ) {
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

/// Live numbers of an `RTPSender`.
public struct RTPSenderStatistics: Sendable, Equatable {
    public var packetsSent = 0
    /// Whole RTP packets (headers included).
    public var bytesSent = 0
    /// Over the last second, headers included.
    public var bitrate = 0.0
    public var accessUnitsSent = 0
    public var keyframesSent = 0
    public var keyframeRequestsReceived = 0
    /// Requests passed on to the encoder after throttling.
    public var keyframeRequestsForwarded = 0
    public var nackedPackets = 0
    public var packetsRetransmitted = 0
    /// NACKed packets no longer in the history.
    public var retransmissionsMissed = 0
    public var lastBitrateLimit: UInt64?
    public var roundTripTime: Duration?
    public var fractionLost = 0.0
    public var cumulativeLost: Int32 = 0
    /// Seconds.
    public var jitter = 0.0
    public var rtcpPacketsReceived = 0
    /// RTCP from hosts other than the peer, ignored.
    public var rtcpPacketsIgnored = 0
    public var rtcpPacketsMalformed = 0
    /// SRTCP packets from the peer's host that failed authentication or replay checks (SRTP only), dropped.
    public var rtcpPacketsUnauthenticated = 0
    /// ICMP port unreachable reported by the kernel (the peer was not listening).
    public var icmpErrors = 0
    public var sendErrors = 0
    /// Packets dropped because the pacer queue was full (paced mode), or the socket took nothing for 2 s (unpaced).
    public var packetsDropped = 0
    public var queuedPackets = 0
}
