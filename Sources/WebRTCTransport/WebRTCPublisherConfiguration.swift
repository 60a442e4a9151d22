import CongestionControl
import RTPOut
import WebRTC

/// What a `WebRTCPublisher` offers and from where: the media part it shares with `WebRTCServerConfiguration`
/// (`media`, whose fields read through here too). Its `congestionController` runs when the server keeps
/// transport-cc in its answer (`stream --whip --cc gcc|rtenc`: offered beside REMB; a server that keeps only REMB,
/// such as aiortc, gets the REMB rule).
public struct WebRTCPublisherConfiguration: Sendable {
    public var media: WebRTCMediaConfiguration

    public init(media: WebRTCMediaConfiguration) { self.media = media }

    @available(*, deprecated, message: "use init(media:): the fields WebRTCServerConfiguration shares are in WebRTCMediaConfiguration")
    public init(bind: SocketAddress, candidates: [SocketAddress] = [], encoding: WebRTCSDP.VideoEncoding,
                sequenceParameterSet: [UInt8]? = nil, pictureParameterSet: [UInt8]? = nil, bitrateCeiling: UInt64,
                bitrateFloor: UInt64 = 150_000, maxPayloadSize: Int = 1200) {
        self.init(media: WebRTCMediaConfiguration(
            bind: bind, candidates: candidates, encoding: encoding, sequenceParameterSet: sequenceParameterSet,
            pictureParameterSet: pictureParameterSet, bitrateCeiling: bitrateCeiling, bitrateFloor: bitrateFloor,
            maxPayloadSize: maxPayloadSize))
    }

    // The shared fields, read through `media`.
    public var bind: SocketAddress { get { media.bind } set { media.bind = newValue } }
    public var candidates: [SocketAddress] { get { media.candidates } set { media.candidates = newValue } }
    public var encoding: WebRTCSDP.VideoEncoding { get { media.encoding } set { media.encoding = newValue } }
    public var sequenceParameterSet: [UInt8]? { get { media.sequenceParameterSet } set { media.sequenceParameterSet = newValue } }
    public var pictureParameterSet: [UInt8]? { get { media.pictureParameterSet } set { media.pictureParameterSet = newValue } }
    public var bitrateCeiling: UInt64 { get { media.bitrateCeiling } set { media.bitrateCeiling = newValue } }
    public var bitrateFloor: UInt64 { get { media.bitrateFloor } set { media.bitrateFloor = newValue } }
    public var congestionController: CongestionControllers.Entry? {
        get { media.congestionController }
        set { media.congestionController = newValue }
    }
    public var maxPayloadSize: Int { get { media.maxPayloadSize } set { media.maxPayloadSize = newValue } }
    public var consentTimeout: Duration { get { media.consentTimeout } set { media.consentTimeout = newValue } }
    public var connectTimeout: Duration { get { media.connectTimeout } set { media.connectTimeout = newValue } }
}
