import CongestionControl
import MediaCore
import RTPOut
import WebRTC

/// What a `WebRTCServer` serves and where.
public struct WebRTCServerConfiguration: Sendable {
    /// The one UDP socket every viewer's ICE, DTLS and SRTP share (port 0: any free one).
    public var bind: SocketAddress
    /// The host candidates the answers carry, in order of preference; empty: the bound address (which must then
    /// not be a wildcard). Loopback addresses are kept (local players and the tests use them).
    public var candidates: [SocketAddress]
    /// The encoder's stream, for choosing the offered payload type (`WebRTCSDP.selectCodec`: a `--profile high`
    /// stream against an offer without High is refused with the reason, an HEVC stream against an offer without
    /// H265/90000 or below its level too) and the viewers' payloader (RFC 6184 or RFC 7798).
    public var encoding: WebRTCSDP.VideoEncoding
    /// The parameter sets put in front of every IDR (H.264) or IRAP (HEVC) access unit that lacks them (each
    /// viewer's first picture must carry them): SPS and PPS, and for HEVC the VPS (nil for H.264).
    public var sequenceParameterSet: [UInt8]?
    public var pictureParameterSet: [UInt8]?
    public var videoParameterSet: [UInt8]?
    /// `--bitrate`: the encoder target's ceiling; REMB only ever lowers it.
    public var bitrateCeiling: UInt64
    /// The target never goes below this (design/webrtc.md §6.4: 150 kb/s).
    public var bitrateFloor: UInt64
    /// More viewers than this (connected or not) are refused: 503 with Retry-After.
    public var maxViewers: Int
    /// More viewers still connecting (no SRTP yet: ICE checks or the DTLS handshake) than this are refused: 503
    /// with Retry-After, so a burst of offers that never connect cannot hold every slot until their connect timeout.
    public var maxPendingViewers: Int = 8
    /// The rate controller a viewer gets when its offer has transport-cc (`serve --cc`): its own `BitrateController`
    /// over that policy, fed the viewer's transport-cc reports, setting the viewer's pacer; the encoder's target is the
    /// lowest among the viewers. nil: every viewer's REMB goes to the shared `ViewerBitratePolicy` (as do the players
    /// that offer no transport-cc, such as aiortc, whatever this says).
    public var congestionController: CongestionControllers.Entry?
    /// RTP payload size (libwebrtc: 1200, leaving room for SRTP and a TURN/VPN header in a 1500-byte MTU).
    public var maxPayloadSize: Int
    /// RFC 7675: a viewer whose checks stop for this long is ended (30 s).
    public var consentTimeout: Duration = .seconds(30)
    /// A viewer with no nominated check this long after its POST is ended (30 s).
    public var connectTimeout: Duration = .seconds(30)
    /// Viewers whose offer has the playout-delay header extension (Chromium's does) get min = max = 0 on every
    /// packet: the player renders each frame as soon as it is decoded instead of holding it for its jitter buffer's
    /// render delay (BENCHMARKS.md "WebRTC": that hold was most of the glass-to-glass latency at 720p). Off: the
    /// player's own smoothing, better over a jittery path.
    public var immediatePlayout = true

    public init(bind: SocketAddress, candidates: [SocketAddress] = [], encoding: WebRTCSDP.VideoEncoding,
                sequenceParameterSet: [UInt8]? = nil, pictureParameterSet: [UInt8]? = nil, videoParameterSet: [UInt8]? = nil,
                bitrateCeiling: UInt64,
                bitrateFloor: UInt64 = 150_000, maxViewers: Int = 16, maxPayloadSize: Int = 1200) {
        self.bind = bind
        self.candidates = candidates
        self.encoding = encoding
        self.sequenceParameterSet = sequenceParameterSet
        self.pictureParameterSet = pictureParameterSet
        self.videoParameterSet = videoParameterSet
        self.bitrateCeiling = bitrateCeiling
        self.bitrateFloor = bitrateFloor
        self.maxViewers = maxViewers
        self.maxPayloadSize = maxPayloadSize
    }
}

/// One viewer's numbers for `--stats-json` and embedders.
public struct WebRTCViewerStatistics: Sendable, Equatable {
    public var id: String
    /// checking, handshaking, connected, closing.
    public var state: String
    public var remote: String?
    /// Bits/s sent to it over the last second.
    public var bitrate: Double
    public var peerLimit: UInt64?
    public var nackedPackets: Int
    /// PLI and FIR received.
    public var keyframeRequests: Int
    public var keyframesSent: Int
    public var packetsSent: Int
    /// From the POST to the first keyframe queued for it.
    public var firstKeyframeAfter: Duration?
    /// Its rate controller's name (`gcc`) when transport-cc was negotiated; nil: its REMB counts.
    public var congestionController: String? = nil
    /// That controller's encoder target for it, bits/s.
    public var controllerTarget: Int? = nil
    /// How long its pacer queue takes to drain now (`RTPSendSession.expectedQueueTime`).
    public var queueTime: Duration? = nil
    /// From an access unit queued for it to its first packet, and to its last, handed to the socket, over its last 64
    /// frames (`RTPSenderStatistics.firstPacketDelay`, `lastPacketDelay`).
    public var firstPacketDelay: RecentDurations.Summary? = nil
    public var lastPacketDelay: RecentDurations.Summary? = nil
}
