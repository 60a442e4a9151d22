/// The HEVC counterpart of `ProfileLevel`: a profile (general_profile_idc), the Main tier, and a level
/// (general_level_idc = 30 × the level number); a nil level makes the session pick the lowest whose Table A.8/A.9
/// limits carry the stream (`Configuration.resolvedHEVCLevel`).
///
/// Only the Main tier: the High tier exists for levels 4 and up only and raises MaxBR/MaxCPB, which a real-time
/// stream at these rates never needs.
///
/// The level table lives here until the Bitstream module has H.265's (issue 15, h-hevc-bits); the session needs it
/// to refuse a level that cannot carry the stream before libx265 does (x265 only warns and rewrites its VBV).
public struct HEVCProfileLevel: Sendable, Hashable, CustomStringConvertible {
    public var profile: Profile
    /// nil: the lowest level that carries the size, frame rate and peak bit rate.
    public var level: Level?

    public init(profile: Profile = .main, level: Level? = nil) {
        self.profile = profile
        self.level = level
    }

    public var description: String { "\(profile.rawValue) \(level?.name ?? "auto")" }

    /// The H.265 profiles the encoders here produce (Annex A.3), by the names x265 and ffmpeg use. Not Main Still
    /// Picture: it allows one picture per stream, and libx265 asked for it writes every picture intra and signals
    /// RExt's Main Intra (general_profile_idc 4) unless told the stream has a single frame (measured: ffprobe says
    /// "Rext" for a 5-frame stream).
    public enum Profile: String, Sendable, Hashable, CaseIterable {
        /// general_profile_idc 1: 8-bit 4:2:0.
        case main
        /// general_profile_idc 2: up to 10-bit 4:2:0. rtenc's pixel formats are 8-bit, so the session widens every
        /// sample to 10 bits (× 4) on the way in — what `x265 --output-depth 10` does with 8-bit input.
        case main10

        /// general_profile_idc (Table A.2's numbering).
        public var generalProfileIdc: Int {
            switch self {
            case .main: 1
            case .main10: 2
            }
        }

        /// Bits per luma/chroma sample the encoder is fed.
        var bitDepth: Int { self == .main10 ? 10 : 8 }
    }

    /// An H.265 level, as general_level_idc (30 × the level: 93 is 3.1).
    public struct Level: Sendable, Hashable, Comparable, CustomStringConvertible {
        public let generalLevelIdc: Int

        /// The level of a general_level_idc; nil for a value that names none (Table A.8's rows).
        public init?(generalLevelIdc: Int) {
            guard Self.table.keys.contains(generalLevelIdc) else { return nil }
            self.generalLevelIdc = generalLevelIdc
        }

        /// "1", "2", "2.1", … "6.2"; "3.0" and level_idc-style "31" are not accepted here (the CLI does that).
        public init?(name: String) {
            guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = level
        }

        public static let allCases: [Level] = table.keys.sorted().compactMap(Level.init(generalLevelIdc:))

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.generalLevelIdc < rhs.generalLevelIdc }

        public var name: String {
            let tenths = generalLevelIdc / 3
            return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
        }

        public var description: String { name }

        /// One row of Tables A.8 and A.9 (general tier and level limits), Main tier.
        public struct Limits: Hashable, Sendable {
            /// MaxLumaPs: luma samples per picture.
            public var maxLumaPs: Int
            /// MaxLumaSr: luma samples per second.
            public var maxLumaSr: Int
            /// MaxBR, Main tier, in 1000 bit/s (BrVclFactor of the Main and Main 10 profiles).
            public var maxBR: Int
            /// MaxCPB, Main tier, in 1000 bits.
            public var maxCPB: Int
        }

        public var limits: Limits { Self.table[generalLevelIdc]! }  // init guarantees the key

        /// Tables A.8 (MaxLumaPs, MaxCPB) and A.9 (MaxLumaSr, MaxBR), Main tier, keyed by general_level_idc.
        private static let table: [Int: Limits] = [
            30: Limits(maxLumaPs: 36_864, maxLumaSr: 552_960, maxBR: 128, maxCPB: 350),
            60: Limits(maxLumaPs: 122_880, maxLumaSr: 3_686_400, maxBR: 1_500, maxCPB: 1_500),
            63: Limits(maxLumaPs: 245_760, maxLumaSr: 7_372_800, maxBR: 3_000, maxCPB: 3_000),
            90: Limits(maxLumaPs: 552_960, maxLumaSr: 16_588_800, maxBR: 6_000, maxCPB: 6_000),
            93: Limits(maxLumaPs: 983_040, maxLumaSr: 33_177_600, maxBR: 10_000, maxCPB: 10_000),
            120: Limits(maxLumaPs: 2_228_224, maxLumaSr: 66_846_720, maxBR: 12_000, maxCPB: 12_000),
            123: Limits(maxLumaPs: 2_228_224, maxLumaSr: 133_693_440, maxBR: 20_000, maxCPB: 20_000),
            150: Limits(maxLumaPs: 8_912_896, maxLumaSr: 267_386_880, maxBR: 25_000, maxCPB: 25_000),
            153: Limits(maxLumaPs: 8_912_896, maxLumaSr: 534_773_760, maxBR: 40_000, maxCPB: 40_000),
            156: Limits(maxLumaPs: 8_912_896, maxLumaSr: 1_069_547_520, maxBR: 60_000, maxCPB: 60_000),
            180: Limits(maxLumaPs: 35_651_584, maxLumaSr: 1_069_547_520, maxBR: 60_000, maxCPB: 60_000),
            183: Limits(maxLumaPs: 35_651_584, maxLumaSr: 2_139_095_040, maxBR: 120_000, maxCPB: 120_000),
            186: Limits(maxLumaPs: 35_651_584, maxLumaSr: 4_278_190_080, maxBR: 240_000, maxCPB: 240_000),
        ]

        /// Coded picture side: libx265 codes pictures in whole minimum coding blocks (MinCbSizeY 8) and crops the
        /// rest with the conformance window, and the limits count the coded samples.
        static func codedSide(_ samples: Int) -> Int { (max(samples, 0) + 7) / 8 * 8 }

        /// The limits `width` × `height` at `fps` and `bitRate` breaks, as "what: needed > allowed" strings; empty
        /// when the level carries the stream. MaxBR counts at the NAL HRD's factor (1100 bit/s per unit: the
        /// stream's bytes, not only the slices).
        public func violations(width: Int, height: Int, fps: Double, bitRate: Int) -> [String] {
            let limits = self.limits
            let codedWidth = Self.codedSide(width)
            let codedHeight = Self.codedSide(height)
            let lumaPs = codedWidth * codedHeight
            var broken: [String] = []
            if lumaPs > limits.maxLumaPs {
                broken.append("MaxLumaPs \(lumaPs) > \(limits.maxLumaPs)")
            }
            // A.4.1: pic_width_in_luma_samples and pic_height_in_luma_samples ≤ Sqrt(MaxLumaPs × 8).
            let maxSide = (Double(limits.maxLumaPs) * 8).squareRoot()
            if Double(codedWidth) > maxSide { broken.append("width \(codedWidth) > \(Int(maxSide))") }
            if Double(codedHeight) > maxSide { broken.append("height \(codedHeight) > \(Int(maxSide))") }
            let lumaSr = Double(lumaPs) * fps
            if lumaSr > Double(limits.maxLumaSr) {
                broken.append("MaxLumaSr \(Int(lumaSr.rounded(.up))) > \(limits.maxLumaSr)")
            }
            let maxBitRate = limits.maxBR * 1100
            if bitRate > maxBitRate { broken.append("MaxBR \(bitRate) > \(maxBitRate) b/s") }
            return broken
        }

        /// The lowest level that carries the stream; nil when none does.
        public static func lowest(width: Int, height: Int, fps: Double, bitRate: Int) -> Level? {
            allCases.first { $0.violations(width: width, height: height, fps: fps, bitRate: bitRate).isEmpty }
        }
    }
}
