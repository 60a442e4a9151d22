import Bitstream

/// kVTCompressionPropertyKey_ProfileLevel: an H.264 profile and level in the Bitstream module's vocabulary
/// (`H264Profile`, `H264Level`); a nil level makes the session pick the lowest that carries the stream
/// (`Configuration.resolvedLevel`).
///
/// The SPS of the output carries exactly the requested profile_idc and the constraint flags
/// `H264Profile.profileIop` names — the same byte an SDP profile-level-id for the profile holds (RFC 6184 §8.1):
///
///     profile               profile_idc  constraint_set0..5   profile-level-id
///     constrainedBaseline    66           1 1 1 0 0 0          42e0xx
///     baseline               66           0 0 0 0 0 0          4200xx
///     main                   77           0 0 0 0 0 0          4d00xx
///     high                  100           0 0 0 0 0 0          6400xx
///     progressiveHigh       100           0 0 0 0 1 0          6408xx
///     constrainedHigh       100           0 0 0 0 1 1          640cxx
///
/// x264 writes its own flags (set0+set1 for every Baseline stream, set1 for Main); the session rewrites that one
/// byte (`ParameterSetPatch`, once, in the encoder's bytes before the parameter sets are copied out). Every flag
/// written is true of x264's output: its Baseline streams use none of Baseline's extras (so they also obey Main and
/// Extended), and it codes progressive frames only.
public struct ProfileLevel: Sendable, Hashable, CustomStringConvertible {
    public var profile: H264Profile
    /// nil: the lowest level whose Table A-1 limits carry the size, frame rate and peak bit rate
    /// (`Configuration.resolvedLevel`).
    public var level: H264Level?

    public init(profile: H264Profile, level: H264Level?) {
        self.profile = profile
        self.level = level
    }

    /// The profiles the encoders here can produce (8-bit 4:2:0).
    public static let supportedProfiles: Set<H264Profile> = [
        .constrainedBaseline, .baseline, .main, .high, .progressiveHigh, .constrainedHigh,
    ]

    public var description: String { "\(profile.rawValue) \(level?.name ?? "auto")" }
}

extension H264Profile {
    /// True for profiles whose bitstreams may not hold B slices.
    var forbidsBFrames: Bool { self == .baseline || self == .constrainedBaseline || self == .constrainedHigh }

    /// The x264 `profile` option value (a ceiling for x264; see `x264FeatureParams`).
    var x264Name: String {
        switch self {
        case .baseline, .constrainedBaseline: "baseline"
        case .main: "main"
        default: "high"
        }
    }

    /// x264 writes the lowest profile_idc its features need (ultrafast turns CABAC and 8x8 transforms off and so
    /// yields Baseline even when High is asked for): the feature that defines the profile is turned on.
    var x264FeatureParams: String {
        switch self {
        case .baseline, .constrainedBaseline: ""
        case .main: ":cabac=1"
        default: ":cabac=1:8x8dct=1"
        }
    }

    /// The h264_vaapi `profile` option value.
    var vaapiName: String {
        switch self {
        case .baseline, .constrainedBaseline: "constrained_baseline"
        case .main: "main"
        default: "high"
        }
    }
}
