import Testing
import WebRTC

@Suite struct WebRTCSDPParserTests {
    @Test func chromiumWHEPOfferFieldByField() throws {
        let offer = try WebRTCSDP.Description(parsing: SDPFixtures.text(SDPFixtures.whepOffer))
        #expect(offer.origin.sessionVersion == "2")
        #expect(offer.bundle == ["0"])
        #expect(offer.extmapAllowMixed)
        #expect(offer.msidSemantic == "WMS")
        #expect(!offer.iceLite)
        #expect(offer.media.count == 1)
        let video = try #require(offer.media.first)
        #expect(video.kind == "video")
        #expect(video.port == 9)
        #expect(video.proto == "UDP/TLS/RTP/SAVPF")
        #expect(video.formats == ["102", "104", "108", "114", "116", "39", "41", "43"])
        #expect(video.connection == .init(address: "0.0.0.0"))
        #expect(video.mid == "0")
        #expect(video.direction == .recvonly)
        #expect(video.rtcpMux && video.rtcpRsize)
        #expect(video.iceUfrag?.count == 4)
        #expect(video.icePwd?.count == 24)
        #expect(video.iceOptions == ["trickle"])
        #expect(video.fingerprints.count == 1)
        #expect(video.fingerprints.first?.hashFunction == "sha-256")
        #expect(video.fingerprints.first?.bytes.count == 32)
        #expect(video.setup == .actpass)
        #expect(video.candidates.isEmpty, "Chromium 156 offers no candidates (design/webrtc.md §1.2)")
        #expect(!video.endOfCandidates)
        #expect(video.codecs.map(\.payloadType) == [102, 104, 108, 114, 116, 39, 41, 43])
        #expect(video.codecs.allSatisfy { $0.isEncoding("H264") && $0.clockRate == 90_000 })
        let cb = try #require(video.codec(payloadType: 108))
        #expect(cb.parameters.text == "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
        #expect(cb.parameters["profile-level-id"] == "42e01f")
        #expect(cb.packetizationMode == 1)
        #expect(video.codec(payloadType: 104)?.packetizationMode == 0)
        #expect(cb.feedback == [.receiverEstimatedMaximumBitrate, .transportCC, .fullIntraRequest, .nack, .pictureLossIndication])
        #expect(video.extmaps.count == 11)
        #expect(video.extmapID(WebRTCSDP.Extmap.absSendTimeURI) == 2)
        #expect(video.extmapID(WebRTCSDP.Extmap.transportWideCCURI) == 4)
        #expect(video.extmapID(WebRTCSDP.Extmap.sdesMidURI) == 9)
        #expect(video.otherAttributes.contains(.init("rtcp-xr", "rcvr-rtt=all")), "unknown attributes are kept")
        #expect(video.otherAttributes.contains(.init("rtcp", "9 IN IP4 0.0.0.0")))
    }

    @Test func chromiumDefaultOfferHasEveryCodecAndRTX() throws {
        let offer = try WebRTCSDP.Description(parsing: SDPFixtures.text(SDPFixtures.defaultOffer))
        let video = try #require(offer.media.first)
        #expect(video.formats.count == 34)
        #expect(video.codecs.count == 34)
        #expect(video.codec(payloadType: 96)?.encodingName == "VP8")
        #expect(video.codec(payloadType: 103)?.associatedPayloadType == 102)
        #expect(video.codec(payloadType: 102)?.associatedPayloadType == nil)
        #expect(video.codec(payloadType: 45)?.parameters["profile"] == "0")
        #expect(video.codec(payloadType: 49)?.isEncoding("FLEXFEC-03") == true)
        #expect(!video.codecs.contains { $0.isEncoding("H265") })
    }

    @Test func aiortcAnswerHasCandidatesAndActiveSetup() throws {
        let answer = try WebRTCSDP.Description(parsing: SDPFixtures.text(SDPFixtures.aiortcAnswerToChromium))
        #expect(answer.msidSemantic == "WMS *")
        let video = try #require(answer.media.first)
        #expect(video.direction == .recvonly)
        #expect(video.setup == .active)
        #expect(video.candidates.count == 1)
        #expect(video.candidates.first?.address == "127.0.0.2")
        #expect(video.candidates.first?.type == "host")
        #expect(video.candidates.first?.priority == 2_130_706_431)
        #expect(video.endOfCandidates)
        #expect(video.ssrcAttributes.first?.name == "cname")
        #expect(video.connection?.address == "127.0.0.2")
    }

    @Test(arguments: SDPFixtures.all)
    func lfOnlyAndCRLFParseAlike(_ name: String) throws {
        let text = try SDPFixtures.text(name)
        let lf = text.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(try WebRTCSDP.Description(parsing: lf) == WebRTCSDP.Description(parsing: text))
        // Mixed, with a blank line and without the last line end.
        let mixed = String(lf.dropLast()).replacingOccurrences(of: "a=mid:0\n", with: "a=mid:0\r\n\n")
        #expect(try WebRTCSDP.Description(parsing: mixed) == WebRTCSDP.Description(parsing: text))
    }

    @Test(arguments: SDPFixtures.all)
    func writeThenParseGivesTheSameDescription(_ name: String) throws {
        let parsed = try WebRTCSDP.Description(parsing: SDPFixtures.text(name))
        let written = parsed.text
        #expect(written.hasSuffix("\r\n") && !written.contains("\r\n\r\n"))
        #expect(try WebRTCSDP.Description(parsing: written) == parsed)
    }

    @Test func attributeOrderDoesNotMatter() throws {
        let text = try SDPFixtures.text(SDPFixtures.whepOffer)
        var lines = text.split(separator: "\r\n").map(String.init)
        let media = try #require(lines.firstIndex { $0.hasPrefix("m=") })
        // Media attributes reversed: every fmtp and rtcp-fb now comes before its rtpmap, the mid last.
        lines = Array(lines[...media]) + lines[(media + 1)...].reversed()
        let shuffled = try WebRTCSDP.Description(parsing: lines.joined(separator: "\r\n"))
        let original = try WebRTCSDP.Description(parsing: text)
        #expect(shuffled.media[0].codecs.map(\.payloadType) == original.media[0].codecs.map(\.payloadType))
        #expect(shuffled.media[0].codecs.map(\.parameters) == original.media[0].codecs.map(\.parameters))
        #expect(shuffled.media[0].codecs.map { Set($0.feedback) } == original.media[0].codecs.map { Set($0.feedback) })
        #expect(shuffled.media[0].mid == "0")
        #expect(shuffled.media[0].fingerprints == original.media[0].fingerprints)
        #expect(Set(shuffled.media[0].extmaps) == Set(original.media[0].extmaps))
    }

    @Test func sessionLevelTransportIsInheritedAndRtcpFbStarApplies() throws {
        let text = """
            v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE v\r\na=ice-ufrag:abcd\r\n\
            a=ice-pwd:0123456789012345678901\r\na=fingerprint:SHA-256 \(String(repeating: "AB:", count: 31))AB\r\n\
            a=setup:actpass\r\na=recvonly\r\nm=video 9 UDP/TLS/RTP/SAVPF 96 97\r\nc=IN IP4 0.0.0.0\r\na=mid:v\r\n\
            a=rtcp-mux\r\na=rtpmap:96 H264/90000\r\na=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\na=rtcp-fb:* nack\r\n
            """
        let parsed = try WebRTCSDP.Description(parsing: text)
        let video = try #require(parsed.media.first)
        #expect(video.iceUfrag == "abcd")
        #expect(video.icePwd == "0123456789012345678901")
        #expect(video.fingerprints.first?.hashFunction == "sha-256")
        #expect(video.fingerprints.first?.bytes == Array(repeating: 0xAB, count: 32))
        #expect(video.setup == .actpass)
        #expect(video.direction == .recvonly)
        #expect(video.codecs.map(\.feedback) == [[.nack], [.nack]])
        #expect(try WebRTCSDP.Description(parsing: parsed.text) == parsed)
    }

    /// Fuzz findings (FuzzWebRTCSDP): what the parser fills in for a missing o= or an empty s= must survive a write.
    @Test func defaultsSurviveAWrite() throws {
        for text in ["v=0\r\nk=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n", "v=0\r\ns=\r\nm=video 9 RTP/AVP 96\r\n"] {
            let parsed = try WebRTCSDP.Description(parsing: text)
            #expect(parsed.origin == .init(sessionID: "0"))
            #expect(parsed.sessionName == "-")
            #expect(try WebRTCSDP.Description(parsing: parsed.text) == parsed)
        }
    }

    static let malformed: [(line: String, sdpLine: Int?, why: String)] = [
        ("m=video 9", 5, "m= with two fields"),
        ("m=video 70000 UDP/TLS/RTP/SAVPF 96", 5, "port above 65535"),
        ("m=video nine UDP/TLS/RTP/SAVPF 96", 5, "port not a number"),
        ("hello", 5, "not <type>=<value>"),
        ("A=foo", 5, "upper-case type"),
        ("=foo", 5, "no type"),
        ("o=- 1 IN IP4", 5, "o= with 4 fields"),
        ("c=IN IP4", 5, "c= with 2 fields"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 H264", 6, "rtpmap without a clock rate"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:200 H264/90000", 6, "rtpmap payload type 200"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 H264/0", 6, "clock rate 0"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=fmtp:x packetization-mode=1", 6, "fmtp without a payload type"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtcp-fb:96", 6, "rtcp-fb without a type"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=extmap:0 urn:x", 6, "extmap id 0"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=extmap:3/sideways urn:x", 6, "extmap direction unknown"),
        ("a=fingerprint:sha-256 AB:CD", 5, "sha-256 digest of 2 bytes"),
        ("a=fingerprint:sha-256 ZZ:\(String(repeating: "AB:", count: 30))AB", 5, "not hex"),
        ("a=fingerprint:sha-256", 5, "fingerprint without a digest"),
        ("a=setup:sometimes", 5, "unknown setup role"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=candidate:1 1 udp 2130706431 127.0.0.1 8189 host", 6, "candidate without typ"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=candidate:1 1 udp 2130706431 127.0.0.1 99999 typ host", 6, "candidate port"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=candidate:1 1 udp 1 127.0.0.1 1 typ host raddr", 6, "raddr without value"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=ssrc:abc cname:x", 6, "ssrc not a number"),
        ("a=ice-ufrag:", 5, "empty ufrag"),
        ("a=msid-semantic:*MSW\r ", 5, "a CR inside a line (FuzzWebRTCSDP: it did not survive a write)"),
        ("s=a\rb", 5, "a CR inside the session name"),
    ]

    @Test(arguments: malformed)
    func malformedLinesAreRefusedWithTheirLine(_ c: (line: String, sdpLine: Int?, why: String)) {
        let text = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n\(c.line)\r\n"
        #expect(throws: WebRTCError.self, "\(c.why)") { try WebRTCSDP.Description(parsing: text) }
        do {
            _ = try WebRTCSDP.Description(parsing: text)
        } catch {
            #expect(error.code == .malformed, "\(c.why): \(error)")
            #expect(error.sdpLine == c.sdpLine, "\(c.why): \(error)")
        }
    }

    @Test func notSDPAtAll() {
        for text in ["", "\r\n", "o=- 1 1 IN IP4 0.0.0.0\r\nv=0\r\n", "v=1\r\n", "HTTP/1.1 200 OK\r\n"] {
            #expect(throws: WebRTCError.self) { try WebRTCSDP.Description(parsing: text) }
        }
    }

    @Test func limits() throws {
        let big = "v=0\r\n" + String(repeating: "a=x\r\n", count: WebRTCSDP.Limits.maxBytes / 5 + 1)
        #expect { try WebRTCSDP.Description(parsing: big) } throws: { ($0 as? WebRTCError)?.code == .limitExceeded }
        let many = "v=0\r\n" + String(repeating: "m=video 9 UDP/TLS/RTP/SAVPF 96\r\n", count: WebRTCSDP.Limits.maxMediaSections + 1)
        #expect { try WebRTCSDP.Description(parsing: many) } throws: { ($0 as? WebRTCError)?.code == .limitExceeded }
        let enough = "v=0\r\n" + String(repeating: "m=video 9 UDP/TLS/RTP/SAVPF 96\r\n", count: WebRTCSDP.Limits.maxMediaSections)
        #expect(try WebRTCSDP.Description(parsing: enough).media.count == WebRTCSDP.Limits.maxMediaSections)
    }

    /// Every prefix of a fixture: parses, or fails with a typed error; and whatever parses can be answered or
    /// refused with a typed error. Never a crash. Cut at each UTF-8 byte for the WHEP offer and the WHIP answer (the
    /// texts rtenc reads in earnest), at each line's end and middle for the others (the parser is quadratic here).
    @Test(arguments: SDPFixtures.all)
    func dripFeed(_ name: String) throws {
        let bytes = Array(try SDPFixtures.text(name).utf8)
        var parsed = 0
        var refused = 0
        var cuts = Array(0 ... bytes.count)
        if ![SDPFixtures.whepOffer, SDPFixtures.aiortcAnswerToRtenc].contains(name) {
            var lineStart = 0
            cuts = [0]
            for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
                cuts += [(lineStart + index) / 2, index - 1, index, index + 1]
                lineStart = index + 1
            }
            cuts = Array(Set(cuts.filter { $0 <= bytes.count })).sorted()
        }
        for end in cuts {
            let text = String(decoding: bytes[..<end], as: UTF8.self)
            do {
                let description = try WebRTCSDP.Description(parsing: text)
                parsed += 1
                _ = try? WHEPAnswer(offer: description, encoding: .h264(profile: .constrainedBaseline, level: .level3_1),
                                    local: SDPFixtures.local)
                _ = description.text
            } catch {
                refused += 1
                #expect([.malformed, .limitExceeded].contains(error.code), "\(name) cut at \(end): \(error)")
            }
        }
        #expect(parsed + refused == cuts.count)
        #expect(parsed > 0 && refused > 0)
    }
}
