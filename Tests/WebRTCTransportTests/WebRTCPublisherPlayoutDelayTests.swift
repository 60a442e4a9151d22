import DTLS
import Foundation
import RTPOut
import Testing
import WebRTC
import WebRTCTransport

/// `WebRTCPublisherConfiguration.immediatePlayout` (`stream --whip`, off with `--smooth-playout`): the offer carries
/// playout-delay, and the packets carry min = max = 0 on it exactly when the server's answer kept it — against the
/// fake WHIP server of `WebRTCPublisherLoopbackTests` (no real WHIP server here echoes the extension: aiortc's answer
/// drops it, see `WHIPOfferAnswerTests.playoutDelayIsOfferedAndTheAnswerDecides`).
@Suite(.serialized) struct WebRTCPublisherPlayoutDelayTests {
    static let extmap = "a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"

    /// The offer, and the media packets (SRTP removed) of eight IDRs sent after connecting to a server whose answer
    /// has playout-delay when `answerKeeps`.
    static func publish(immediatePlayout: Bool?, answerKeeps: Bool) throws -> (offer: WebRTCSDP.MediaSection, packets: [RTPPacket]) {
        var configuration = WebRTCPublisherConfiguration(media: WebRTCMediaConfiguration(
            bind: try SocketAddress(host: "127.0.0.1", port: 0), encoding: .h264(profile: .constrainedBaseline, level: .level3_1),
            sequenceParameterSet: WebRTCPublisherLoopbackTests.sps, pictureParameterSet: WebRTCPublisherLoopbackTests.pps,
            bitrateCeiling: 2_000_000))
        if let immediatePlayout { configuration.immediatePlayout = immediatePlayout }
        let publisher = try WebRTCPublisher(configuration: configuration)
        defer { publisher.stop() }
        let offer = try #require(try WebRTCSDP.Description(parsing: publisher.offer).media.first)

        let server = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let certificate = try DTLSCertificate()
        var lite = ICELiteAgent(configuration: .init(local: WebRTCPublisherLoopbackTests.serverCredentials, remoteUfrag: offer.iceUfrag),
                                startedAt: WebRTCPublisherLoopbackTests.now())
        let dtls = try DTLSEndpoint(role: .client, certificate: certificate, remoteFingerprint: publisher.certificate.fingerprint)
        var answer = WebRTCPublisherLoopbackTests.answer(port: server.localAddress.port, fingerprint: certificate.fingerprint)
        if answerKeeps {
            let absSendTime = "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
            #expect(answer.contains(absSendTime))
            answer = answer.replacingOccurrences(of: absSendTime, with: absSendTime + "\r\n" + extmap)
        }
        try publisher.connect(answer: answer)
        let keys = try #require(try WebRTCPublisherLoopbackTests.serve(server, publisher: publisher, lite: &lite, dtls: dtls,
                                                                       timeout: .seconds(10)).srtp)
        usleep(100_000)  // our last flight reaches the publisher and it exports too
        for n in 1 ... 8 { publisher.send(WebRTCPublisherLoopbackTests.accessUnit(keyframe: true, at: Double(n) / 30)) }
        let media = try WebRTCPublisherLoopbackTests.receive(server, timeout: .milliseconds(500)).filter { PacketClass(classifying: $0) == .rtp }
        let packets = try media.map { datagram -> RTPPacket in
            var packet = datagram
            let length = try packet.withUnsafeMutableBytes { try keys.unprotect(rtp: $0, length: $0.count) }
            return try RTPPacket(parsing: packet[..<length])
        }
        return (offer, packets)
    }

    static let cases: [(immediatePlayout: Bool?, answerKeeps: Bool, offered: Bool, sent: Bool, why: String)] = [
        (nil, true, true, true, "offered by default; the answer keeps it: min = max = 0 on every packet"),
        (nil, false, true, false, "offered; an answer without it (aiortc's): not sent"),
        (false, true, false, false, "--smooth-playout: not offered, and not sent though the answer names it"),
    ]

    @Test(.timeLimit(.minutes(1)), arguments: cases)
    func sentWhenOfferedAndKept(_ c: (immediatePlayout: Bool?, answerKeeps: Bool, offered: Bool, sent: Bool, why: String)) throws {
        let (offer, packets) = try Self.publish(immediatePlayout: c.immediatePlayout, answerKeeps: c.answerKeeps)
        #expect(offer.extmapID(WebRTCSDP.Extmap.playoutDelayURI) == (c.offered ? 5 : nil), "\(c.why)")
        #expect(packets.count >= 4 * 8, "\(c.why): the IDRs arrived")
        let delays = packets.map { $0.header.extension?.element(id: 5).map(Array.init) }
        #expect(delays.allSatisfy { $0 == (c.sent ? [0, 0, 0] : nil) }, "\(c.why): \(Set(delays.map { "\($0 ?? [])" }))")
        #expect(packets.allSatisfy { $0.header.extension?.element(id: 2)?.count == 3 }, "\(c.why): abs-send-time on every packet")
    }
}
