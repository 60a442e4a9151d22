import CongestionControl
import MediaCore
import RTPOut
import WebRTC

/// What a WebRTC transport sends, from where and within which rates: the part a `WebRTCServer`'s configuration (WHEP)
/// and a `WebRTCPublisher`'s (WHIP) share, kept once (their `media`) and read through by both.
public struct WebRTCMediaConfiguration: Sendable {
    /// The one UDP socket every peer's ICE, DTLS and SRTP share (port 0: any free one).
    public var bind: SocketAddress
    /// The host candidates the SDP carries, in order of preference; empty: the bound address (which must then not be a
    /// wildcard). Loopback addresses are kept (local players and the tests use them).
    public var candidates: [SocketAddress]
    /// The encoder's stream: what the SDP negotiates (H.264 Constrained Baseline is written `42e01f`) and which
    /// payloader the peers get (RFC 6184 or RFC 7798).
    public var encoding: WebRTCSDP.VideoEncoding
    /// The parameter sets put in front of every IDR (H.264) or IRAP (HEVC) access unit that lacks them (each peer's
    /// first picture must carry them): SPS and PPS, and for HEVC the VPS (nil for H.264).
    public var sequenceParameterSet: [UInt8]?
    public var pictureParameterSet: [UInt8]?
    public var videoParameterSet: [UInt8]?
    /// `--bitrate`: the encoder target's ceiling; REMB and the peers' controllers only ever lower it.
    public var bitrateCeiling: UInt64
    /// The target never goes below this (design/webrtc.md §6.4: 150 kb/s).
    public var bitrateFloor: UInt64
    /// The rate controller a peer gets when transport-cc is negotiated with it (`serve --cc`, `stream --whip --cc`):
    /// its own `BitrateController` over that policy (`peerController`), fed the peer's sent packets, transport-cc
    /// reports and frame sizes, setting its pacer; the encoder's target is the lowest among the peers. nil: REMB only.
    public var congestionController: CongestionControllers.Entry?
    /// RTP payload size (libwebrtc: 1200, leaving room for SRTP and a TURN/VPN header in a 1500-byte MTU).
    public var maxPayloadSize: Int
    /// RFC 7675: a peer whose consent lapses this long is ended (30 s).
    public var consentTimeout: Duration = .seconds(30)
    /// ICE gives up on a peer with no selected pair this long after its offer or answer (30 s).
    public var connectTimeout: Duration = .seconds(30)
    /// The playout-delay header extension with min = max = 0 on every packet, for players that take it (Chromium
    /// does): the player renders each frame as soon as it is decoded instead of holding it for its jitter buffer's
    /// render delay (BENCHMARKS.md "WebRTC": that hold was most of the glass-to-glass latency at 720p). A server
    /// answers it when the viewer's offer has it; a publisher offers it and sends it when the answer keeps it. Off
    /// (`--smooth-playout`): the player's own smoothing, better over a jittery path.
    public var immediatePlayout = true

    public init(bind: SocketAddress, candidates: [SocketAddress] = [], encoding: WebRTCSDP.VideoEncoding,
                sequenceParameterSet: [UInt8]? = nil, pictureParameterSet: [UInt8]? = nil, videoParameterSet: [UInt8]? = nil,
                bitrateCeiling: UInt64, bitrateFloor: UInt64 = 150_000, congestionController: CongestionControllers.Entry? = nil,
                maxPayloadSize: Int = 1200) {
        self.bind = bind
        self.candidates = candidates
        self.encoding = encoding
        self.sequenceParameterSet = sequenceParameterSet
        self.pictureParameterSet = pictureParameterSet
        self.videoParameterSet = videoParameterSet
        self.bitrateCeiling = bitrateCeiling
        self.bitrateFloor = bitrateFloor
        self.congestionController = congestionController
        self.maxPayloadSize = maxPayloadSize
    }

    /// A transport-cc peer's own controller (`congestionController`) within these bounds, its first target `start`;
    /// nil without a controller. The one place both transports make it.
    func peerController(start: UInt64, at now: Instant) throws(CongestionControlError) -> BitrateController? {
        try congestionController?.controller(ceiling: bitrateCeiling, floor: bitrateFloor, start: start, at: now)
    }
}

/// A transport's configuration that holds a `WebRTCMediaConfiguration` (`WebRTCServerConfiguration`,
/// `WebRTCPublisherConfiguration`): its fields read and write through it, as before they moved there (as
/// `RTPSenderConfiguration` reads its session's).
public protocol WebRTCMediaConfigured {
    var media: WebRTCMediaConfiguration { get set }
}

extension WebRTCMediaConfigured {
    public var bind: SocketAddress { get { media.bind } set { media.bind = newValue } }
    public var candidates: [SocketAddress] { get { media.candidates } set { media.candidates = newValue } }
    public var encoding: WebRTCSDP.VideoEncoding { get { media.encoding } set { media.encoding = newValue } }
    public var sequenceParameterSet: [UInt8]? { get { media.sequenceParameterSet } set { media.sequenceParameterSet = newValue } }
    public var pictureParameterSet: [UInt8]? { get { media.pictureParameterSet } set { media.pictureParameterSet = newValue } }
    public var videoParameterSet: [UInt8]? { get { media.videoParameterSet } set { media.videoParameterSet = newValue } }
    public var bitrateCeiling: UInt64 { get { media.bitrateCeiling } set { media.bitrateCeiling = newValue } }
    public var bitrateFloor: UInt64 { get { media.bitrateFloor } set { media.bitrateFloor = newValue } }
    public var congestionController: CongestionControllers.Entry? {
        get { media.congestionController }
        set { media.congestionController = newValue }
    }
    public var maxPayloadSize: Int { get { media.maxPayloadSize } set { media.maxPayloadSize = newValue } }
    public var consentTimeout: Duration { get { media.consentTimeout } set { media.consentTimeout = newValue } }
    public var connectTimeout: Duration { get { media.connectTimeout } set { media.connectTimeout = newValue } }
    public var immediatePlayout: Bool { get { media.immediatePlayout } set { media.immediatePlayout = newValue } }
}
