import MediaCore

/// Everything an `RTPSender` needs to know, as one `Sendable` value: where to send (addresses, ports, SRTP keys —
/// the I/O edge's business) and the sans-IO session's own `RTPSendSession.Configuration`, whose fields read and write
/// as if they were this type's (`configuration.ssrc`, `configuration.pacing`: dynamic member lookup), so the two
/// never drift apart. All of it is fixed for the sender's life except the pacing bitrate, which REMB/TMMBR (or
/// `RTPSender.setTargetBitrate`) change live.
@dynamicMemberLookup
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
    /// SRTP/SRTCP (RFC 3711) with these keys; nil = plain RTP. The I/O thread protects each packet as it leaves
    /// (queue and history keep plaintext), so a plain NACK retransmission goes out as the very same SRTP bytes.
    public var srtp: SRTPConfiguration?
    /// The session's configuration: payload type, SSRC, payloader, pacing, history, RTX, RTCP, BYE delay, codec,
    /// header extensions. Its `batchSize` and `wireOverhead` are the driver's to set (sendmmsg batch, SRTP tag).
    ///
    /// A sender's `goodbyeDelay` (500 ms by default) is the time between the last media packet and the BYE at
    /// `close()`: receivers end the stream at a BYE even with media still unread (ffmpeg lost the tail of the last
    /// frame that way under load, GStreamer's rtpbin dropped what its 200 ms jitter buffer held).
    public var session: RTPSendSession.Configuration

    public init(
        destination: SocketAddress, destinationRTCPPort: UInt16? = nil, localRTPPort: UInt16 = 0, rtcpMux: Bool = false,
        srtp: SRTPConfiguration? = nil, session: RTPSendSession.Configuration
    ) {
        self.destination = destination
        self.destinationRTCPPort = destinationRTCPPort
        self.localRTPPort = localRTPPort
        self.rtcpMux = rtcpMux
        self.srtp = srtp
        self.session = session
    }

    /// The session's fields by name, with a sender's defaults: a random SSRC, first sequence number and timestamp
    /// offset (RFC 3550 §5.1; fixed values make tests deterministic).
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
        self.init(
            destination: destination, destinationRTCPPort: destinationRTCPPort, localRTPPort: localRTPPort, rtcpMux: rtcpMux,
            srtp: srtp,
            session: RTPSendSession.Configuration(
                payloadType: payloadType, ssrc: ssrc, cname: cname, payloader: payloader, pacing: pacing,
                historySize: historySize, rtx: rtx, minKeyframeRequestInterval: minKeyframeRequestInterval,
                reportInterval: reportInterval, queueCapacity: queueCapacity, goodbyeDelay: goodbyeDelay,
                initialSequenceNumber: initialSequenceNumber, timestampOffset: timestampOffset, codec: codec))
    }

    /// `configuration.ssrc`, `configuration.pacing = …`: the session's fields, read and written in place.
    public subscript<Value>(dynamicMember field: WritableKeyPath<RTPSendSession.Configuration, Value>) -> Value {
        get { session[keyPath: field] }
        set { session[keyPath: field] = newValue }
    }

    /// The receiver's RTCP address.
    public var destinationRTCP: SocketAddress {
        destination.withPort(destinationRTCPPort ?? (rtcpMux ? destination.port : destination.port &+ 1))
    }
}

extension RTPSenderConfiguration {
    /// The session's configuration with the driver's part filled in: `batchSize` its sendmmsg batch, `wireOverhead`
    /// the SRTP tag it adds to every packet.
    func sessionConfiguration(batchSize: Int, wireOverhead: Int) -> RTPSendSession.Configuration {
        var session = session
        session.batchSize = batchSize
        session.wireOverhead = wireOverhead
        return session
    }
}
