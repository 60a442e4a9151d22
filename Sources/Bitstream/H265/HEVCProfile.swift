extension HEVC {
    /// The H.265 profiles (Annex A) by general_profile_idc. The format range extensions profiles (4, Main 12,
    /// Main 4:2:2 10, Main 4:4:4 …) share idc 4 and are told apart by constraint flags, which this enum does not
    /// do: they are all `.formatRangeExtensions`.
    public enum Profile: UInt8, Hashable, Sendable, CaseIterable {
        case main = 1
        case main10 = 2
        case mainStillPicture = 3
        case formatRangeExtensions = 4
        case highThroughput = 5
        case multiviewMain = 6
        case scalableMain = 7
        case threeDMain = 8
        case screenContentCoding = 9
        case scalableFormatRangeExtensions = 10
        case highThroughputScreenContentCoding = 11

        /// general_profile_idc.
        public var generalProfileIdc: UInt8 { rawValue }

        /// The profile general_profile_idc names; when it names none this module knows, the lowest profile whose
        /// general_profile_compatibility_flag is set (§A.3: an idc of 0 with flag 1 set is a Main stream).
        public init?(profileTierLevel: ProfileTierLevel) {
            if let profile = Profile(rawValue: profileTierLevel.generalProfileIdc) {
                self = profile
                return
            }
            guard let general = profileTierLevel.general,
                  let flagged = Profile.allCases.first(where: { general.profileCompatibilityFlag(Int($0.rawValue)) })
            else { return nil }
            self = flagged
        }

        /// The name as `--profile` spells it ("main", "main10", "main-still-picture", "rext" …).
        public var name: String {
            switch self {
            case .main: "main"
            case .main10: "main10"
            case .mainStillPicture: "main-still-picture"
            case .formatRangeExtensions: "rext"
            case .highThroughput: "high-throughput"
            case .multiviewMain: "multiview-main"
            case .scalableMain: "scalable-main"
            case .threeDMain: "3d-main"
            case .screenContentCoding: "scc"
            case .scalableFormatRangeExtensions: "scalable-rext"
            case .highThroughputScreenContentCoding: "high-throughput-scc"
            }
        }

        /// The profile named `name` as `name` spells it ("main10"; "main-10" and "main_10" are accepted too).
        public init?(name: String) {
            let folded = String(name.lowercased().map { $0 == "_" ? "-" : $0 })
            let aliases: [String: Profile] = ["main-10": .main10, "msp": .mainStillPicture, "mainstillpicture": .mainStillPicture]
            if let profile = aliases[folded] ?? Profile.allCases.first(where: { $0.name == folded }) {
                self = profile
            } else {
                return nil
            }
        }

        /// CpbBrVclFactor and CpbBrNalFactor (§A.4.2 / Table A.3): 1000 and 1100 for the 8- and 10-bit 4:2:0
        /// profiles (Main, Main 10, Main Still Picture); the range extensions scale them by bit depth and chroma
        /// format, which needs their constraint flags, so they get the Main factors here (the smallest: a check
        /// against them errs on the safe side).
        public var cpbBrVclFactor: Int { 1000 }
        public var cpbBrNalFactor: Int { 1100 }
    }

    /// general_tier_flag: the Main tier (0) and the High tier (1), which allows higher bit rates (Table A.8).
    public enum Tier: Int, Hashable, Sendable, CaseIterable {
        case main = 0
        case high = 1

        public var name: String { self == .main ? "main" : "high" }
        public var generalTierFlag: Bool { self == .high }
    }
}
