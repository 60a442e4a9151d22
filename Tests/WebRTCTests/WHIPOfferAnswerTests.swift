import Testing
import WebRTC

@Suite struct WHIPOfferAnswerTests {
    static let cb31 = WebRTCSDP.VideoEncoding.h264(profile: .constrainedBaseline, level: .level3_1)

    /// rtenc's WHIP offer, byte for byte: the fixture scripts/capture-webrtc-sdp.sh hands aiortc (RTENC_RECORD_FIXTURES=1
    /// rewrites it after a deliberate change).
    @Test func offerMatchesItsFixture() throws {
        let offer = try WHIPOffer(encoding: Self.cb31, local: SDPFixtures.local)
        #expect(try SDPFixtures.expectFixture(SDPFixtures.rtencWHIPOffer, equals: offer.text))
    }

    @Test func offerFieldByField() throws {
        let offer = try WHIPOffer(encoding: Self.cb31, local: SDPFixtures.local)
        let parsed = try WebRTCSDP.Description(parsing: offer.text)
        #expect(parsed == offer.description)
        #expect(!parsed.iceLite, "rtenc runs full ICE as the controlling agent")
        #expect(parsed.bundle == ["0"])
        let video = try #require(parsed.media.first)
        #expect(parsed.media.count == 1)
        #expect(video.direction == .sendonly)
        #expect(video.setup == .actpass)
        #expect(video.rtcpMux && video.rtcpRsize)
        #expect(video.port == 8189 && video.connection == .init(address: "127.0.0.1"))
        #expect(video.candidates.map(\.address) == ["127.0.0.1", "::1"])
        #expect(video.candidates.allSatisfy { $0.type == "host" && $0.transport == "udp" && $0.component == 1 })
        #expect(video.endOfCandidates)
        #expect(video.iceOptions.isEmpty, "no trickle")
        #expect(video.formats == ["96"])
        let codec = try #require(video.codecs.first)
        #expect(codec.isEncoding("H264"))
        #expect(codec.parameters.text == "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
        #expect(codec.feedback == [.nack, .pictureLossIndication, .fullIntraRequest, .receiverEstimatedMaximumBitrate])
        #expect(video.extmapID(WebRTCSDP.Extmap.absSendTimeURI) == 2 && video.extmapID(WebRTCSDP.Extmap.sdesMidURI) == 9)
        #expect(video.ssrcAttributes.first == .init(ssrc: 0x1234_5678, name: "cname", value: "rtenc-cname"))
    }

    static let profiles: [(WebRTCSDP.VideoEncoding, String)] = [
        (.h264(profile: .constrainedBaseline, level: .level3_1), "42e01f"),
        (.h264(profile: .main, level: .level4), "4d0028"),
        (.h264(profile: .high, level: .level5_1), "640033"),
        (.h264(profile: .constrainedBaseline, level: .level1b), "42f00b"),
    ]

    @Test(arguments: profiles)
    func offeredProfileLevelID(_ c: (WebRTCSDP.VideoEncoding, String)) throws {
        let offer = try WHIPOffer(encoding: c.0, local: SDPFixtures.local)
        #expect(offer.description.media[0].codecs[0].parameters["profile-level-id"] == c.1)
    }

    @Test func hevcOffer() throws {
        let offer = try WHIPOffer(encoding: .hevc(.init(profileID: 1, tierFlag: 0, levelID: 120)), local: SDPFixtures.local, payloadType: 98)
        #expect(offer.text.contains("m=video 8189 UDP/TLS/RTP/SAVPF 98\r\n"))
        #expect(offer.text.contains("a=rtpmap:98 H265/90000\r\na=fmtp:98 profile-id=1;tier-flag=0;level-id=120\r\n"))
        #expect { try WHIPOffer(encoding: Self.cb31, local: SDPFixtures.local, payloadType: 95) } throws: {
            ($0 as? WebRTCError)?.code == .invalidLocalParameters
        }
    }

    /// aiortc 1.4.0's real answer to the offer above (scripts/capture-webrtc-sdp.sh).
    @Test func checksAiortcsAnswer() throws {
        let offer = try WHIPOffer(encoding: Self.cb31, local: SDPFixtures.local)
        let answer = try WHIPAnswer(answerText: SDPFixtures.text(SDPFixtures.aiortcAnswerToRtenc), offer: offer)
        #expect(answer.warnings.isEmpty, "\(answer.warnings)")
        #expect(answer.video.payloadType == 96)
        #expect(answer.video.mid == "0")
        #expect(answer.video.dtlsRole == .server, "aiortc answers setup:active, so rtenc is the DTLS server")
        #expect(answer.video.feedback == [.nack, .pictureLossIndication, .receiverEstimatedMaximumBitrate])
        #expect(answer.video.absSendTimeID == 2 && answer.video.midExtensionID == 9)
        #expect(!answer.remote.iceLite)
        #expect(answer.remote.iceUfrag.count >= 4 && answer.remote.icePwd.count >= 22)
        #expect(answer.remote.fingerprints.first?.hashFunction == "sha-256")
        #expect(!answer.remote.candidates.isEmpty && answer.remote.candidates.allSatisfy { $0.type == "host" })
        #expect(answer.remote.endOfCandidates)
    }

    /// Asked for transport-cc (`stream --whip --cc gcc`), the offer lists it and its extension beside REMB and
    /// abs-send-time; the answer decides: aiortc's keeps REMB only, a server that keeps transport-cc gets it.
    @Test func transportCCIsOfferedBesideREMBAndTheAnswerDecides() throws {
        var local = SDPFixtures.local
        local.transportCC = true
        let offer = try WHIPOffer(encoding: Self.cb31, local: local)
        let video = try #require(offer.description.media.first)
        #expect(video.codecs.first?.feedback == [.nack, .pictureLossIndication, .fullIntraRequest, .receiverEstimatedMaximumBitrate, .transportCC])
        #expect(video.extmapID(WebRTCSDP.Extmap.absSendTimeURI) == 2 && video.extmapID(WebRTCSDP.Extmap.transportWideCCURI) == 4)
        let aiortc = try WHIPAnswer(answerText: SDPFixtures.text(SDPFixtures.aiortcAnswerToRtenc), offer: offer)
        #expect(aiortc.video.feedback == [.nack, .pictureLossIndication, .receiverEstimatedMaximumBitrate])
        #expect(aiortc.video.transportCCExtensionID == nil)
        let keeping = try SDPFixtures.editing(SDPFixtures.aiortcAnswerToRtenc, replace: [
            ("a=rtcp-fb:96 goog-remb", "a=rtcp-fb:96 transport-cc"),
            ("a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
             "a=extmap:4 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"),
        ])
        let answer = try WHIPAnswer(answerText: keeping, offer: offer)
        #expect(answer.video.feedback.contains(.transportCC) && !answer.video.feedback.contains(.receiverEstimatedMaximumBitrate))
        #expect(answer.video.transportCCExtensionID == 4 && answer.video.absSendTimeID == nil)
    }

    /// `stream --whip` offers playout-delay (id 5, as Chromium numbers it) unless `--smooth-playout`; the answer
    /// decides: aiortc's answer leaves it out, a server that keeps it (webrtcbin echoes what it can pass on) gives the
    /// id it is sent with, and an answer that names it though we did not offer it gets nothing.
    static let playoutDelayCases: [(offered: Bool, answerLine: String?, expected: UInt16?, why: String)] = [
        (true, nil, nil, "aiortc's answer has no playout-delay"),
        (true, "a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay", 5, "echoed with our id"),
        (true, "a=extmap:12 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay", 12, "echoed with the server's id"),
        (false, "a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay", nil, "answered though not offered"),
    ]

    @Test(arguments: playoutDelayCases)
    func playoutDelayIsOfferedAndTheAnswerDecides(_ c: (offered: Bool, answerLine: String?, expected: UInt16?, why: String)) throws {
        var local = SDPFixtures.local
        local.playoutDelay = c.offered
        let offer = try WHIPOffer(encoding: Self.cb31, local: local)
        #expect(offer.playoutDelay == c.offered)
        #expect(offer.description.media[0].extmapID(WebRTCSDP.Extmap.playoutDelayURI) == (c.offered ? 5 : nil), "\(c.why)")
        #expect(offer.text.contains("a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay\r\n") == c.offered)
        let aiortc = SDPFixtures.aiortcAnswerToRtenc
        let text = try c.answerLine.map { line in
            try SDPFixtures.editing(aiortc, replace: [("a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid",
                                                       "a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid\r\n" + line)])
        } ?? SDPFixtures.text(aiortc)
        #expect(c.answerLine.map(text.contains) ?? true, "\(c.why): the edit took")
        let answer = try WHIPAnswer(answerText: text, offer: offer)
        #expect(answer.video.playoutDelayID == c.expected, "\(c.why)")
        #expect(answer.video.midExtensionID == 9 && answer.video.absSendTimeID == 2, "\(c.why): the other extensions unchanged")
    }

    static let answerEdits: [(drop: [String], replace: [(String, String)], code: WebRTCError.Code?, says: String, why: String)] = [
        ([], [("a=setup:active", "a=setup:passive")], nil, "", "passive: rtenc is the DTLS client"),
        ([], [("a=setup:active", "a=setup:actpass")], .unacceptable, "must say active or passive", "actpass in an answer"),
        (["a=setup"], [], nil, "no a=setup", "absent setup: active"),
        (["a=fingerprint"], [], .unacceptable, "fingerprint", "no fingerprint"),
        (["a=ice-ufrag"], [], .unacceptable, "ice-ufrag", "no ufrag"),
        (["a=rtcp-mux"], [], .unacceptable, "rtcp-mux", "no rtcp-mux"),
        ([], [("a=recvonly", "a=inactive")], .unacceptable, "does not receive", "inactive"),
        ([], [("a=recvonly", "a=sendrecv")], nil, "sendrecv", "sendrecv tolerated"),
        (["a=group:BUNDLE"], [], nil, "BUNDLE", "no BUNDLE: one section anyway"),
        (["a=candidate", "a=end-of-candidates"], [], nil, "no candidates", "no candidates"),
        ([], [("packetization-mode=1", "packetization-mode=0")], .noCompatibleCodec, "packetization-mode=0", "mode 0"),
    ]

    @Test(arguments: answerEdits)
    func checksEditedAnswers(_ c: (drop: [String], replace: [(String, String)], code: WebRTCError.Code?, says: String, why: String)) throws {
        let offer = try WHIPOffer(encoding: Self.cb31, local: SDPFixtures.local)
        let text = try SDPFixtures.editing(SDPFixtures.aiortcAnswerToRtenc, drop: { line in c.drop.contains { line.hasPrefix($0) } },
                                           replace: c.replace)
        do {
            let answer = try WHIPAnswer(answerText: text, offer: offer)
            #expect(c.code == nil, "\(c.why): accepted")
            #expect(c.says.isEmpty || answer.warnings.contains { $0.contains(c.says) }, "\(c.why): \(answer.warnings)")
            if c.why.hasPrefix("passive") { #expect(answer.video.dtlsRole == .client) }
        } catch {
            #expect(error.code == c.code, "\(c.why): \(error)")
            #expect(error.reason.contains(c.says), "\(c.why): \(error.reason)")
        }
    }

    @Test func refusesAnAnswerThatIsNotOurs() throws {
        let offer = try WHIPOffer(encoding: Self.cb31, local: SDPFixtures.local)
        // aiortc's answer to Chromium's offer: payload types 102 and 108, not our 96.
        #expect { try WHIPAnswer(answerText: SDPFixtures.text(SDPFixtures.aiortcAnswerToChromium), offer: offer) } throws: {
            ($0 as? WebRTCError)?.code == .noCompatibleCodec
        }
        var rejected = try WebRTCSDP.Description(parsing: SDPFixtures.text(SDPFixtures.aiortcAnswerToRtenc))
        rejected.media[0].port = 0
        #expect { try WHIPAnswer(answer: rejected, offer: offer) } throws: {
            ($0 as? WebRTCError)?.reason.contains("rejected our video") == true
        }
        let otherMid = try SDPFixtures.editing(SDPFixtures.aiortcAnswerToRtenc, replace: [("a=mid:0", "a=mid:7")])
        #expect { try WHIPAnswer(answerText: otherMid, offer: offer) } throws: { ($0 as? WebRTCError)?.code == .unacceptable }
    }

    // MARK: H.265 (stream --whip --codec hevc)

    /// Main, Main tier, level 3 (640x360 from x265).
    static let main30 = WebRTCSDP.VideoEncoding.hevc(.init(profileID: 1, tierFlag: 0, levelID: 90))

    /// aiortc's answer made an H.265 one: our payload type 96 as H265/90000 with `fmtp` (nil: no a=fmtp line).
    static func hevcAnswer(fmtp: String?) throws -> String {
        try SDPFixtures.editing(
            SDPFixtures.aiortcAnswerToRtenc, drop: { fmtp == nil && $0.hasPrefix("a=fmtp:96") },
            replace: [("a=rtpmap:96 H264/90000", "a=rtpmap:96 H265/90000"),
                      ("a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f", "a=fmtp:96 \(fmtp ?? "")")])
    }

    /// RFC 7798 §7.2.2 on the answer to our H.265 offer: profile and tier kept, its level-id (or max-recv-level-id)
    /// the highest level the server receives, which our running encoder's stream must fit under.
    static let hevcAnswers: [(fmtp: String?, code: WebRTCError.Code?, says: String, why: String)] = [
        ("profile-id=1;tier-flag=0;level-id=90", nil, "", "echoed"),
        ("level-id=93;profile-id=1;tier-flag=0;tx-mode=SRST", nil, "", "a higher level, libwebrtc's order and tx-mode"),
        (nil, nil, "", "no fmtp: RFC 7798's defaults, Main at level 3.1"),
        ("profile-id=2;tier-flag=0;level-id=90", nil, "", "Main 10: its decoders decode Main"),
        ("profile-id=1;tier-flag=1;level-id=90", nil, "", "High tier receives Main tier"),
        ("profile-id=1;tier-flag=0;level-id=60;max-recv-level-id=120", nil, "", "max-recv-level-id above level-id"),
        ("profile-id=1;tier-flag=0;level-id=60", .noCompatibleCodec, "above the highest level the answer receives", "level 2 answered"),
        ("profile-id=3;tier-flag=0;level-id=90", .noCompatibleCodec, "the answer has no H.265 payload type for profile-id 1", "Main Still Picture"),
        ("profile-id=1;tier-flag=0;level-id=x", .noCompatibleCodec, "no H.265 payload type", "a level-id that is no number"),
    ]

    @Test(arguments: hevcAnswers)
    func checksTheAnswerToAnHEVCOffer(_ c: (fmtp: String?, code: WebRTCError.Code?, says: String, why: String)) throws {
        let offer = try WHIPOffer(encoding: Self.main30, local: SDPFixtures.local)
        #expect(offer.description.media[0].codecs.map(\.encodingName) == ["H265"], "one codec: the encoder's")
        let text = try Self.hevcAnswer(fmtp: c.fmtp)
        do {
            let answer = try WHIPAnswer(answerText: text, offer: offer)
            #expect(c.code == nil, "\(c.why): accepted")
            #expect(answer.video.payloadType == 96 && answer.video.codec.isEncoding("H265"), "\(c.why)")
        } catch {
            #expect(error.code == c.code, "\(c.why): \(error)")
            #expect(error.reason.contains(c.says), "\(c.why): \(error.reason)")
        }
    }

    /// GStreamer webrtcbin's real answer to rtenc's 640x360 H.265 offer: our payload type with the offer's fmtp echoed,
    /// setup:active (rtenc is the DTLS server), PLI and FIR kept (no plain NACK, no REMB), its UDP host candidate.
    @Test func checksWebrtcbinsAnswerToAnHEVCOffer() throws {
        let offer = try WHIPOffer(encoding: .hevc(.init(profileID: 1, tierFlag: 0, levelID: 63)), local: SDPFixtures.local)
        let answer = try WHIPAnswer(answerText: SDPFixtures.text(SDPFixtures.webrtcbinAnswerToRtencHEVC), offer: offer)
        #expect(answer.video.payloadType == 96 && answer.video.codec.isEncoding("H265"))
        #expect(answer.video.codec.parameters.text == "profile-id=1;tier-flag=0;level-id=63")
        #expect(answer.video.dtlsRole == .server)
        #expect(answer.video.feedback == [.pictureLossIndication, .fullIntraRequest])
        #expect(answer.remote.candidates.contains { $0.transport.lowercased() == "udp" && $0.address == "127.0.0.1" })
        // Its level-id is the highest it receives: a stream above it is refused.
        let above = try WHIPOffer(encoding: .hevc(.init(profileID: 1, tierFlag: 0, levelID: 93)), local: SDPFixtures.local)
        #expect { try WHIPAnswer(answerText: SDPFixtures.text(SDPFixtures.webrtcbinAnswerToRtencHEVC), offer: above) } throws: {
            ($0 as? WebRTCError)?.code == .noCompatibleCodec
        }
    }

    /// A server that took H.264 on our payload type (or answers with H.264 at all) does not take our H.265.
    @Test func anHEVCOfferAnsweredWithH264IsRefused() throws {
        let offer = try WHIPOffer(encoding: Self.main30, local: SDPFixtures.local)
        #expect { try WHIPAnswer(answerText: SDPFixtures.text(SDPFixtures.aiortcAnswerToRtenc), offer: offer) } throws: {
            guard let error = $0 as? WebRTCError else { return false }
            return error.code == .noCompatibleCodec && error.reason.contains("does not accept our H265 payload type 96")
        }
    }
}
