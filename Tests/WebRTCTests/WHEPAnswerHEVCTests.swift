import Bitstream
import RTP
import Testing
import WebRTC

/// `rtenc serve --codec hevc`'s answers (RFC 7798 §7.2.2): which H.265 payload type of a real offer carries the
/// encoder's stream, what the answer's fmtp says, and which offers are refused with what reason.
@Suite struct WHEPAnswerHEVCTests {
    static func main(_ levelID: UInt8) -> WebRTCSDP.VideoEncoding { .hevc(.init(profileID: 1, tierFlag: 0, levelID: levelID)) }
    static func main10(_ levelID: UInt8) -> WebRTCSDP.VideoEncoding { .hevc(.init(profileID: 2, tierFlag: 0, levelID: levelID)) }

    /// Chrome 144 on macOS (str0m issue #860, github.com/algesten/str0m/issues/860): its two H.265 payload types,
    /// Main and Main 10 at level-id 180 (6.0), put in place of the H.264 ones of the recorded Chromium 156 offer.
    static let chrome144H265 = "a=rtpmap:49 H265/90000\r\na=rtcp-fb:49 goog-remb\r\na=rtcp-fb:49 transport-cc\r\n"
        + "a=rtcp-fb:49 ccm fir\r\na=rtcp-fb:49 nack\r\na=rtcp-fb:49 nack pli\r\n"
        + "a=fmtp:49 level-id=180;profile-id=1;tier-flag=0;tx-mode=SRST\r\na=rtpmap:50 rtx/90000\r\na=fmtp:50 apt=49\r\n"
        + "a=rtpmap:51 H265/90000\r\na=rtcp-fb:51 goog-remb\r\na=rtcp-fb:51 transport-cc\r\na=rtcp-fb:51 ccm fir\r\n"
        + "a=rtcp-fb:51 nack\r\na=rtcp-fb:51 nack pli\r\n"
        + "a=fmtp:51 level-id=180;profile-id=2;tier-flag=0;tx-mode=SRST\r\na=rtpmap:52 rtx/90000\r\na=fmtp:52 apt=51\r\n"

    /// The Chromium 156 WHEP offer with `lines` (H.265 payload types 49…) in front of its H.264 ones.
    static func chromium156(with lines: String, formats: String) throws -> String {
        try SDPFixtures.editing(SDPFixtures.whepOffer, replace: [
            ("RTP/SAVPF 102 104", "RTP/SAVPF \(formats) 102 104"), ("a=rtpmap:102 H264", "\(lines)a=rtpmap:102 H264"),
        ])
    }

    /// The offer of case `c`: the libwebrtc fixture as recorded (with `fmtp` replacing its H.265 fmtp when given), or
    /// one of the edited Chromium 156 offers.
    enum Offer: Sendable {
        case libwebrtc(fmtp: String?)
        case chrome144
        /// Safari leaves H265/90000 without any fmtp (amazon-kinesis-video-streams-webrtc-sdk-c PR #1965): RFC 7798's
        /// defaults, Main, Main tier, level 3.1.
        case safariStyleNoFmtp
        case chromium156

        func text() throws -> String {
            switch self {
            case .libwebrtc(let fmtp):
                try SDPFixtures.editing(SDPFixtures.libwebrtcHEVCOffer, replace: fmtp.map {
                    [("a=fmtp:49 level-id=93;profile-id=1;tier-flag=0;tx-mode=SRST", "a=fmtp:49 \($0)")]
                } ?? [])
            case .chrome144: try WHEPAnswerHEVCTests.chromium156(with: WHEPAnswerHEVCTests.chrome144H265, formats: "49 50 51 52")
            case .safariStyleNoFmtp:
                try WHEPAnswerHEVCTests.chromium156(with: "a=rtpmap:49 H265/90000\r\na=rtcp-fb:49 nack pli\r\n", formats: "49")
            case .chromium156: try SDPFixtures.text(SDPFixtures.whepOffer)
            }
        }
    }

    static let accepted: [(offer: Offer, encoding: WebRTCSDP.VideoEncoding, payloadType: UInt8, fmtp: String, why: String)] = [
        (.libwebrtc(fmtp: nil), main(93), 49, "level-id=93;profile-id=1;tier-flag=0;tx-mode=SRST", "Main 3.1, the offer's own level"),
        (.libwebrtc(fmtp: nil), main(90), 49, "level-id=90;profile-id=1;tier-flag=0;tx-mode=SRST",
         "Main 3: the answer's level-id is ours, below the offered one (RFC 7798 §7.2.2)"),
        (.libwebrtc(fmtp: "level-id=93;profile-id=1;tier-flag=0;tx-mode=SRST;max-recv-level-id=120"), main(120), 49,
         "level-id=120;profile-id=1;tier-flag=0;tx-mode=SRST;max-recv-level-id=120",
         "max-recv-level-id lets level 4 in where level-id alone would not"),
        (.libwebrtc(fmtp: "level-id=93;profile-id=1;tier-flag=1;tx-mode=SRST"), main(93), 49,
         "level-id=93;profile-id=1;tier-flag=1;tx-mode=SRST", "a High tier decoder takes a Main tier stream"),
        (.chrome144, main(120), 49, "level-id=120;profile-id=1;tier-flag=0;tx-mode=SRST", "Chrome 144: Main at level 4"),
        (.chrome144, main10(93), 51, "level-id=93;profile-id=2;tier-flag=0;tx-mode=SRST", "Chrome 144: Main 10"),
        (.safariStyleNoFmtp, main(93), 49, "level-id=93", "no fmtp: level 3.1 by default, our level-id written"),
    ]

    @Test(arguments: accepted)
    func answers(_ c: (offer: Offer, encoding: WebRTCSDP.VideoEncoding, payloadType: UInt8, fmtp: String, why: String)) throws {
        let answer = try WHEPAnswer(offerText: c.offer.text(), encoding: c.encoding, local: SDPFixtures.local)
        #expect(answer.video.payloadType == c.payloadType, "\(c.why)")
        #expect(answer.text.contains("\r\na=rtpmap:\(c.payloadType) H265/90000\r\na=fmtp:\(c.payloadType) \(c.fmtp)\r\n"),
                "\(c.why): \(answer.text)")
        #expect(answer.warnings.isEmpty, "\(c.why): \(answer.warnings)")
        let video = try #require(WebRTCSDP.Description(parsing: answer.text).media.first { $0.port != 0 })
        #expect(video.formats == ["\(c.payloadType)"] && video.codecs.count == 1, "one payload type, no RTX: \(c.why)")
    }

    /// The recorded libwebrtc offer, whole: the audio section refused, the video answered on mid 1 alone in the BUNDLE,
    /// its feedback and header extensions as offered (ids kept), the DTLS role ours.
    @Test func libwebrtcOfferFieldByField() throws {
        let answer = try WHEPAnswer(offerText: SDPFixtures.text(SDPFixtures.libwebrtcHEVCOffer), encoding: Self.main(93),
                                    local: SDPFixtures.local)
        let parsed = try WebRTCSDP.Description(parsing: answer.text)
        #expect(parsed.media.map(\.kind) == ["audio", "video"])
        #expect(parsed.media.map(\.port) == [0, 8189])
        #expect(parsed.bundle == ["1"])
        #expect(parsed.iceLite)
        #expect(answer.video.mid == "1")
        #expect(answer.video.feedback == [.nack, .pictureLossIndication, .fullIntraRequest, .receiverEstimatedMaximumBitrate])
        #expect(answer.video.absSendTimeID == 2 && answer.video.midExtensionID == 4 && answer.video.transportCCExtensionID == nil)
        #expect(answer.video.dtlsRole == .client && parsed.media[1].setup == .active)
        #expect(answer.video.codec.parameters["level-id"] == "93", "the negotiated codec is the offered one")
        #expect(answer.remote.iceUfrag == "OaAE")
        #expect(answer.remote.fingerprints.first?.bytes.prefix(3) == [0x4F, 0xAC, 0xD4])
    }

    static let refused: [(offer: Offer, encoding: WebRTCSDP.VideoEncoding, says: [String], why: String)] = [
        (.libwebrtc(fmtp: nil), main(120),
         ["the stream's level 4 (level-id 120) is above the highest level the offer receives in profile-id 1",
          "level 3.1 (level-id 93, payload type 49)", "a smaller picture"], "Main 4 against level 3.1"),
        (.safariStyleNoFmtp, main(120), ["level 3.1 (level-id 93, payload type 49)"], "no fmtp is level 3.1"),
        (.chrome144, main(183), ["level 6.1 (level-id 183)", "level 6 (level-id 180, payload type 49)"],
         "above Chrome 144's 6.0"),
        (.libwebrtc(fmtp: nil), main10(93), ["no H.265 payload type for profile-id 2, tier-flag 0", "(it offers profile-id 1)"],
         "Main 10 against a Main-only offer"),
        (.libwebrtc(fmtp: nil), .hevc(.init(profileID: 1, tierFlag: 1, levelID: 93)), ["profile-id 1, tier-flag 1"],
         "a High tier stream against a Main tier decoder"),
        (.chromium156, main(93),
         ["the player offered no H.265 (its video codecs: H264)", "cannot decode H.265 over WebRTC",
          "serve it with --codec h264, which it offers"], "Chromium 156 here: no HEVC decoder, no H.265 offered"),
    ]

    @Test(arguments: refused)
    func refuses(_ c: (offer: Offer, encoding: WebRTCSDP.VideoEncoding, says: [String], why: String)) throws {
        let text = try c.offer.text()
        do {
            let answer = try WHEPAnswer(offerText: text, encoding: c.encoding, local: SDPFixtures.local)
            Issue.record("\(c.why): answered with payload type \(answer.video.payloadType)")
        } catch {
            #expect(error.code == .noCompatibleCodec, "\(c.why): \(error)")
            for fragment in c.says { #expect(error.reason.contains(fragment), "\(c.why): \(error.reason)") }
        }
    }

    /// Neither codec: the reason says H.264 will not do either.
    @Test func anOfferWithoutH264OrH265() throws {
        let text = try SDPFixtures.editing(SDPFixtures.defaultOffer, drop: { $0.contains(" H264/") || $0.contains("apt=102") })
        #expect { try WHEPAnswer(offerText: text, encoding: Self.main(93), local: SDPFixtures.local) } throws: { error in
            guard let error = error as? WebRTCError else { return false }
            return error.code == .noCompatibleCodec && error.reason.contains("it offers no H.264 either")
                && error.reason.contains("VP8")
        }
    }

    /// A max-recv-level-id that is not a number passes that payload type over with a warning, never a crash.
    @Test func aBadMaxRecvLevelIDIsPassedOver() throws {
        let text = try Offer.chrome144.text().replacingOccurrences(
            of: "a=fmtp:49 level-id=180;", with: "a=fmtp:49 max-recv-level-id=x;level-id=180;")
        let answer = try WHEPAnswer(offerText: text, encoding: Self.main(93), local: SDPFixtures.local)
        #expect(answer.video.payloadType == 51, "Main goes to the Main 10 payload type when the Main one is unreadable")
        #expect(answer.warnings.contains { $0.contains("payload type 49: max-recv-level-id=x") }, "\(answer.warnings)")
    }
}
