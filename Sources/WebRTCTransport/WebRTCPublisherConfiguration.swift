import CongestionControl
import RTPOut
import WebRTC

/// What a `WebRTCPublisher` offers and from where.
public struct WebRTCPublisherConfiguration: Sendable {
    /// The one UDP socket ICE, DTLS and SRTP share (port 0: any free one).
    public var bind: SocketAddress
    /// The host candidates the offer carries, in order of preference; empty: the bound address (which must then not
    /// be a wildcard). Loopback addresses are kept.
    public var candidates: [SocketAddress]
    /// The encoder's stream: the offer's one payload type (H.264 Constrained Baseline is written `42e01f`; H.265 with
    /// its profile-id, tier-flag and level-id), and which payloader (RFC 6184 or RFC 7798) carries it.
    public var encoding: WebRTCSDP.VideoEncoding
    /// The SPS and PPS put in front of every IDR that lacks them (the server's first picture must carry them).
    public var sequenceParameterSet: [UInt8]?
    public var pictureParameterSet: [UInt8]?
    /// HEVC only: the VPS put in front of them, before every IRAP (RFC 7798 payloader).
    public var videoParameterSet: [UInt8]?
    /// `--bitrate`: the encoder target's ceiling; REMB only ever lowers it (`ViewerBitratePolicy`).
    public var bitrateCeiling: UInt64
    /// The target never goes below this (design/webrtc.md §6.4: 150 kb/s).
    public var bitrateFloor: UInt64
    /// The rate controller to run when the server keeps transport-cc in its answer (`stream --whip --cc gcc`): offered
    /// beside REMB; a server that keeps only REMB (aiortc) gets the REMB rule. nil: REMB only.
    public var congestionController: CongestionControllers.Entry?
    /// RTP payload size (libwebrtc: 1200).
    public var maxPayloadSize: Int
    /// RFC 7675: consent is lost when no consent check is answered for this long (30 s).
    public var consentTimeout: Duration = .seconds(30)
    /// ICE gives up when no pair is selected this long after the answer (30 s).
    public var connectTimeout: Duration = .seconds(30)

    public init(bind: SocketAddress, candidates: [SocketAddress] = [], encoding: WebRTCSDP.VideoEncoding,
                sequenceParameterSet: [UInt8]? = nil, pictureParameterSet: [UInt8]? = nil, videoParameterSet: [UInt8]? = nil,
                bitrateCeiling: UInt64,
                bitrateFloor: UInt64 = 150_000, maxPayloadSize: Int = 1200) {
        self.bind = bind
        self.candidates = candidates
        self.encoding = encoding
        self.sequenceParameterSet = sequenceParameterSet
        self.pictureParameterSet = pictureParameterSet
        self.videoParameterSet = videoParameterSet
        self.bitrateCeiling = bitrateCeiling
        self.bitrateFloor = bitrateFloor
        self.maxPayloadSize = maxPayloadSize
    }
}
