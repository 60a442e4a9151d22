import Testing
import WebRTC

/// RTX (RFC 4588) in the WHIP exchange: rtenc offers `rtx` for its video payload type when it has an RTX SSRC, and
/// uses it when the server's answer keeps that payload type with `apt` naming the video's.
@Suite struct WHIPRetransmissionTests {
    static let cb31 = WebRTCSDP.VideoEncoding.h264(profile: .constrainedBaseline, level: .level3_1)

    static var local: WebRTCSDP.LocalParameters {
        var local = SDPFixtures.local
        local.rtxSSRC = 0x0BAD_CAFE
        return local
    }

    @Test func theOfferCarriesRTX() throws {
        let offer = try WHIPOffer(encoding: Self.cb31, local: Self.local)
        #expect(offer.retransmission == .init(payloadType: 97, ssrc: 0x0BAD_CAFE))
        let lines = offer.text.split(separator: "\r\n").map(String.init)
        #expect(lines.contains("m=video 8189 UDP/TLS/RTP/SAVPF 96 97"))
        let from = try #require(lines.firstIndex(of: "a=rtpmap:97 rtx/90000"))
        #expect(Array(lines[from...]) == [
            "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
            "a=ssrc:305419896 cname:rtenc-cname", "a=ssrc:305419896 msid:rtenc video",
            "a=ssrc:195939070 cname:rtenc-cname", "a=ssrc:195939070 msid:rtenc video",
            "a=ssrc-group:FID 305419896 195939070",
        ])
        #expect(try WebRTCSDP.Description(parsing: offer.text) == offer.description)
        // At the top of the dynamic range the rtx payload type goes below.
        #expect(try WHIPOffer(encoding: Self.cb31, local: Self.local, payloadType: 127).retransmission?.payloadType == 126)
        // Without an RTX SSRC: the offer as before (its fixture).
        let plain = try WHIPOffer(encoding: Self.cb31, local: SDPFixtures.local)
        #expect(plain.retransmission == nil)
        #expect(try SDPFixtures.expectFixture(SDPFixtures.rtencWHIPOffer, equals: plain.text))
    }

    /// aiortc 1.4's recorded answer, with the rtx lines an answer to an offer with RTX would carry (edited as below).
    static let answers: [(replace: [(String, String)], rtx: UInt8?, why: String)] = [
        ([("SAVPF 96\r\n", "SAVPF 96 97\r\n"),
          ("a=fmtp:96 level", "a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\na=fmtp:96 level")], 97, "kept"),
        ([], nil, "an answer without rtx (the recorded one)"),
        ([("SAVPF 96\r\n", "SAVPF 96 97\r\n"),
          ("a=fmtp:96 level", "a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=100\r\na=fmtp:96 level")], nil, "apt to a payload type we do not send"),
        ([("a=fmtp:96 level", "a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\na=fmtp:96 level")], nil, "not on the m= line"),
        ([("SAVPF 96\r\n", "SAVPF 96 98\r\n"),
          ("a=fmtp:96 level", "a=rtpmap:98 rtx/90000\r\na=fmtp:98 apt=96\r\na=fmtp:96 level")], nil, "a payload type we did not offer"),
    ]

    @Test(arguments: answers)
    func theAnswerDecides(_ c: (replace: [(String, String)], rtx: UInt8?, why: String)) throws {
        let offer = try WHIPOffer(encoding: Self.cb31, local: Self.local)
        let text = try SDPFixtures.editing(SDPFixtures.aiortcAnswerToRtenc, replace: c.replace)
        let answer = try WHIPAnswer(answerText: text, offer: offer)
        #expect(answer.video.payloadType == 96, "\(c.why)")
        #expect(answer.video.retransmission?.payloadType == c.rtx, "\(c.why)")
        #expect(answer.video.retransmission.map { $0.ssrc == 0x0BAD_CAFE } ?? true, "\(c.why)")
    }
}
