import Bitstream

/// The profile, tier and level parameters of the RFC 7798 media type (§7.1), as an SDP `a=fmtp` carries them beside
/// `sprop-vps`/`sprop-sps`/`sprop-pps`: the general part of the SPS's profile_tier_level (H.265 §7.3.3).
public struct HEVCFormatParameters: Sendable, Hashable {
    /// `profile-space`: general_profile_space (0 unless a future profile space is used).
    public var profileSpace: UInt8
    /// `profile-id`: general_profile_idc (1 Main, 2 Main 10, 3 Main Still Picture, 4 format range extensions…).
    public var profileID: UInt8
    /// `tier-flag`: general_tier_flag (0 Main tier, 1 High tier).
    public var tierFlag: UInt8
    /// `level-id`: general_level_idc, 30 × the level number (93 = level 3.1).
    public var levelID: UInt8

    /// RFC 7798 §7.1's defaults when a parameter is absent: Main profile, Main tier, level 3.1.
    public init(profileSpace: UInt8 = 0, profileID: UInt8 = 1, tierFlag: UInt8 = 0, levelID: UInt8 = 93) {
        self.profileSpace = profileSpace
        self.profileID = profileID
        self.tierFlag = tierFlag
        self.levelID = levelID
    }

    /// The general part of a profile_tier_level (H.265 §7.3.3): general_profile_space, general_profile_idc,
    /// general_tier_flag, general_level_idc.
    public init(profileTierLevel: HEVC.ProfileTierLevel) {
        self.init(profileSpace: profileTierLevel.generalProfileSpace, profileID: profileTierLevel.generalProfileIdc,
                  tierFlag: profileTierLevel.generalTierFlag ? 1 : 0, levelID: profileTierLevel.generalLevelIdc)
    }

    /// Reads the profile_tier_level of an SPS NAL unit (header included): from Bitstream's `HEVC.SequenceParameterSet`
    /// when the whole SPS parses, else from the syntax elements in front of it alone (H.265 §7.3.2.2.1:
    /// sps_video_parameter_set_id, sps_max_sub_layers_minus1, sps_temporal_id_nesting_flag, profile_tier_level), so
    /// an SPS damaged further on still names its profile and level, as ffmpeg's SDP writer reads them.
    ///
    /// Nil when the unit is not an SPS or ends inside its profile_tier_level.
    public init?(sequenceParameterSet sps: some Collection<UInt8>) {
        let unit = Array(sps)
        guard let header = HEVC.NALUnitHeader(unit), header.nalUnitType == .sps else { return nil }
        if let parsed = try? HEVC.SequenceParameterSet(nalUnit: unit[...]) {
            self.init(profileTierLevel: parsed.profileTierLevel)
            return
        }
        var reader = BitReader(RBSP.removingEmulationPrevention(unit[HEVC.NALUnitHeader.size...]))
        do throws(BitstreamError) {
            _ = try reader.readBits(4)  // sps_video_parameter_set_id
            let maxSubLayersMinus1 = Int(try reader.readBits(3))
            _ = try reader.readFlag()  // sps_temporal_id_nesting_flag
            self.init(profileTierLevel: try HEVC.ProfileTierLevel(reading: &reader, maxNumSubLayersMinus1: maxSubLayersMinus1))
        } catch {
            return nil
        }
    }

    /// The parameters as an fmtp fragment: `profile-id=1;tier-flag=0;level-id=93` (profile-space only when not 0).
    public var fmtp: String {
        (profileSpace != 0 ? "profile-space=\(profileSpace);" : "")
            + "profile-id=\(profileID);tier-flag=\(tierFlag);level-id=\(levelID)"
    }

    /// Applies one fmtp `key=value` pair if it is one of these parameters; false for other keys.
    /// - Throws: `.invalidSDP` for a value out of the parameter's range.
    package mutating func apply(key: Substring, value: Substring) throws(RTPError) -> Bool {
        let ranges: [Substring: (ClosedRange<UInt8>, WritableKeyPath<Self, UInt8>)] = [
            "profile-space": (0 ... 3, \.profileSpace), "profile-id": (0 ... 31, \.profileID),
            "tier-flag": (0 ... 1, \.tierFlag), "level-id": (0 ... 255, \.levelID),
        ]
        guard let (range, field) = ranges[key] else { return false }
        guard let number = UInt8(value), range.contains(number) else {
            throw .make(.invalidSDP, "\(key)=\(value) is not in \(range.lowerBound)…\(range.upperBound)")
        }
        self[keyPath: field] = number
        return true
    }
}
