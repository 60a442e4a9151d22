import DTLS
import RTPOut
import Testing
import WebRTC
import WebRTCTransport

/// `WebRTCServerConfiguration.immediatePlayout`: the answer to Chromium's offer (which offers playout-delay as id 5)
/// takes the extension by default and leaves it out when the player's own smoothing is wanted (`--smooth-playout`).
@Suite struct WebRTCServerPlayoutDelayTests {
    static func answer(immediatePlayout: Bool?) throws -> WebRTCSDP.MediaSection {
        var configuration = WebRTCServerConfiguration(
            bind: try SocketAddress(host: "127.0.0.1", port: 0), encoding: .h264(profile: .constrainedBaseline, level: .level3_1),
            bitrateCeiling: 1_000_000)
        if let immediatePlayout { configuration.immediatePlayout = immediatePlayout }
        let server = try WebRTCServer(configuration: configuration)
        defer { server.stop() }
        let offer = try WebRTCServerLoopbackTests.offer(fingerprint: DTLSCertificate().fingerprint)
        let (text, _) = try server.createSession(offer: offer)
        return try #require(try WebRTCSDP.Description(parsing: text).media.first)
    }

    @Test func answeredByDefault() throws {
        let video = try Self.answer(immediatePlayout: nil)
        #expect(video.extmaps.contains { $0.id == 5 && $0.uri == WebRTCSDP.Extmap.playoutDelayURI })
    }

    @Test func leftOutForTheSmoothPlayout() throws {
        let video = try Self.answer(immediatePlayout: false)
        #expect(!video.extmaps.contains { $0.uri == WebRTCSDP.Extmap.playoutDelayURI })
        #expect(video.extmaps.contains { $0.uri == WebRTCSDP.Extmap.sdesMidURI })
    }
}
