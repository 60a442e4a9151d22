extension HEVC {
    /// H.265 levels (Annex A) and their limits in Tables A.8 (general tier and level limits) and A.9 (the Main
    /// and Main 10 bit rates and sample rates). general_level_idc is 30 × the level number.
    public enum Level: Int, Hashable, Sendable, CaseIterable, Comparable {
        case level1 = 30, level2 = 60, level2_1 = 63
        case level3 = 90, level3_1 = 93
        case level4 = 120, level4_1 = 123
        case level5 = 150, level5_1 = 153, level5_2 = 156
        case level6 = 180, level6_1 = 183, level6_2 = 186

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

        /// general_level_idc.
        public var generalLevelIdc: UInt8 { UInt8(rawValue) }

        public init?(generalLevelIdc: UInt8) {
            self.init(rawValue: Int(generalLevelIdc))
        }

        /// The level named "1", "2", "2.1" … "6.2".
        public init?(name: String) {
            guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = level
        }

        public var name: String {
            let tenths = rawValue / 3
            return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
        }

        /// One row of Tables A.8 and A.9.
        public struct Limits: Hashable, Sendable {
            /// MaxLumaPs: luma samples per picture.
            public var maxLumaPs: Int
            /// MaxCPB for the Main and High tiers, in units of CpbBrVclFactor (or NAL factor) bits; the High tier
            /// is nil below level 4.
            public var maxCPBMain: Int
            public var maxCPBHigh: Int?
            /// MaxSliceSegmentsPerPicture, MaxTileRows, MaxTileCols.
            public var maxSliceSegmentsPerPicture: Int
            public var maxTileRows: Int
            public var maxTileCols: Int
            /// MaxLumaSr: luma samples per second.
            public var maxLumaSr: Int
            /// MaxBR for the Main and High tiers, in units of CpbBrVclFactor (or NAL factor) bit/s.
            public var maxBRMain: Int
            public var maxBRHigh: Int?
        }

        /// Tables A.8 and A.9.
        public var limits: Limits {
            switch self {
            case .level1: Limits(maxLumaPs: 36_864, maxCPBMain: 350, maxSliceSegmentsPerPicture: 16, maxTileRows: 1,
                                 maxTileCols: 1, maxLumaSr: 552_960, maxBRMain: 128)
            case .level2: Limits(maxLumaPs: 122_880, maxCPBMain: 1_500, maxSliceSegmentsPerPicture: 16, maxTileRows: 1,
                                 maxTileCols: 1, maxLumaSr: 3_686_400, maxBRMain: 1_500)
            case .level2_1: Limits(maxLumaPs: 245_760, maxCPBMain: 3_000, maxSliceSegmentsPerPicture: 20,
                                   maxTileRows: 1, maxTileCols: 1, maxLumaSr: 7_372_800, maxBRMain: 3_000)
            case .level3: Limits(maxLumaPs: 552_960, maxCPBMain: 6_000, maxSliceSegmentsPerPicture: 30, maxTileRows: 2,
                                 maxTileCols: 2, maxLumaSr: 16_588_800, maxBRMain: 6_000)
            case .level3_1: Limits(maxLumaPs: 983_040, maxCPBMain: 10_000, maxSliceSegmentsPerPicture: 40,
                                   maxTileRows: 3, maxTileCols: 3, maxLumaSr: 33_177_600, maxBRMain: 10_000)
            case .level4: Limits(maxLumaPs: 2_228_224, maxCPBMain: 12_000, maxCPBHigh: 30_000,
                                 maxSliceSegmentsPerPicture: 75, maxTileRows: 5, maxTileCols: 5,
                                 maxLumaSr: 66_846_720, maxBRMain: 12_000, maxBRHigh: 30_000)
            case .level4_1: Limits(maxLumaPs: 2_228_224, maxCPBMain: 20_000, maxCPBHigh: 50_000,
                                   maxSliceSegmentsPerPicture: 75, maxTileRows: 5, maxTileCols: 5,
                                   maxLumaSr: 133_693_440, maxBRMain: 20_000, maxBRHigh: 50_000)
            case .level5: Limits(maxLumaPs: 8_912_896, maxCPBMain: 25_000, maxCPBHigh: 100_000,
                                 maxSliceSegmentsPerPicture: 200, maxTileRows: 11, maxTileCols: 10,
                                 maxLumaSr: 267_386_880, maxBRMain: 25_000, maxBRHigh: 100_000)
            case .level5_1: Limits(maxLumaPs: 8_912_896, maxCPBMain: 40_000, maxCPBHigh: 160_000,
                                   maxSliceSegmentsPerPicture: 200, maxTileRows: 11, maxTileCols: 10,
                                   maxLumaSr: 534_773_760, maxBRMain: 40_000, maxBRHigh: 160_000)
            case .level5_2: Limits(maxLumaPs: 8_912_896, maxCPBMain: 60_000, maxCPBHigh: 240_000,
                                   maxSliceSegmentsPerPicture: 200, maxTileRows: 11, maxTileCols: 10,
                                   maxLumaSr: 1_069_547_520, maxBRMain: 60_000, maxBRHigh: 240_000)
            case .level6: Limits(maxLumaPs: 35_651_584, maxCPBMain: 60_000, maxCPBHigh: 240_000,
                                 maxSliceSegmentsPerPicture: 600, maxTileRows: 22, maxTileCols: 20,
                                 maxLumaSr: 1_069_547_520, maxBRMain: 60_000, maxBRHigh: 240_000)
            case .level6_1: Limits(maxLumaPs: 35_651_584, maxCPBMain: 120_000, maxCPBHigh: 480_000,
                                   maxSliceSegmentsPerPicture: 600, maxTileRows: 22, maxTileCols: 20,
                                   maxLumaSr: 2_139_095_040, maxBRMain: 120_000, maxBRHigh: 480_000)
            case .level6_2: Limits(maxLumaPs: 35_651_584, maxCPBMain: 240_000, maxCPBHigh: 800_000,
                                   maxSliceSegmentsPerPicture: 600, maxTileRows: 22, maxTileCols: 20,
                                   maxLumaSr: 4_278_190_080, maxBRMain: 240_000, maxBRHigh: 800_000)
            }
        }
    }
}
