/// kVTCompressionPropertyKey_ProfileLevel: an H.264 profile and level (nil level = the encoder picks the lowest
/// level that carries the stream).
///
/// The SPS of the output carries exactly the requested profile_idc and constraint flags (H.264 §7.4.2.1.1, A.2):
///
///     profile              profile_idc  constraint_set0..5
///     baseline              66           1 0 0 0 0 0     (A.2.1)
///     constrainedBaseline   66           1 1 0 0 0 0     (A.2.1.1: set1 = 1)
///     main                  77           0 1 0 0 0 0     (set1: conforms to Main)
///     high                 100           0 0 0 0 0 0     (A.2.4)
///     constrainedHigh      100           0 0 0 0 1 1     (A.2.4.2: set4 = set5 = 1)
///
/// x264 writes set0+set1 for every Baseline stream (it uses none of Baseline's extras, so the stream is Constrained
/// Baseline), so for `.baseline` the session clears set1 and for `.constrainedHigh` sets set4/set5; see
/// `ParameterSetPatch`.
public struct ProfileLevel: Sendable, Hashable, CustomStringConvertible {
    public enum Profile: String, Sendable, Hashable, CaseIterable {
        case baseline, constrainedBaseline, main, high, constrainedHigh

        /// profile_idc (Annex A).
        public var profileIDC: UInt8 {
            switch self {
            case .baseline, .constrainedBaseline: 66
            case .main: 77
            case .high, .constrainedHigh: 100
            }
        }

        /// The SPS byte holding constraint_set0_flag (bit 7) … constraint_set5_flag (bit 2) and reserved_zero_2bits.
        public var constraintFlags: UInt8 {
            switch self {
            case .baseline: 0b1000_0000
            case .constrainedBaseline: 0b1100_0000
            case .main: 0b0100_0000
            case .high: 0b0000_0000
            case .constrainedHigh: 0b0000_1100
            }
        }

        /// True for profiles whose bitstreams may not hold B slices.
        var forbidsBFrames: Bool { self == .baseline || self == .constrainedBaseline || self == .constrainedHigh }

        /// The x264 `profile` option value.
        var x264Name: String {
            switch self {
            case .baseline, .constrainedBaseline: "baseline"
            case .main: "main"
            case .high, .constrainedHigh: "high"
            }
        }

        /// cpbBrVclFactor of Table A-2: MaxBR is in units of this many bits/s.
        var cpbBrVclFactor: Int {
            switch self {
            case .high, .constrainedHigh: 1250
            default: 1000
            }
        }
    }

    public var profile: Profile
    /// nil: the encoder chooses.
    public var level: H264Level?

    public init(profile: Profile, level: H264Level?) {
        self.profile = profile
        self.level = level
    }

    public var description: String { "\(profile) \(level.map { "\($0)" } ?? "auto")" }
}

/// H.264 levels with their Table A-1 limits (level 1b is left out: it needs constraint_set3 tricks and no
/// real-time caller asks for it).
public enum H264Level: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case l1 = 10, l1_1 = 11, l1_2 = 12, l1_3 = 13
    case l2 = 20, l2_1 = 21, l2_2 = 22
    case l3 = 30, l3_1 = 31, l3_2 = 32
    case l4 = 40, l4_1 = 41, l4_2 = 42
    case l5 = 50, l5_1 = 51, l5_2 = 52

    /// level_idc as written in the SPS.
    public var levelIDC: UInt8 { rawValue }

    public var description: String { "\(rawValue / 10).\(rawValue % 10)" }

    /// Table A-1: (MaxMBPS macroblocks/s, MaxFS macroblocks, MaxBR in cpbBrVclFactor bits/s).
    public var limits: (maxMBPS: Int, maxFS: Int, maxBR: Int) {
        switch self {
        case .l1: (1485, 99, 64)
        case .l1_1: (3000, 396, 192)
        case .l1_2: (6000, 396, 384)
        case .l1_3: (11880, 396, 768)
        case .l2: (11880, 396, 2000)
        case .l2_1: (19800, 792, 4000)
        case .l2_2: (20250, 1620, 4000)
        case .l3: (40500, 1620, 10000)
        case .l3_1: (108_000, 3600, 14000)
        case .l3_2: (216_000, 5120, 20000)
        case .l4: (245_760, 8192, 20000)
        case .l4_1: (245_760, 8192, 50000)
        case .l4_2: (522_240, 8704, 50000)
        case .l5: (589_824, 22080, 135_000)
        case .l5_1: (983_040, 36864, 240_000)
        case .l5_2: (2_073_600, 36864, 240_000)
        }
    }

    /// Whether a stream of this size, frame rate and bitrate fits the level (A.3.1 a, b, f, g; A.3.1 i for BR).
    public func carries(width: Int, height: Int, frameRate: Double, bitRate: Int, profile: ProfileLevel.Profile) -> Bool {
        let widthInMbs = (width + 15) / 16
        let heightInMbs = (height + 15) / 16
        let frameSizeInMbs = widthInMbs * heightInMbs
        let (maxMBPS, maxFS, maxBR) = limits
        // A.3.1 f/g: neither dimension may exceed sqrt(8 * MaxFS) macroblocks.
        let maxSide = Int(Double(8 * maxFS).squareRoot())
        return frameSizeInMbs <= maxFS
            && widthInMbs <= maxSide && heightInMbs <= maxSide
            && Double(frameSizeInMbs) * frameRate <= Double(maxMBPS)
            && bitRate <= maxBR * profile.cpbBrVclFactor
    }

    /// The lowest level that carries the stream, or nil if none does.
    public static func lowest(
        carryingWidth width: Int, height: Int, frameRate: Double, bitRate: Int, profile: ProfileLevel.Profile
    ) -> H264Level? {
        allCases.first { $0.carries(width: width, height: height, frameRate: frameRate, bitRate: bitRate, profile: profile) }
    }
}
