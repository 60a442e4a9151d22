import Bitstream

/// The HEVC counterpart of `ProfileLevel`: a profile and a level in the Bitstream module's vocabulary (`HEVC.Profile`,
/// `HEVC.Level`, Tables A.8/A.9), Main tier; a nil level makes the session pick the lowest that carries the stream
/// (`Configuration.resolvedHEVCLevel`).
///
/// Only the Main tier: the High tier exists for levels 4 and up only and raises MaxBR/MaxCPB, which a real-time
/// stream at these rates never needs.
public struct HEVCProfileLevel: Sendable, Hashable, CustomStringConvertible {
    public var profile: HEVC.Profile
    /// nil: the lowest level that carries the size, frame rate and peak bit rate.
    public var level: HEVC.Level?

    public init(profile: HEVC.Profile = .main, level: HEVC.Level? = nil) {
        self.profile = profile
        self.level = level
    }

    public var description: String { "\(profile.name) \(level?.name ?? "auto")" }

    /// The profiles libx265 produces here. Main 10 from rtenc's 8-bit pixel formats: the session widens every
    /// sample to 10 bits (× 4) on the way in, what `x265 --output-depth 10` does with 8-bit input. Not Main Still
    /// Picture: it allows one picture per stream, and libx265 asked for it writes every picture intra and signals
    /// RExt's Main Intra (general_profile_idc 4) unless told the stream has a single frame (measured: ffprobe says
    /// "Rext" for a 5-frame stream).
    public static let supportedProfiles: Set<HEVC.Profile> = [.main, .main10]
}

extension HEVC.Profile {
    /// Bits per luma/chroma sample the encoder is fed.
    var bitDepth: Int { self == .main10 ? 10 : 8 }

    /// The libx265 `profile` option value.
    var x265Name: String { self == .main10 ? "main10" : "main" }
}

extension HEVC.Level {
    /// Picture side as libx265 codes it: in whole minimum coding blocks (MinCbSizeY 8), the rest cropped by the
    /// conformance window; the level limits count pic_width/height_in_luma_samples, the coded size.
    static func codedSide(_ samples: Int) -> Int { samples > 0 ? (samples - 1) / 8 * 8 + 8 : samples }
}
