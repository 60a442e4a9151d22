import CongestionControl
import RTPOut
import WebRTC

/// What a `WebRTCPublisher` offers and from where: the media part it shares with `WebRTCServerConfiguration`
/// (`media`, whose fields read through here too). Its `congestionController` runs when the server keeps
/// transport-cc in its answer (`stream --whip --cc gcc|rtenc`: offered beside REMB; a server that keeps only REMB,
/// such as aiortc, gets the REMB rule).
public struct WebRTCPublisherConfiguration: WebRTCMediaConfigured, Sendable {
    public var media: WebRTCMediaConfiguration

    public init(media: WebRTCMediaConfiguration) { self.media = media }

    @available(*, deprecated, message: "use init(media:): the fields WebRTCServerConfiguration shares are in WebRTCMediaConfiguration")
    public init(bind: SocketAddress, candidates: [SocketAddress] = [], encoding: WebRTCSDP.VideoEncoding,
                sequenceParameterSet: [UInt8]? = nil, pictureParameterSet: [UInt8]? = nil, videoParameterSet: [UInt8]? = nil,
                bitrateCeiling: UInt64,
                bitrateFloor: UInt64 = 150_000, maxPayloadSize: Int = 1200) {
        self.init(media: WebRTCMediaConfiguration(
            bind: bind, candidates: candidates, encoding: encoding, sequenceParameterSet: sequenceParameterSet,
            pictureParameterSet: pictureParameterSet, videoParameterSet: videoParameterSet, bitrateCeiling: bitrateCeiling, bitrateFloor: bitrateFloor,
            maxPayloadSize: maxPayloadSize))
    }
}
