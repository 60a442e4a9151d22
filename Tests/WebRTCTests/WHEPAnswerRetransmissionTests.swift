import Testing
import WebRTC

/// RTX (RFC 4588) in the WHEP answer: taken when we have an SSRC for it and the offer has an `rtx` whose `apt` is the
/// payload type we chose (Chromium 156's default offer has one per codec), answered with the offer's payload type,
/// `a=ssrc-group:FID` and the offer's `rtx-time`; passed over (the answer without RTX) otherwise.
@Suite struct WHEPAnswerRetransmissionTests {
    static let cb31 = WebRTCSDP.VideoEncoding.h264(profile: .constrainedBaseline, level: .level3_1)
    static let rtxSSRC: UInt32 = 0x0BAD_CAFE

    static var local: WebRTCSDP.LocalParameters {
        var local = SDPFixtures.local
        local.rtxSSRC = rtxSSRC
        return local
    }

    /// Chromium's default recvonly offer (rtx for every codec): 108 is chosen, 109 (`apt=108`) retransmits it.
    @Test func answersChromiumsRTXForTheChosenPayloadType() throws {
        let answer = try WHEPAnswer(offerText: SDPFixtures.text(SDPFixtures.defaultOffer), encoding: Self.cb31, local: Self.local)
        #expect(answer.warnings.isEmpty, "\(answer.warnings)")
        #expect(answer.video.payloadType == 108)
        #expect(answer.video.retransmission == .init(payloadType: 109, ssrc: Self.rtxSSRC, rtxTime: nil))
        // The lines, in the writer's order (0x12345678 = 305419896, 0x0BADCAFE = 195939070).
        let lines = answer.text.split(separator: "\r\n").map(String.init)
        #expect(lines.contains("m=video 8189 UDP/TLS/RTP/SAVPF 108 109"))
        let from = try #require(lines.firstIndex(of: "a=rtpmap:108 H264/90000"))
        #expect(Array(lines[from...]) == [
            "a=rtpmap:108 H264/90000",
            "a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
            "a=rtcp-fb:108 nack", "a=rtcp-fb:108 nack pli", "a=rtcp-fb:108 ccm fir", "a=rtcp-fb:108 goog-remb",
            "a=rtpmap:109 rtx/90000",
            "a=fmtp:109 apt=108",
            "a=ssrc:305419896 cname:rtenc-cname", "a=ssrc:305419896 msid:rtenc video",
            "a=ssrc:195939070 cname:rtenc-cname", "a=ssrc:195939070 msid:rtenc video",
            "a=ssrc-group:FID 305419896 195939070",
        ])
        // It reads back as written: the rtx codec and its apt.
        let parsed = try WebRTCSDP.Description(parsing: answer.text)
        #expect(parsed == answer.description)
        #expect(parsed.media[0].codec(payloadType: 109)?.associatedPayloadType == 108)
    }

    /// With transport-cc the feedback changes, the RTX lines do not.
    @Test func transportCCKeepsRTX() throws {
        var local = Self.local
        local.transportCC = true
        let answer = try WHEPAnswer(offerText: SDPFixtures.text(SDPFixtures.defaultOffer), encoding: Self.cb31, local: local)
        #expect(answer.video.transportCCExtensionID == 4)
        #expect(answer.video.retransmission?.payloadType == 109)
        #expect(answer.text.contains("a=rtcp-fb:108 transport-cc\r\na=rtpmap:109 rtx/90000\r\na=fmtp:109 apt=108\r\n"))
    }

    /// Offers (edits of Chromium's default one) and what the answer makes of their RTX: the payload type and
    /// rtx-time taken (nil: none), the fmtp written, and whether a warning says why one was passed over.
    static let cases: [(replace: [(String, String)], rtx: UInt8?, rtxTime: Int?, fmtp: String?, warns: Bool, why: String)] = [
        ([], 109, nil, "apt=108", false, "as recorded"),
        ([("a=fmtp:109 apt=108", "a=fmtp:109 apt=108;rtx-time=3000")], 109, 3000, "apt=108;rtx-time=3000", false,
         "rtx-time echoed"),
        ([("a=fmtp:109 apt=108", "a=fmtp:109 rtx-time=200;apt=108")], 109, 200, "apt=108;rtx-time=200", false,
         "either order in; ours out"),
        ([("a=fmtp:109 apt=108", "a=fmtp:109 apt=108;rtx-time=soon")], 109, nil, "apt=108", true, "an rtx-time that is no number: left out"),
        ([("a=rtpmap:109 rtx/90000", "a=rtpmap:109 RTX/90000")], 109, nil, "apt=108", false, "the name in any case"),
        ([("a=fmtp:109 apt=108", "a=fmtp:109 apt=102")], nil, nil, nil, false, "apt names a payload type we do not send"),
        ([("a=fmtp:109 apt=108", "a=fmtp:109 x=1")], nil, nil, nil, false, "no apt: retransmits nothing"),
        ([("a=fmtp:109 apt=108", "a=fmtp:109 apt=1o8")], nil, nil, nil, false, "an apt that is no payload type"),
        ([("a=rtpmap:109 rtx/90000", "a=rtpmap:109 rtx/48000")], nil, nil, nil, true, "another clock rate (RFC 4588 §8.6)"),
        ([(" 108 109 ", " 108 ")], nil, nil, nil, false, "not on the m= line (the parser keeps only the m= line's codecs)"),
        ([("a=rtpmap:109 rtx/90000", "a=rtpmap:109 VP8/90000")], nil, nil, nil, false, "109 is no rtx"),
    ]

    @Test(arguments: cases)
    func takesOrPassesOver(_ c: (replace: [(String, String)], rtx: UInt8?, rtxTime: Int?, fmtp: String?, warns: Bool, why: String)) throws {
        let text = try SDPFixtures.editing(SDPFixtures.defaultOffer, replace: c.replace)
        let answer = try WHEPAnswer(offerText: text, encoding: Self.cb31, local: Self.local)
        #expect(answer.video.payloadType == 108, "\(c.why)")
        #expect(answer.video.retransmission?.payloadType == c.rtx, "\(c.why)")
        #expect(answer.video.retransmission?.rtxTime == c.rtxTime, "\(c.why)")
        #expect(answer.warnings.isEmpty == !c.warns, "\(c.why): \(answer.warnings)")
        let section = answer.description.media[0]
        if let rtx = c.rtx, let fmtp = c.fmtp {
            #expect(section.formats == ["108", "\(rtx)"], "\(c.why)")
            #expect(answer.text.contains("\r\na=fmtp:\(rtx) \(fmtp)\r\n"), "\(c.why)")
            #expect(answer.text.contains("\r\na=ssrc-group:FID 305419896 195939070\r\n"), "\(c.why)")
        } else {
            #expect(section.formats == ["108"], "\(c.why)")
            #expect(section.codecs.count == 1 && section.ssrcAttributes.count == 2, "\(c.why)")
            #expect(!answer.text.contains("rtx") && !answer.text.contains("ssrc-group"), "\(c.why)")
        }
    }

    /// No RTX without an SSRC for it, and none when the offer has none (the H.264-only recorded offer: Chromium drops
    /// rtx when the page's codec preferences leave it out).
    @Test func noRTXUnlessBothSidesHaveIt() throws {
        let without = try WHEPAnswer(offerText: SDPFixtures.text(SDPFixtures.defaultOffer), encoding: Self.cb31, local: SDPFixtures.local)
        #expect(without.video.retransmission == nil && !without.text.contains("rtx"))
        let noneOffered = try WHEPAnswer(offerText: SDPFixtures.text(SDPFixtures.whepOffer), encoding: Self.cb31, local: Self.local)
        #expect(noneOffered.video.retransmission == nil && noneOffered.warnings.isEmpty)
        #expect(try SDPFixtures.expectFixture(SDPFixtures.rtencWHEPAnswer, equals: noneOffered.text), "the answer as before")
    }

    /// The RTX SSRC must differ from the media SSRC (RFC 4588 §4: a stream of its own).
    @Test func theRTXSSRCIsNotTheMediaSSRC() throws {
        var local = SDPFixtures.local
        local.rtxSSRC = local.ssrc
        #expect { try WHEPAnswer(offerText: SDPFixtures.text(SDPFixtures.defaultOffer), encoding: Self.cb31, local: local) } throws: {
            ($0 as? WebRTCError)?.code == .invalidLocalParameters
        }
    }
}
