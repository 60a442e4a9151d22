import Bitstream
import Testing
@testable import RTP
@testable import RTPOut

/// RFC 7798 §7 in SDP: what we write for an HEVC stream and what we read from a peer's.
struct H265SDPTests {
    /// x265 3.5 (Debian libx265-199), 320x240 ultrafast: ffprobe says Main, level 60 (2.0).
    static let x265VPS: [UInt8] = [
        0x40, 0x01, 0x0C, 0x01, 0xFF, 0xFF, 0x01, 0x60, 0x00, 0x00, 0x03, 0x00, 0x90, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03,
        0x00, 0x3C, 0xBA, 0x02, 0x40,
    ]
    static let x265SPS: [UInt8] = [
        0x42, 0x01,  // NAL header: SPS_NUT, TID 1
        0x01,  // sps_video_parameter_set_id 0, sps_max_sub_layers_minus1 0, sps_temporal_id_nesting_flag 1
        0x01,  // general_profile_space 0, general_tier_flag 0, general_profile_idc 1 (Main)
        0x60, 0x00, 0x00, 0x03, 0x00,  // general_profile_compatibility_flag[1], [2] (with an emulation prevention byte)
        0x90, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00,  // progressive, frame_only, 44 zero bits (two escapes)
        0x3C,  // general_level_idc 60
        0xA0, 0x0A, 0x08, 0x0F, 0x16, 0x5B, 0xA4, 0xA4, 0xC2, 0xF0, 0x16, 0x80, 0x80, 0x00, 0x00, 0x03, 0x00, 0x80,
        0x00, 0x00, 0x0F, 0x04,
    ]
    static let x265PPS: [UInt8] = [0x44, 0x01, 0xC0, 0x71, 0x82, 0x12]

    /// An SPS of a Main 10, High tier, level 5.1 stream, built here: the fields read at fixed positions.
    static let main10HighTierSPS: [UInt8] = [0x42, 0x01] + RBSP.addingEmulationPrevention(
        [0x01, 0x22, 0x20, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 153, 0xA0])

    /// An SPS with sps_max_sub_layers_minus1 = 2 (sub-layer flags after the general level), cut after its
    /// profile_tier_level: the full SPS parse fails, the profile_tier_level alone still reads.
    static let subLayersSPS: [UInt8] = [0x42, 0x01] + RBSP.addingEmulationPrevention(
        [0x05, 0x01, 0x60, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 93, 0x00, 0x00])

    static func description() -> SessionDescription {
        .hevc(connectionAddress: "127.0.0.1", port: 5004, videoParameterSet: x265VPS, sequenceParameterSet: x265SPS,
              pictureParameterSet: x265PPS, ssrc: 0x1234, cname: "rtenc")
    }

    @Test func writesRtpmapAndFmtpWithParameterSetsAndProfileTierLevel() {
        let lines = Self.description().text.split(separator: "\r\n")
        #expect(lines.contains("m=video 5004 RTP/AVP 96"))
        #expect(lines.contains("a=rtpmap:96 H265/90000"))
        #expect(lines.contains(
            "a=fmtp:96 profile-id=1;tier-flag=0;level-id=60;sprop-vps=QAEMAf//AWAAAAMAkAAAAwAAAwA8ugJA"
                + ";sprop-sps=QgEBAWAAAAMAkAAAAwAAAwA8oAoIDxZbpKTC8BaAgAAAAwCAAAAPBA==;sprop-pps=RAHAcYIS"))
        #expect(!lines.contains { $0.contains("H264") || $0.contains("packetization-mode") || $0.contains("profile-level-id") })
        #expect(lines.contains("a=rtcp-fb:96 nack pli"))
    }

    @Test(arguments: [
        ("x265 Main, level 2", x265SPS, HEVCFormatParameters(profileID: 1, tierFlag: 0, levelID: 60)),
        ("Main 10, High tier, level 5.1", main10HighTierSPS, HEVCFormatParameters(profileID: 2, tierFlag: 1, levelID: 153)),
        ("three sub-layers, cut after profile_tier_level", subLayersSPS, HEVCFormatParameters(profileID: 1, tierFlag: 0, levelID: 93)),
    ])
    func profileTierLevelFromTheSPS(name: String, sps: [UInt8], expected: HEVCFormatParameters) {
        #expect(HEVCFormatParameters(sequenceParameterSet: sps) == expected, "\(name)")
    }

    /// Drip-feed: every prefix that ends before general_level_idc gives nil; so does a VPS.
    @Test func shortOrWrongUnitsGiveNoParameters() {
        let levelEnd = 18  // header 2 + 13 RBSP bytes + 3 emulation prevention bytes
        for length in 0 ..< levelEnd {
            #expect(HEVCFormatParameters(sequenceParameterSet: Self.x265SPS.prefix(length)) == nil, "prefix \(length)")
        }
        #expect(HEVCFormatParameters(sequenceParameterSet: Self.x265SPS.prefix(levelEnd))?.levelID == 60)
        #expect(HEVCFormatParameters(sequenceParameterSet: Self.x265VPS) == nil)
        var shortSPS = Self.description()
        shortSPS.sequenceParameterSet = [0x42, 0x01, 0x01]
        #expect(shortSPS.text.contains("a=fmtp:96 sprop-vps="))  // no profile parameters rather than wrong ones
    }

    @Test func readsWhatItWrites() throws {
        let parsed = try ReceivedSessionDescription(parsing: Self.description().text)
        #expect(parsed.codec == .hevc && parsed.payloadType == 96 && parsed.port == 5004)
        #expect(parsed.parameterSets == [Self.x265VPS, Self.x265SPS, Self.x265PPS])
        #expect(parsed.hevc == HEVCFormatParameters(profileID: 1, tierFlag: 0, levelID: 60))
    }

    /// The SDP ffmpeg 5.1's RTP muxer writes for the same x265 stream (`-f rtp -sdp_file`): spaces after the
    /// semicolons, no profile parameters (so RFC 7798's defaults).
    @Test func readsFFmpegsSDP() throws {
        let text = """
            v=0
            o=- 0 0 IN IP4 127.0.0.1
            s=No Name
            c=IN IP4 127.0.0.1
            t=0 0
            a=tool:libavformat LIBAVFORMAT_VERSION
            m=video 45678 RTP/AVP 96
            a=rtpmap:96 H265/90000
            a=fmtp:96 sprop-vps=QAEMAf//AWAAAAMAkAAAAwAAAwA8ugJA; sprop-sps=QgEBAWAAAAMAkAAAAwAAAwA8oAoIDxZbpKTC8BaAgAAAAwCAAAAPBA==; sprop-pps=RAHAcYIS

            """
        let parsed = try ReceivedSessionDescription(parsing: text)
        #expect(parsed.codec == .hevc && parsed.port == 45678)
        #expect(parsed.parameterSets == [Self.x265VPS, Self.x265SPS, Self.x265PPS])
        #expect(parsed.hevc == HEVCFormatParameters())  // profile-id 1, tier-flag 0, level-id 93
    }

    /// The first payload type of the m= line with a codec we read decides; an H.264 offer still reads as before.
    @Test func picksThePayloadTypeInMediaLineOrder() throws {
        let both = Self.sdp(media: "97 96", attributes: [
            "a=rtpmap:96 H264/90000", "a=fmtp:96 packetization-mode=1;sprop-parameter-sets=Z0LAHg==,aM4G4g==",
            "a=rtpmap:97 H265/90000", "a=fmtp:97 sprop-vps=QAEMAf//AWAAAAMAkAAAAwAAAwA8ugJA",
        ])
        let hevc = try ReceivedSessionDescription(parsing: both)
        #expect(hevc.payloadType == 97 && hevc.codec == .hevc && hevc.parameterSets == [Self.x265VPS])
        let h264 = try ReceivedSessionDescription(parsing: both.replacingOccurrences(of: "97 96", with: "96 97"))
        #expect(h264.payloadType == 96 && h264.codec == .h264 && h264.hevc == nil && h264.packetizationMode == 1)
        #expect(h264.parameterSets.count == 2)
    }

    @Test(arguments: [
        ("DONL in use", "sprop-max-don-diff=2", RTPError.Code.unsupported),
        ("a de-packetization buffer", "sprop-depack-buf-nalus=1", .unsupported),
        ("several RTP sessions", "tx-mode=MRST", .unsupported),
        ("level-id out of range", "level-id=300", .invalidSDP),
        ("tier-flag out of range", "tier-flag=2", .invalidSDP),
        ("bad base64", "sprop-sps=Q!!", .invalidSDP),
        ("negative max-don-diff", "sprop-max-don-diff=-1", .invalidSDP),
    ])
    func refuses(name: String, fmtp: String, code: RTPError.Code) {
        let text = Self.sdp(media: "96", attributes: ["a=rtpmap:96 H265/90000", "a=fmtp:96 profile-id=1;\(fmtp)"])
        let error = #expect(throws: RTPError.self, "\(name)") { try ReceivedSessionDescription(parsing: text) }
        #expect(error?.code == code, "\(name)")
    }

    @Test func acceptsTheDefaultsSpelledOut() throws {
        let text = Self.sdp(media: "96", attributes: [
            "a=rtpmap:96 H265/90000",
            "a=fmtp:96 profile-space=0;profile-id=2;tier-flag=1;level-id=120;sprop-max-don-diff=0;sprop-depack-buf-nalus=0;tx-mode=SRST",
        ])
        let parsed = try ReceivedSessionDescription(parsing: text)
        #expect(parsed.hevc == HEVCFormatParameters(profileID: 2, tierFlag: 1, levelID: 120))
    }

    static func sdp(media: String, attributes: [String]) -> String {
        (["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=peer", "c=IN IP4 127.0.0.1", "t=0 0", "m=video 5004 RTP/AVP \(media)"]
            + attributes).joined(separator: "\r\n") + "\r\n"
    }
}
