import Bitstream
import RTP
import Testing
import WebRTC

@Suite struct WHEPAnswerTests {
    static let cb31 = WebRTCSDP.VideoEncoding.h264(profile: .constrainedBaseline, level: .level3_1)

    /// The answer to Chromium 156's recorded WHEP offer, parsed back and checked field by field.
    @Test func answersChromiumsOfferFieldByField() throws {
        let offerText = try SDPFixtures.text(SDPFixtures.whepOffer)
        let offer = try WebRTCSDP.Description(parsing: offerText)
        let answer = try WHEPAnswer(offerText: offerText, encoding: Self.cb31, local: SDPFixtures.local)
        #expect(answer.warnings.isEmpty)
        #expect(answer.text.hasPrefix("v=0\r\no=- 4242424242 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=ice-lite\r\n"))
        #expect(!answer.text.contains("\r\n\r\n") && answer.text.hasSuffix("\r\n"))
        #expect(answer.text.contains("\r\na=msid-semantic: WMS *\r\n"))

        let parsed = try WebRTCSDP.Description(parsing: answer.text)
        #expect(parsed == answer.description)
        #expect(parsed.iceLite)
        #expect(parsed.bundle == ["0"])
        #expect(parsed.msidSemantic == "WMS *")
        #expect(parsed.media.count == 1)
        let video = try #require(parsed.media.first)
        #expect(video.kind == "video")
        #expect(video.port == 8189)
        #expect(video.connection == .init(address: "127.0.0.1"))
        #expect(video.proto == "UDP/TLS/RTP/SAVPF")
        #expect(video.formats == ["108"], "the first Constrained Baseline payload type with packetization-mode=1")
        #expect(video.mid == "0")
        #expect(video.direction == .sendonly)
        #expect(video.rtcpMux && video.rtcpRsize)
        #expect(video.iceUfrag == "rtEn" && video.icePwd == "abcdefghijklmnopqrstuv0123")
        #expect(video.fingerprints == [SDPFixtures.local.fingerprint])
        #expect(video.setup == .active)
        #expect(video.candidates == [
            .init(foundation: "1", priority: 2_130_706_431, address: "127.0.0.1", port: 8189),
            .init(foundation: "2", priority: 2_130_706_175, address: "::1", port: 8189),
        ])
        #expect(answer.text.contains("a=candidate:1 1 udp 2130706431 127.0.0.1 8189 typ host\r\n"))
        #expect(video.endOfCandidates)
        #expect(video.extmaps == [.init(id: 9, uri: WebRTCSDP.Extmap.sdesMidURI), .init(id: 2, uri: WebRTCSDP.Extmap.absSendTimeURI)])
        #expect(video.msid == "rtenc video")
        let codec = try #require(video.codecs.first)
        #expect(video.codecs.count == 1)
        #expect(codec.payloadType == 108 && codec.isEncoding("H264") && codec.clockRate == 90_000)
        #expect(codec.parameters == offer.media[0].codec(payloadType: 108)!.parameters, "the offered fmtp is echoed")
        #expect(answer.text.contains("a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r\n"))
        #expect(codec.feedback == [.nack, .pictureLossIndication, .fullIntraRequest, .receiverEstimatedMaximumBitrate])
        #expect(!answer.text.contains("transport-cc") && !answer.text.contains("transport-wide-cc"))
        #expect(video.ssrcAttributes == [.init(ssrc: 0x1234_5678, name: "cname", value: "rtenc-cname"),
                                         .init(ssrc: 0x1234_5678, name: "msid", value: "rtenc video")])

        #expect(answer.video.mid == "0")
        #expect(answer.video.payloadType == 108)
        #expect(answer.video.absSendTimeID == 2 && answer.video.midExtensionID == 9 && answer.video.transportCCExtensionID == nil)
        #expect(answer.video.rtcpReducedSize)
        #expect(answer.video.dtlsRole == .client)
        #expect(answer.remote.iceUfrag == offer.media[0].iceUfrag && answer.remote.icePwd == offer.media[0].icePwd)
        #expect(answer.remote.fingerprints == offer.media[0].fingerprints)
        #expect(answer.remote.candidates.isEmpty && !answer.remote.iceLite)
    }

    /// The answer byte for byte: the fixture scripts/capture-webrtc-sdp.sh hands back to Chromium 156, which must take
    /// it (setRemoteDescription, then H.264 with the echoed fmtp on the receiver).
    @Test func answerMatchesItsFixture() throws {
        let answer = try WHEPAnswer(offerText: SDPFixtures.text(SDPFixtures.whepOffer), encoding: Self.cb31, local: SDPFixtures.local)
        #expect(try SDPFixtures.expectFixture(SDPFixtures.rtencWHEPAnswer, equals: answer.text))
    }

    static let selections: [(encoding: WebRTCSDP.VideoEncoding, fixture: String, drop: [String], pt: UInt8, warns: Bool, why: String)] = [
        (cb31, SDPFixtures.whepOffer, [], 108, false, "CB → 42e01f, not the Baseline 42001f listed first"),
        (.h264(profile: .baseline, level: .level3_1), SDPFixtures.whepOffer, [], 102, false, "Baseline → 42001f"),
        (.h264(profile: .main, level: .level3_1), SDPFixtures.whepOffer, [], 116, false, "Main → 4d001f"),
        (.h264(profile: .main, level: .level3), SDPFixtures.whepOffer, [], 116, false, "a lower level fits"),
        (.h264(profile: .constrainedBaseline, level: .level4), SDPFixtures.whepOffer, [], 108, true, "level 4 above 3.1: warned"),
        (cb31, SDPFixtures.whepOffer, ["42e01f"], 102, false, "no CB left: Baseline decoders take CB"),
        (cb31, SDPFixtures.defaultOffer, [], 108, false, "every codec offered, rtx and VP8 passed over"),
    ]

    @Test(arguments: selections)
    func choosesThePayloadType(_ c: (encoding: WebRTCSDP.VideoEncoding, fixture: String, drop: [String], pt: UInt8, warns: Bool, why: String)) throws {
        let text = try SDPFixtures.editing(c.fixture, drop: { line in c.drop.contains { line.contains($0) } })
        let answer = try WHEPAnswer(offerText: text, encoding: c.encoding, local: SDPFixtures.local)
        #expect(answer.video.payloadType == c.pt, "\(c.why)")
        #expect(answer.warnings.isEmpty == !c.warns, "\(c.why): \(answer.warnings)")
        let echoed = try WebRTCSDP.Description(parsing: text).media[0].codec(payloadType: c.pt)!.parameters
        #expect(answer.description.media[0].codecs[0].parameters == echoed, "\(c.why)")
    }

    /// RFC 6184 Table 5: the profile is profile_idc with the constraint flags, not the bytes. The Constrained Baseline
    /// payload type 108 is relabelled; the Baseline 102 (listed first) stays as the fallback it must lose to.
    static let table5: [(label: String, pt: UInt8, warns: Bool, why: String)] = [
        ("42c01f", 108, false, "constraint_set0+1: CB as rtenc's plain RTP writes it"),
        ("42401f", 108, false, "constraint_set1 alone: CB"),
        ("4d801f", 108, false, "Main with constraint_set0: CB"),
        ("58c01f", 108, false, "Extended with constraint_set0+1: CB"),
        ("42E01F", 108, false, "upper-case hex"),
        ("42e00d", 108, true, "CB at level 1.3, below the stream's 3.1: still CB, with a warning"),
        ("4d001f", 102, false, "no CB left (108 is Main now): the Baseline fallback"),
        ("42801f", 102, false, "constraint_set0 alone is Baseline, not CB: the first Baseline wins"),
    ]

    @Test(arguments: table5)
    func profilesCompareByTable5(_ c: (label: String, pt: UInt8, warns: Bool, why: String)) throws {
        let text = try SDPFixtures.editing(SDPFixtures.whepOffer, replace: [
            ("a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
             "a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=\(c.label)"),
        ])
        let answer = try WHEPAnswer(offerText: text, encoding: Self.cb31, local: SDPFixtures.local)
        #expect(answer.video.payloadType == c.pt, "\(c.why)")
        #expect(answer.warnings.isEmpty == !c.warns, "\(c.why): \(answer.warnings)")
    }

    @Test func aLevelThatFitsWinsOverTheFirstOffered() throws {
        // Two CB payload types: 102 (listed first) at level 1.3, 108 at 3.1. A 3.1 stream takes 108; a level-1 one 102.
        let text = try SDPFixtures.editing(SDPFixtures.whepOffer, replace: [
            ("packetization-mode=1;profile-level-id=42001f", "packetization-mode=1;profile-level-id=42e00d"),
        ])
        #expect(try WHEPAnswer(offerText: text, encoding: Self.cb31, local: SDPFixtures.local).video.payloadType == 108)
        let small = WebRTCSDP.VideoEncoding.h264(profile: .constrainedBaseline, level: .level1_3)
        #expect(try WHEPAnswer(offerText: text, encoding: small, local: SDPFixtures.local).video.payloadType == 102)
    }

    /// An offer rtenc must refuse, and what the reason has to say.
    static let refusals: [(fixture: String, drop: [String], replace: [(String, String)], encoding: WebRTCSDP.VideoEncoding,
                           code: WebRTCError.Code, says: [String], why: String)] = [
        (SDPFixtures.whepOffer, [], [], .h264(profile: .high, level: .level3_1), .noCompatibleCodec,
         ["the offer has no H.264 High profile",
          "(its profiles: baseline, constrained baseline, main, high 4:4:4 predictive)",
          "use --profile main or constrained-baseline"], "--profile high against Chromium 156"),
        (SDPFixtures.whepOffer, ["profile-level-id=42", "profile-level-id=f4"], [], .h264(profile: .high, level: .level3_1),
         .noCompatibleCodec, ["(its profiles: main)", "use --profile main"], "only Main offered"),
        (SDPFixtures.whepOffer, ["packetization-mode=1"], [], cb31, .noCompatibleCodec,
         ["packetization-mode=0", "packetization-mode=1"], "mode 0 only"),
        (SDPFixtures.whepOffer, ["a=group:BUNDLE"], [], cb31, .unacceptable, ["BUNDLE"], "no BUNDLE"),
        (SDPFixtures.whepOffer, ["a=rtcp-mux"], [], cb31, .unacceptable, ["rtcp-mux"], "no rtcp-mux"),
        (SDPFixtures.whepOffer, ["a=fingerprint"], [], cb31, .unacceptable, ["fingerprint"], "no fingerprint"),
        (SDPFixtures.whepOffer, ["a=ice-pwd"], [], cb31, .unacceptable, ["ice-ufrag/a=ice-pwd"], "no ICE password"),
        (SDPFixtures.whepOffer, ["a=ice-ufrag"], [], cb31, .unacceptable, ["ice-ufrag/a=ice-pwd"], "no ICE ufrag"),
        (SDPFixtures.whepOffer, ["a=mid"], [], cb31, .unacceptable, ["no a=mid"], "no mid"),
        (SDPFixtures.whepOffer, [], [("a=ice-ufrag:", "a=ice-ufrag:a:")], cb31, .unacceptable, ["RFC 8839"], "colon in ufrag"),
        (SDPFixtures.whepOffer, [], [("a=ice-options:trickle", "a=ice-pwd:short\r\na=ice-options:trickle")], cb31, .unacceptable,
         ["a password of 5 characters"], "a later, short ice-pwd"),
        (SDPFixtures.sendonlyOffer, [], [], cb31, .unacceptable, ["video is sendonly", "recvonly"], "Chromium's sendonly offer"),
        (SDPFixtures.whepOffer, [], [("a=recvonly", "a=inactive")], cb31, .unacceptable, ["video is inactive"], "inactive"),
        (SDPFixtures.whepOffer, [], [("m=video 9", "m=audio 9")], cb31, .unacceptable,
         ["no video section", "(its sections: audio)"], "no video"),
        (SDPFixtures.whepOffer, [], [("m=video 9", "m=video 0")], cb31, .unacceptable, ["no video section"], "video rejected"),
        (SDPFixtures.whepOffer, [], [("a=group:BUNDLE 0", "a=group:BUNDLE 1")], cb31, .unacceptable, ["not in its BUNDLE"],
         "video outside BUNDLE"),
        (SDPFixtures.whepOffer, [], [("a=setup:actpass", "a=setup:holdconn")], cb31, .unacceptable, ["holdconn"], "holdconn"),
        (SDPFixtures.whepOffer, [], [("UDP/TLS/RTP/SAVPF", "RTP/AVPF")], cb31, .unacceptable, ["not UDP/TLS/RTP/SAVPF"], "no DTLS"),
        (SDPFixtures.whepOffer, [], [], .hevc(.init()), .noCompatibleCodec,
         ["the player offered no H.265 (its video codecs: H264)", "serve it with --codec h264"], "HEVC against an H.264-only offer"),
        (SDPFixtures.defaultOffer, [" H264/", "apt=102"], [], cb31, .noCompatibleCodec, ["no H264 (its video codecs: VP8, VP9, AV1)"],
         "no H.264 at all"),
    ]

    @Test(arguments: refusals)
    func refuses(_ c: (fixture: String, drop: [String], replace: [(String, String)], encoding: WebRTCSDP.VideoEncoding,
                       code: WebRTCError.Code, says: [String], why: String)) throws {
        let text = try SDPFixtures.editing(c.fixture, drop: { line in c.drop.contains { line.contains($0) } }, replace: c.replace)
        do {
            let answer = try WHEPAnswer(offerText: text, encoding: c.encoding, local: SDPFixtures.local)
            Issue.record("\(c.why): answered with payload type \(answer.video.payloadType)")
        } catch {
            #expect(error.code == c.code, "\(c.why): \(error)")
            for fragment in c.says { #expect(error.reason.contains(fragment), "\(c.why): \(error.reason)") }
        }
    }

    @Test func aSendrecvOfferIsAnsweredSendonly() throws {
        let text = try SDPFixtures.editing(SDPFixtures.whepOffer, replace: [("a=recvonly", "a=sendrecv")])
        let answer = try WHEPAnswer(offerText: text, encoding: Self.cb31, local: SDPFixtures.local)
        #expect(answer.description.media[0].direction == .sendonly)
        #expect(answer.text.contains("\r\na=sendonly\r\n"))
    }

    @Test func twoFingerprintsAreBothKept() throws {
        let second = "a=fingerprint:sha-1 " + (0 ..< 20).map { _ in "0F" }.joined(separator: ":")
        let text = try SDPFixtures.editing(SDPFixtures.whepOffer, replace: [("a=setup:actpass", "\(second)\r\na=setup:actpass")])
        let answer = try WHEPAnswer(offerText: text, encoding: Self.cb31, local: SDPFixtures.local)
        #expect(answer.remote.fingerprints.map(\.hashFunction) == ["sha-256", "sha-1"])
        #expect(answer.remote.fingerprints[1].bytes == Array(repeating: 0x0F, count: 20))
    }

    static let setups: [(offered: String?, preferred: WebRTCSDP.DTLSRole, answer: WebRTCSDP.SetupRole, role: WebRTCSDP.DTLSRole)] = [
        ("actpass", .client, .active, .client),
        ("actpass", .server, .passive, .server),
        ("active", .client, .passive, .server),
        ("passive", .server, .active, .client),
        (nil, .client, .passive, .server),  // RFC 4145 §4: absent is active
    ]

    @Test(arguments: setups)
    func dtlsRoles(_ c: (offered: String?, preferred: WebRTCSDP.DTLSRole, answer: WebRTCSDP.SetupRole, role: WebRTCSDP.DTLSRole)) throws {
        let text = try SDPFixtures.editing(SDPFixtures.whepOffer, drop: { c.offered == nil && $0.hasPrefix("a=setup") },
                                           replace: c.offered.map { [("a=setup:actpass", "a=setup:\($0)")] } ?? [])
        let answer = try WHEPAnswer(offerText: text, encoding: Self.cb31, local: SDPFixtures.local, preferredRole: c.preferred)
        #expect(answer.description.media[0].setup == c.answer)
        #expect(answer.video.dtlsRole == c.role)
    }

    @Test func transportCCWhenAskedForReplacesREMBAndAbsSendTime() throws {
        var local = SDPFixtures.local
        local.transportCC = true
        let answer = try WHEPAnswer(offerText: SDPFixtures.text(SDPFixtures.whepOffer), encoding: Self.cb31, local: local)
        #expect(answer.video.feedback == [.nack, .pictureLossIndication, .fullIntraRequest, .transportCC])
        #expect(answer.video.transportCCExtensionID == 4 && answer.video.absSendTimeID == nil)
        #expect(!answer.text.contains("goog-remb") && !answer.text.contains("abs-send-time"))
    }

    /// A player that offers no transport-cc (aiortc offers goog-remb and abs-send-time only) gets REMB and
    /// abs-send-time though transport-cc was asked for: it would otherwise give no bandwidth feedback at all.
    @Test(arguments: [[" transport-cc"], ["transport-wide-cc"]])
    func transportCCAskedForButNotOfferedFallsBackToREMB(dropping: [String]) throws {
        var local = SDPFixtures.local
        local.transportCC = true
        let text = try SDPFixtures.editing(SDPFixtures.whepOffer, drop: { line in dropping.contains { line.contains($0) } })
        let answer = try WHEPAnswer(offerText: text, encoding: Self.cb31, local: local)
        #expect(answer.video.feedback.contains(.receiverEstimatedMaximumBitrate))
        #expect(!answer.video.feedback.contains(.transportCC))
        #expect(answer.video.transportCCExtensionID == nil && answer.video.absSendTimeID != nil)
    }

    @Test func otherSectionsAreRejectedAndLeftOutOfBundle() throws {
        let offerText = try SDPFixtures.editing(SDPFixtures.whepOffer, replace: [
            ("a=group:BUNDLE 0", "a=group:BUNDLE a 0 d"),
            ("m=video 9", "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:a\r\na=recvonly\r\na=rtpmap:111 opus/48000/2\r\nm=video 9"),
        ]) + "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:d\r\na=sctp-port:5000\r\n"
        let answer = try WHEPAnswer(offerText: offerText, encoding: Self.cb31, local: SDPFixtures.local)
        let parsed = try WebRTCSDP.Description(parsing: answer.text)
        #expect(parsed.media.map(\.kind) == ["audio", "video", "application"])
        #expect(parsed.media.map(\.port) == [0, 8189, 0])
        #expect(parsed.media.map(\.mid) == ["a", "0", "d"])
        #expect(parsed.media[0].direction == .inactive && parsed.media[2].formats == ["webrtc-datachannel"])
        #expect(parsed.bundle == ["0"])
    }

    @Test func hevcWhenOfferedAndEncoded() throws {
        let h265 = "a=rtpmap:45 H265/90000\r\na=fmtp:45 level-id=93;profile-id=1;tier-flag=0;tx-mode=SRST\r\n"
            + "a=rtcp-fb:45 nack pli\r\na=rtpmap:47 H265/90000\r\na=fmtp:47 level-id=123;profile-id=2;tier-flag=0\r\n"
        let text = try SDPFixtures.editing(SDPFixtures.whepOffer, replace: [
            ("RTP/SAVPF 102 104", "RTP/SAVPF 47 45 102 104"), ("a=rtpmap:102 H264", "\(h265)a=rtpmap:102 H264"),
        ])
        let main = try WHEPAnswer(offerText: text, encoding: .hevc(.init(profileID: 1, levelID: 93)), local: SDPFixtures.local)
        #expect(main.video.payloadType == 45, "profile-id 1 equal comes before Main 10")
        #expect(main.text.contains("a=rtpmap:45 H265/90000\r\na=fmtp:45 level-id=93;profile-id=1;tier-flag=0;tx-mode=SRST\r\n"))
        #expect(main.video.feedback == [.pictureLossIndication])
        let main10 = try WHEPAnswer(offerText: text, encoding: .hevc(.init(profileID: 2, levelID: 93)), local: SDPFixtures.local)
        #expect(main10.video.payloadType == 47)
        // Level 5 is above both payload types (93, and 123 for Main 10): refused, no longer sent with a warning.
        #expect { try WHEPAnswer(offerText: text, encoding: .hevc(.init(profileID: 1, levelID: 150)), local: SDPFixtures.local) } throws: {
            ($0 as? WebRTCError)?.reason.contains("level-id 123, payload type 47") == true
        }
        let main41 = try WHEPAnswer(offerText: text, encoding: .hevc(.init(profileID: 1, levelID: 123)), local: SDPFixtures.local)
        #expect(main41.video.payloadType == 47, "Main above 3.1 goes to the Main 10 payload type, whose level carries it")
        #expect { try WHEPAnswer(offerText: text, encoding: .hevc(.init(profileID: 4)), local: SDPFixtures.local) } throws: {
            ($0 as? WebRTCError)?.code == .noCompatibleCodec
        }
    }

    static let badLocals: [(edit: @Sendable (inout WebRTCSDP.LocalParameters) -> Void, why: String)] = [
        ({ $0.iceUfrag = "abc" }, "ufrag of 3"),
        ({ $0.iceUfrag = "ab cd" }, "space in ufrag"),
        ({ $0.icePwd = "short" }, "pwd of 5"),
        ({ $0.icePwd = String(repeating: "x", count: 21) + "-" }, "pwd with -"),
        ({ $0.fingerprint = .init(hashFunction: "sha-256", bytes: [1, 2, 3]) }, "3-byte sha-256"),
        ({ $0.cname = "" }, "empty cname"),
        ({ $0.cname = "a b" }, "space in cname"),
        ({ $0.trackID = "x\r\ny" }, "CRLF in track id"),
        ({ $0.candidates = [.init(address: "", port: 1)] }, "empty address"),
        ({ $0.candidates = [.init(address: "127.0.0.1", port: 0)] }, "port 0"),
    ]

    @Test(arguments: badLocals)
    func badLocalParametersAreRefused(_ c: (edit: @Sendable (inout WebRTCSDP.LocalParameters) -> Void, why: String)) throws {
        var local = SDPFixtures.local
        c.edit(&local)
        let offer = try SDPFixtures.text(SDPFixtures.whepOffer)
        #expect { try WHEPAnswer(offerText: offer, encoding: Self.cb31, local: local) } throws: {
            ($0 as? WebRTCError)?.code == .invalidLocalParameters
        }
        #expect { try WHIPOffer(encoding: Self.cb31, local: local) } throws: {
            ($0 as? WebRTCError)?.code == .invalidLocalParameters
        }
    }

    @Test func noCandidatesGivesPortNineAndZeroAddress() throws {
        var local = SDPFixtures.local
        local.candidates = []
        let answer = try WHEPAnswer(offerText: SDPFixtures.text(SDPFixtures.whepOffer), encoding: Self.cb31, local: local)
        #expect(answer.text.contains("m=video 9 UDP/TLS/RTP/SAVPF 108\r\nc=IN IP4 0.0.0.0\r\n"))
        #expect(answer.description.media[0].endOfCandidates)
    }
}

/// The playout-delay header extension (`LocalParameters.playoutDelay`): answered with the offer's id when asked for
/// and offered, left out of the answer otherwise.
struct WHEPAnswerPlayoutDelayTests {
    @Test func askedForAndOfferedIsAnsweredWithTheOffersID() throws {
        var local = SDPFixtures.local
        local.playoutDelay = true
        let answer = try WHEPAnswer(offerText: SDPFixtures.text(SDPFixtures.whepOffer), encoding: WHEPAnswerTests.cb31, local: local)
        #expect(answer.video.playoutDelayID == 5)  // Chromium 156 offers it as id 5
        #expect(answer.text.contains("a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay\r\n"))
    }

    @Test func notAskedForIsNotAnswered() throws {
        let answer = try WHEPAnswer(offerText: SDPFixtures.text(SDPFixtures.whepOffer), encoding: WHEPAnswerTests.cb31, local: SDPFixtures.local)
        #expect(answer.video.playoutDelayID == nil)
        #expect(!answer.text.contains("playout-delay"))
    }

    @Test func notOfferedIsNotAnswered() throws {
        var local = SDPFixtures.local
        local.playoutDelay = true
        let text = try SDPFixtures.editing(SDPFixtures.whepOffer, drop: { $0.contains("playout-delay") })
        let answer = try WHEPAnswer(offerText: text, encoding: WHEPAnswerTests.cb31, local: local)
        #expect(answer.video.playoutDelayID == nil)
        #expect(!answer.text.contains("playout-delay"))
    }
}
