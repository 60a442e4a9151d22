import CongestionControl
import MediaCore
import RTPOut
import WebRTC

/// What a `WebRTCServer` serves and where: the media part it shares with `WebRTCPublisherConfiguration` (`media`, whose
/// fields read through here too) and the caps on viewers.
public struct WebRTCServerConfiguration: WebRTCMediaConfigured, Sendable {
    /// The socket, candidates, stream, rates and controller (`WebRTCMediaConfiguration`). Its `encoding` chooses the
    /// offered payload type (`WebRTCSDP.selectCodec`: a `--profile high` stream against an offer without High is
    /// refused with the reason, an HEVC stream against an offer without H265/90000 or below its level too); its
    /// `congestionController` is what a viewer whose offer has transport-cc gets (every other viewer's REMB goes to
    /// the shared `ViewerBitratePolicy`, as do the players that offer no transport-cc, such as aiortc).
    public var media: WebRTCMediaConfiguration
    /// More viewers than this (connected or not) are refused: 503 with Retry-After.
    public var maxViewers: Int
    /// More viewers still connecting (no SRTP yet: ICE checks or the DTLS handshake) than this are refused: 503
    /// with Retry-After, so a burst of offers that never connect cannot hold every slot until their connect timeout.
    public var maxPendingViewers: Int = 8

    public init(media: WebRTCMediaConfiguration, maxViewers: Int = 16) {
        self.media = media
        self.maxViewers = maxViewers
    }

    @available(*, deprecated, message: "use init(media:maxViewers:): the fields WebRTCPublisherConfiguration shares are in WebRTCMediaConfiguration")
    public init(bind: SocketAddress, candidates: [SocketAddress] = [], encoding: WebRTCSDP.VideoEncoding,
                sequenceParameterSet: [UInt8]? = nil, pictureParameterSet: [UInt8]? = nil, videoParameterSet: [UInt8]? = nil,
                bitrateCeiling: UInt64,
                bitrateFloor: UInt64 = 150_000, maxViewers: Int = 16, maxPayloadSize: Int = 1200) {
        self.init(media: WebRTCMediaConfiguration(
            bind: bind, candidates: candidates, encoding: encoding, sequenceParameterSet: sequenceParameterSet,
            pictureParameterSet: pictureParameterSet, videoParameterSet: videoParameterSet, bitrateCeiling: bitrateCeiling,
            bitrateFloor: bitrateFloor, maxPayloadSize: maxPayloadSize), maxViewers: maxViewers)
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
    /// Its RFC 4588 RTX stream's SSRC when one was negotiated (NACKs answered and probes sent on it).
    public var rtxSSRC: UInt32? = nil
    /// NACKed packets re-sent (on RTX when negotiated).
    public var retransmissionsSent = 0
    /// Probe clusters sent whole as RTX padding, their padding-only packets, and clusters its controller asked for
    /// that could not be sent (no RTX).
    public var probeClustersSent = 0
    public var paddingPacketsSent = 0
    public var probesNotSent = 0
    /// Sent packets (media, RTX, probe padding) its transport-cc or RFC 8888 reports said arrived.
    public var feedbackPacketsReceived = 0
    /// That controller's word for the next frame, bytes (`BitrateAllocation.frameByteLimit`: rtenc's budget, 0 to
    /// skip it); nil for none.
    public var controllerFrameBudget: Int? = nil
    /// From an access unit queued for it to its first packet, and to its last, handed to the socket, over its last 64
    /// frames (`RTPSenderStatistics.firstPacketDelay`, `lastPacketDelay`).
    public var firstPacketDelay: RecentDurations.Summary? = nil
    public var lastPacketDelay: RecentDurations.Summary? = nil
}
