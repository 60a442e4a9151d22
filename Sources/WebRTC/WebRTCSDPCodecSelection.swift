import Bitstream
import RTP

extension WebRTCSDP {
    /// What the encoder produces, as negotiation needs to know it.
    public enum VideoEncoding: Sendable, Hashable {
        /// An H.264 stream of this profile at this level (its SPS's profile_idc, constraint flags and level_idc).
        case h264(profile: H264Profile, level: H264Level)
        /// An HEVC stream with these profile, tier and level parameters (RFC 7798 §7.1).
        case hevc(HEVCFormatParameters)

        /// The codec the stream is in: which payloader carries it.
        public var codec: VideoCodec {
            switch self {
            case .h264: .h264
            case .hevc: .hevc
            }
        }

        /// The rtpmap encoding name.
        public var encodingName: String {
            switch self {
            case .h264: "H264"
            case .hevc: "H265"
            }
        }
    }

    /// The H.264 profiles rtenc's encoders write, the most capable first: what a refusal suggests instead.
    static let encodableH264Profiles: [H264Profile] = [.high, .constrainedHigh, .main, .constrainedBaseline]

    /// The payload type of `codecs` (one section's, in the offerer's order of preference) that can carry
    /// `encoding`'s stream, and what is worth knowing about the choice.
    ///
    /// H.264 (RFC 6184 §8.1, §8.2.2): only packetization-mode=1 (rtenc sends FU-A and STAP-A); the profiles compared
    /// by Table 5's semantics (profile_idc and constraint flags, so 42e01f, 42c01f and 42401f are all Constrained
    /// Baseline), never byte for byte; the same profile first, then — for a Constrained Baseline stream — a Baseline
    /// payload type, whose decoders decode it; a missing profile-level-id is 42000a (Baseline, level 1). The level of
    /// the offer is the highest it receives: among equal profiles one at or above the stream's level wins, and a
    /// stream above every offered level is sent with a warning (Chrome labels every profile 3.1, and its software
    /// decoder takes 1080p anyway — design/webrtc.md trap 6). The answer echoes the offered fmtp, so both directions
    /// carry the offered level, which §8.2.2 allows with or without level-asymmetry-allowed.
    ///
    /// HEVC (RFC 7798 §7.1, §7.2.2): profile-space and profile-id equal (a Main stream may also go to a Main 10
    /// payload type), the offered tier at least ours, and our level-id at most the highest level the offerer
    /// receives — its `max-recv-level-id` when given, else its `level-id` (absent: 93, level 3.1, as Safari's offers
    /// leave it). Unlike H.264 a stream above every offered level is refused, not warned about: HEVC receivers state
    /// their decoder's limit (Chrome with a hardware decoder offers 93 or 180, by platform), and a hardware decoder
    /// refuses a stream above it. The answer writes our level-id (`WHEPAnswer`), which §7.2.2 lets an answerer lower.
    ///
    /// The same rules check a WHIP server's answer to rtenc's H.265 offer (`WHIPAnswer`, `side` "answer"): §7.2.2 has
    /// the answerer keep profile and tier and name in level-id (or max-recv-level-id) the highest level it receives.
    static func selectCodec(from codecs: [Codec], for encoding: VideoEncoding, side: String = "offer")
        -> Result<(Codec, warnings: [String]), WebRTCError>
    {
        // Retransmission, redundancy and FEC formats (RFC 4588, 2198, 5109, flexfec) carry no picture of their own.
        let video = codecs.filter { codec in
            codec.clockRate == 90_000 && !["rtx", "red", "ulpfec", "flexfec-03", "flexfec"].contains { codec.isEncoding($0) }
        }
        let named = video.filter { $0.isEncoding(encoding.encodingName) }
        guard !named.isEmpty else {
            let names = Self.uniqueNames(video.map { $0.encodingName.uppercased() })
            let listed = "(its video codecs: \(names.isEmpty ? "none" : names.joined(separator: ", ")))"
            let offersH264 = video.contains { $0.isEncoding("H264") }
            switch encoding {
            case .h264:
                let offersHEVC = video.contains { $0.isEncoding("H265") }
                return .failure(.make(.noCompatibleCodec, "the offer has no H264 \(listed)" + (offersHEVC ? "; use --codec hevc" : "")))
            case .hevc:
                // A browser offers H.265 only where it can decode it: Safari, and Chrome with a hardware decoder.
                return .failure(.make(.noCompatibleCodec,
                    "the player offered no H.265 \(listed): it cannot decode H.265 over WebRTC (Chromium without a hardware "
                        + "HEVC decoder and Firefox offer none); "
                        + (offersH264 ? "serve it with --codec h264, which it offers" : "it offers no H.264 either")))
            }
        }
        switch encoding {
        case .h264(let profile, let level): return selectH264(from: named, profile: profile, level: level)
        case .hevc(let parameters): return selectHEVC(from: named, parameters: parameters, side: side)
        }
    }

    private static func selectH264(from codecs: [Codec], profile: H264Profile, level: H264Level)
        -> Result<(Codec, warnings: [String]), WebRTCError>
    {
        let modeOne = codecs.filter { $0.packetizationMode == 1 }
        guard !modeOne.isEmpty else {
            return .failure(.make(.noCompatibleCodec,
                "the offer's H.264 payload types (\(codecs.map { "\($0.payloadType)" }.joined(separator: ", "))) all use "
                    + "packetization-mode=0 (single NAL unit), and rtenc sends FU-A and STAP-A, which need "
                    + "packetization-mode=1"))
        }
        var warnings: [String] = []
        var offered: [(codec: Codec, id: H264.ProfileLevelID)] = []
        for codec in modeOne {
            // RFC 6184 §8.1: "If the profile-level-id parameter is not present, ... Baseline profile, level 1.0".
            let text = codec.parameters["profile-level-id"] ?? "42000a"
            guard let id = H264.ProfileLevelID(text), id.profile != nil else {
                warnings.append("payload type \(codec.payloadType): profile-level-id \(text) names no H.264 profile; passed over")
                continue
            }
            offered.append((codec, id))
        }
        let acceptable: [H264Profile] = profile == .constrainedBaseline ? [.constrainedBaseline, .baseline] : [profile]
        typealias Ranked = (rank: Int, levelBelow: Bool, index: Int, entry: (codec: Codec, id: H264.ProfileLevelID))
        // The best: the most exact profile, then a level that fits, then the offerer's order.
        let ranked = offered.enumerated().compactMap { index, entry -> Ranked? in
            guard let rank = acceptable.firstIndex(of: entry.id.profile!) else { return nil }
            return (rank, entry.id.level.map { $0 < level } ?? true, index, entry)
        }.min { ($0.rank, $0.levelBelow ? 1 : 0, $0.index) < ($1.rank, $1.levelBelow ? 1 : 0, $1.index) }
        guard let chosen = ranked else {
            let profiles = uniqueNames(offered.map { $0.id.profile!.rawValue.lowercased() })
            let alternatives = encodableH264Profiles.filter { candidate in
                candidate != profile && offered.contains { entry in
                    (candidate == .constrainedBaseline ? [H264Profile.constrainedBaseline, .baseline] : [candidate])
                        .contains(entry.id.profile!)
                }
            }.map(Self.optionSpelling)
            return .failure(.make(.noCompatibleCodec,
                "the offer has no H.264 \(profile.rawValue) profile with packetization-mode=1 (its profiles: "
                    + (profiles.isEmpty ? "none readable" : profiles.joined(separator: ", ")) + "); "
                    + (alternatives.isEmpty ? "rtenc encodes none of them"
                       : "use --profile " + alternatives.joined(separator: " or "))))
        }
        if chosen.levelBelow {
            let offeredLevel = chosen.entry.id.level.map { "level \($0.name)" } ?? "level_idc \(chosen.entry.id.levelIdc)"
            warnings.append("the stream's level \(level.name) is above the offered \(offeredLevel) (payload type "
                            + "\(chosen.entry.codec.payloadType)); software decoders take it, a hardware decoder may not")
        }
        return .success((chosen.entry.codec, warnings))
    }

    private static func selectHEVC(from codecs: [Codec], parameters ours: HEVCFormatParameters, side: String)
        -> Result<(Codec, warnings: [String]), WebRTCError>
    {
        var warnings: [String] = []
        var best: (rank: Int, index: Int, codec: Codec)?
        var offeredProfiles: [String] = []
        // Payload types of our profile and tier whose highest receivable level is below ours.
        var belowOurLevel: [(codec: Codec, receives: UInt8)] = []
        for (index, codec) in codecs.enumerated() {
            var theirs = HEVCFormatParameters()
            do throws(RTPError) {
                for (key, value) in codec.parameters.pairs {
                    _ = try theirs.apply(key: Substring(key.lowercased()), value: Substring(value ?? ""))
                }
            } catch {
                warnings.append("payload type \(codec.payloadType): \(error.reason); passed over")
                continue
            }
            // RFC 7798 §7.1: max-recv-level-id, "higher than level-id", is the highest level it receives.
            var receives = theirs.levelID
            if let text = codec.parameters["max-recv-level-id"] {
                guard let level = UInt8(text) else {
                    warnings.append("payload type \(codec.payloadType): max-recv-level-id=\(text) is not a level-id; passed over")
                    continue
                }
                receives = max(receives, level)
            }
            offeredProfiles.append("profile-id \(theirs.profileID)")
            guard theirs.profileSpace == ours.profileSpace, theirs.tierFlag >= ours.tierFlag else { continue }
            let rank: Int
            if theirs.profileID == ours.profileID {
                rank = 0
            } else if ours.profileID == 1, theirs.profileID == 2 {
                rank = 1  // a Main 10 decoder decodes Main (H.265 §A.3.3)
            } else {
                continue
            }
            guard ours.levelID <= receives else {
                belowOurLevel.append((codec, receives))
                continue
            }
            if best.map({ (rank, index) < ($0.rank, $0.index) }) ?? true {
                best = (rank, index, codec)
            }
        }
        if let best { return .success((best.codec, warnings)) }
        if let highest = belowOurLevel.max(by: { $0.receives < $1.receives }) {
            return .failure(.make(.noCompatibleCodec,
                "the stream's level \(levelName(ours.levelID)) (level-id \(ours.levelID)) is above the highest level the \(side) "
                    + "receives in profile-id \(ours.profileID): level \(levelName(highest.receives)) (level-id \(highest.receives), "
                    + "payload type \(highest.codec.payloadType)); a smaller picture, a lower frame rate or bit rate needs a "
                    + "lower level (rtenc encodes at the lowest level that carries them)"))
        }
        return .failure(.make(.noCompatibleCodec,
            "the \(side) has no H.265 payload type for profile-id \(ours.profileID), tier-flag \(ours.tierFlag) (it \(side == "offer" ? "offers" : "answers") "
                + "\(uniqueNames(offeredProfiles).joined(separator: ", ")))"))
    }

    /// "3.1" for level-id 93; "unknown" for a level-id H.265 does not define (Table A.8).
    private static func levelName(_ levelID: UInt8) -> String {
        HEVC.Level(generalLevelIdc: levelID)?.name ?? "unknown"
    }

    /// How `rtenc --profile` spells a profile.
    static func optionSpelling(_ profile: H264Profile) -> String {
        profile.rawValue.lowercased().replacingSpaces(with: "-")
    }

    private static func uniqueNames(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}

extension String {
    fileprivate func replacingSpaces(with replacement: String) -> String {
        split(separator: " ").joined(separator: replacement)
    }
}
