import Bitstream
import Synchronization

/// A small H.264 RTP receiver: UDP socket(s) + reorder buffer + depacketizer + RTCP (RR, NACK on loss — and for the
/// packets before a first IDR that came without SPS/PPS, `StartOfStreamNACK` — PLI until there is a picture to
/// decode: see `PictureRecovery`). For tests and the CLI's `receive`; not a full jitter-buffered player.
public final class RTPReceiver: Sendable {
    public struct Configuration: Sendable {
        /// Where to listen for RTP; RTCP on port + 1 (or the same port with `rtcpMux`, told apart by RFC 5761 §4).
        public var localAddress: SocketAddress
        public var rtcpMux: Bool
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
        public var sendNACK: Bool
        /// Send PLI (throttled) until a decodable IDR arrives — at the start, after an access unit is dropped, after
        /// `decoderFailed()` — following the rules of `PictureRecovery`.
        public var sendPictureLossOnDrop: Bool
        /// SPS/PPS known before the stream starts (the SDP's sprop-parameter-sets): an IDR that arrives without its
        /// own is then decodable, and no PLI is sent for it.
        public var parameterSets: [[UInt8]]
        /// SRTP/SRTCP keys (the sender's, from its SDP): incoming packets are authenticated and decrypted, ours to
        /// the sender are protected with the same key under our own SSRC. Packets that fail are counted and dropped.
        public var srtp: SRTPConfiguration?

        public init(localAddress: SocketAddress, rtcpMux: Bool = false, ssrc: UInt32 = .random(in: 1 ... .max),
                    cname: String = "rtenc-receiver", payloadType: UInt8? = 96, reorderWindow: Int = 512,
                    maxReorderDelay: Duration? = nil, sendNACK: Bool = true, sendPictureLossOnDrop: Bool = true,
                    srtp: SRTPConfiguration? = nil, parameterSets: [[UInt8]] = []) {
            self.srtp = srtp
            self.parameterSets = parameterSets
            self.maxReorderDelay = maxReorderDelay ?? (sendNACK ? .milliseconds(300) : .milliseconds(100))
            self.localAddress = localAddress
            self.rtcpMux = rtcpMux
            self.ssrc = ssrc
            self.cname = cname
            self.payloadType = payloadType
            self.reorderWindow = reorderWindow
            self.sendNACK = sendNACK
            self.sendPictureLossOnDrop = sendPictureLossOnDrop
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

extension RTPReceiver.Configuration {
    /// The part of the configuration that is about the stream, not the sockets: what the session is made with.
    public var session: RTPReceiveSession.Configuration {
        RTPReceiveSession.Configuration(
            ssrc: ssrc, cname: cname, payloadType: payloadType, reorderWindow: reorderWindow, maxReorderDelay: maxReorderDelay,
            sendNACK: sendNACK, sendPictureLossOnDrop: sendPictureLossOnDrop, parameterSets: parameterSets,
            // The façade hands access units on as they came (the CLI primes its file and decoder itself).
            primeParameterSets: false)
    }
}
