/// H.264 levels (Annex A) and their Table A-1 limits.
public enum H264Level: Int, Hashable, Sendable, CaseIterable, Comparable {
    // Raw values are level_idc × 1, except 1b: its level_idc is 9 or 11 depending on the profile (see
    // `levelIdc(for:)`), so it gets the otherwise unused 105 and sorts between 1 and 1.1 by `order`.
    case level1 = 10, level1b = 105, level1_1 = 11, level1_2 = 12, level1_3 = 13
    case level2 = 20, level2_1 = 21, level2_2 = 22
    case level3 = 30, level3_1 = 31, level3_2 = 32
    case level4 = 40, level4_1 = 41, level4_2 = 42
    case level5 = 50, level5_1 = 51, level5_2 = 52
    case level6 = 60, level6_1 = 61, level6_2 = 62

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.order < rhs.order }

    private var order: Int { self == .level1b ? 105 : rawValue * 10 }

    /// level_idc as coded; level 1b has two spellings, see `levelIdc(for:)`.
    public var levelIdc: UInt8 { self == .level1b ? 9 : UInt8(rawValue) }

    /// The level_idc and whether constraint_set3_flag must be set to spell this level in `profile`.
    public func levelIdc(for profile: H264Profile) -> (levelIdc: UInt8, constraintSet3Flag: Bool) {
        if self == .level1b, profile.signalsLevel1bWithConstraintSet3 {
            return (11, true)
        }
        return (levelIdc, false)
    }

    /// The level of a level_idc. `constraintSet3Flag` turns level_idc 11 into 1b for Baseline, Main and
    /// Extended (profile_idc 66, 77, 88); level_idc 9 is 1b in any profile.
    public init?(levelIdc: UInt8, profileIdc: UInt8 = 100, constraintSet3Flag: Bool = false) {
        if levelIdc == 9 {
            self = .level1b
            return
        }
        if levelIdc == 11, constraintSet3Flag, [66, 77, 88].contains(profileIdc) {
            self = .level1b
            return
        }
        // 105 is only this enum's private sort key for 1b, never a level_idc.
        guard levelIdc != 105, let level = H264Level(rawValue: Int(levelIdc)) else { return nil }
        self = level
    }

    /// The level named "1", "1b", "1.1" … "6.2".
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    public var name: String {
        switch self {
        case .level1b: "1b"
        default: rawValue % 10 == 0 ? "\(rawValue / 10)" : "\(rawValue / 10).\(rawValue % 10)"
        }
    }

    /// One row of Table A-1.
    public struct Limits: Hashable, Sendable {
        /// Max macroblock processing rate MaxMBPS (MB/s).
        public var maxMBPS: Int
        /// Max frame size MaxFS (MBs).
        public var maxFS: Int
        /// Max decoded picture buffer size MaxDpbMbs (MBs).
        public var maxDpbMbs: Int
        /// Max video bit rate MaxBR in units of cpbBrVclFactor / cpbBrNalFactor bit/s (1000 bit/s in Baseline).
        public var maxBR: Int
        /// Max CPB size MaxCPB in units of cpbBrVclFactor / cpbBrNalFactor bits.
        public var maxCPB: Int
    }

    /// Table A-1.
    public var limits: Limits {
        switch self {
        case .level1: Limits(maxMBPS: 1_485, maxFS: 99, maxDpbMbs: 396, maxBR: 64, maxCPB: 175)
        case .level1b: Limits(maxMBPS: 1_485, maxFS: 99, maxDpbMbs: 396, maxBR: 128, maxCPB: 350)
        case .level1_1: Limits(maxMBPS: 3_000, maxFS: 396, maxDpbMbs: 900, maxBR: 192, maxCPB: 500)
        case .level1_2: Limits(maxMBPS: 6_000, maxFS: 396, maxDpbMbs: 2_376, maxBR: 384, maxCPB: 1_000)
        case .level1_3: Limits(maxMBPS: 11_880, maxFS: 396, maxDpbMbs: 2_376, maxBR: 768, maxCPB: 2_000)
        case .level2: Limits(maxMBPS: 11_880, maxFS: 396, maxDpbMbs: 2_376, maxBR: 2_000, maxCPB: 2_000)
        case .level2_1: Limits(maxMBPS: 19_800, maxFS: 792, maxDpbMbs: 4_752, maxBR: 4_000, maxCPB: 4_000)
        case .level2_2: Limits(maxMBPS: 20_250, maxFS: 1_620, maxDpbMbs: 8_100, maxBR: 4_000, maxCPB: 4_000)
        case .level3: Limits(maxMBPS: 40_500, maxFS: 1_620, maxDpbMbs: 8_100, maxBR: 10_000, maxCPB: 10_000)
        case .level3_1: Limits(maxMBPS: 108_000, maxFS: 3_600, maxDpbMbs: 18_000, maxBR: 14_000, maxCPB: 14_000)
        case .level3_2: Limits(maxMBPS: 216_000, maxFS: 5_120, maxDpbMbs: 20_480, maxBR: 20_000, maxCPB: 20_000)
        case .level4: Limits(maxMBPS: 245_760, maxFS: 8_192, maxDpbMbs: 32_768, maxBR: 20_000, maxCPB: 25_000)
        case .level4_1: Limits(maxMBPS: 245_760, maxFS: 8_192, maxDpbMbs: 32_768, maxBR: 50_000, maxCPB: 62_500)
        case .level4_2: Limits(maxMBPS: 522_240, maxFS: 8_704, maxDpbMbs: 34_816, maxBR: 50_000, maxCPB: 62_500)
        case .level5: Limits(maxMBPS: 589_824, maxFS: 22_080, maxDpbMbs: 110_400, maxBR: 135_000, maxCPB: 135_000)
        case .level5_1: Limits(maxMBPS: 983_040, maxFS: 36_864, maxDpbMbs: 184_320, maxBR: 240_000, maxCPB: 240_000)
        case .level5_2:
            Limits(maxMBPS: 2_073_600, maxFS: 36_864, maxDpbMbs: 184_320, maxBR: 240_000, maxCPB: 240_000)
        case .level6: Limits(maxMBPS: 4_177_920, maxFS: 139_264, maxDpbMbs: 696_320, maxBR: 240_000, maxCPB: 240_000)
        case .level6_1:
            Limits(maxMBPS: 8_355_840, maxFS: 139_264, maxDpbMbs: 696_320, maxBR: 480_000, maxCPB: 480_000)
        case .level6_2:
            Limits(maxMBPS: 16_711_680, maxFS: 139_264, maxDpbMbs: 696_320, maxBR: 800_000, maxCPB: 800_000)
        }
    }
}
