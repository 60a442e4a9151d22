import Bitstream
import Synchronization

/// A small H.264 or HEVC RTP receiver: UDP socket(s) + reorder buffer + depacketizer + RTCP (RR, NACK on loss — and for the
/// packets before a first IDR that came without SPS/PPS, `StartOfStreamNACK` — PLI until there is a picture to
/// decode: see `PictureRecovery`). For tests and the CLI's `receive`; not a full jitter-buffered player.
public final class RTPReceiver: Sendable {
    public struct Configuration: Sendable {
        /// Where to listen for RTP; RTCP on port + 1 (or the same port with `rtcpMux`, told apart by RFC 5761 §4).
        public var localAddress: SocketAddress
        public var rtcpMux: Bool
        /// SRTP/SRTCP keys (the sender's, from its SDP): incoming packets are authenticated and decrypted, ours to
        /// the sender are protected with the same key under our own SSRC. Packets that fail are counted and dropped.
        public var srtp: SRTPConfiguration?
        /// What the receiving session does with the stream (see `RTPReceiveSession.Configuration`; the properties
        /// below read and write it). The access units are handed on as they came: the CLI primes its file and
        /// decoder itself.
        public var session: RTPReceiveSession.Configuration

        public init(localAddress: SocketAddress, rtcpMux: Bool = false, ssrc: UInt32 = .random(in: 1 ... .max),
                    cname: String = "rtenc-receiver", payloadType: UInt8? = 96, reorderWindow: Int = 512,
                    maxReorderDelay: Duration? = nil, sendNACK: Bool = true, sendPictureLossOnDrop: Bool = true,
                    srtp: SRTPConfiguration? = nil, parameterSets: [[UInt8]] = [], codec: VideoCodec = .h264) {
            self.localAddress = localAddress
            self.rtcpMux = rtcpMux
            self.srtp = srtp
            session = RTPReceiveSession.Configuration(
                ssrc: ssrc, cname: cname, payloadType: payloadType, reorderWindow: reorderWindow,
                maxReorderDelay: maxReorderDelay, sendNACK: sendNACK, sendPictureLossOnDrop: sendPictureLossOnDrop,
                parameterSets: parameterSets, primeParameterSets: false, codec: codec)
        }

        public var ssrc: UInt32 { get { session.ssrc } set { session.ssrc = newValue } }
        public var cname: String { get { session.cname } set { session.cname = newValue } }
        public var payloadType: UInt8? { get { session.payloadType } set { session.payloadType = newValue } }
        public var reorderWindow: Int { get { session.reorderWindow } set { session.reorderWindow = newValue } }
        public var maxReorderDelay: Duration { get { session.maxReorderDelay } set { session.maxReorderDelay = newValue } }
        public var sendNACK: Bool { get { session.sendNACK } set { session.sendNACK = newValue } }
        public var sendPictureLossOnDrop: Bool { get { session.sendPictureLossOnDrop } set { session.sendPictureLossOnDrop = newValue } }
        public var parameterSets: [[UInt8]] { get { session.parameterSets } set { session.parameterSets = newValue } }
        public var codec: VideoCodec { get { session.codec } set { session.codec = newValue } }
        /// Transport-cc or RFC 8888 reports to send (nil: none), every `session.feedbackInterval`.
        public var congestionFeedback: RTPReceiveSession.CongestionFeedback? {
            get { session.congestionFeedback } set { session.congestionFeedback = newValue }
        }
    }

    /// The session's counts, with the SRTP/SRTCP failures the driver counted (the session sees plaintext only).
    public typealias Statistics = RTPReceiveStatistics

    public let configuration: Configuration
    public let localRTPAddress: SocketAddress
    private let core: ReceiverCore
    private let io: Mutex<BackgroundThread?>

    /// Opens the socket(s) and starts receiving. `onAccessUnit` runs on the receiver's thread.
    public init(configuration: Configuration, onAccessUnit: @escaping @Sendable (ReceivedAccessUnit) -> Void) throws(RTPError) {
        self.configuration = configuration
        let (rtp, rtcp) = try UDPSocketPair.open(at: configuration.localAddress, rtcpMux: configuration.rtcpMux,
                                                 receiveBufferSize: 4 << 20)
        localRTPAddress = rtp.localAddress
        let core = try ReceiverCore(configuration: configuration, rtp: rtp, rtcp: rtcp, wake: try WakeSignal(), onAccessUnit: onAccessUnit)
        self.core = core
        io = Mutex(try BackgroundThread { core.runLoop() })
    }

    public var statistics: Statistics { core.state.withLock { $0.statistics } }

    /// Sends a PLI now (throttled like the automatic ones).
    public func requestKeyframe() {
        let now = wallClockNow()
        core.state.withLock { $0.session.requestKeyframe(at: now) }
        core.wake.signal()
    }

    /// The application's decoder rejected an access unit (or concealed damage in it), the one with RTP timestamp
    /// `rtpTimestamp` if given: PLI now, and again with the next access units (throttled) until an IDR arrives —
    /// unless an IDR that followed it was already received. Nothing is sent with `sendPictureLossOnDrop` off.
    public func decoderFailed(rtpTimestamp: UInt32? = nil) {
        let now = wallClockNow()
        core.state.withLock { $0.session.decoderFailed(rtpTimestamp: rtpTimestamp, at: now) }
        core.wake.signal()
    }

    /// Stops receiving; access units still held by the reorder buffer are delivered (or reported dropped) first.
    public func close() {
        core.state.withLock { $0.closing = true }
        core.wake.signal()
        let thread = io.withLock { thread in
            defer { thread = nil }
            return thread
        }
        thread?.join()
    }

    deinit { close() }
}
