extension HEVC.Level {
    /// A limit of Tables A.8/A.9 a stream would break.
    public struct Violation: Hashable, Sendable, CustomStringConvertible {
        public enum Limit: String, Hashable, Sendable {
            /// MaxLumaPs: luma samples per picture.
            case pictureSize
            /// §A.4.1: pic_width/height_in_luma_samples ≤ Sqrt(MaxLumaPs · 8).
            case pictureWidth, pictureHeight
            /// MaxLumaSr: luma samples per second.
            case lumaSampleRate
            /// MaxBR · CpbBrVclFactor (or NAL factor): bit/s.
            case bitRate
            /// The tier has no limits at this level (the High tier exists from level 4 on).
            case tier
        }

        public var limit: Limit
        /// What the stream needs and what the level allows, in the limit's unit.
        public var required: Double
        public var allowed: Double

        public var description: String { "\(limit.rawValue) \(required) > \(allowed)" }
    }

    /// Which HRD's factor scales MaxBR and MaxCPB: the VCL one is the stricter and what encoders check.
    public enum HRDKind: Sendable { case vcl, nal }

    /// Max bit rate at this level and tier for `profile`, in bit/s; nil where the tier does not exist.
    public func maxBitRate(tier: HEVC.Tier = .main, profile: HEVC.Profile = .main, hrd: HRDKind = .vcl) -> Int? {
        let units = tier == .high ? limits.maxBRHigh : limits.maxBRMain
        return units.map { $0 * (hrd == .vcl ? profile.cpbBrVclFactor : profile.cpbBrNalFactor) }
    }

    /// Max CPB size at this level and tier for `profile`, in bits; nil where the tier does not exist.
    public func maxCPBSize(tier: HEVC.Tier = .main, profile: HEVC.Profile = .main, hrd: HRDKind = .vcl) -> Int? {
        let units = tier == .high ? limits.maxCPBHigh : limits.maxCPBMain
        return units.map { $0 * (hrd == .vcl ? profile.cpbBrVclFactor : profile.cpbBrNalFactor) }
    }

    /// MaxDpbSize for a picture of `width`×`height` luma samples (equation A-2, maxDpbPicBuf 6): smaller
    /// pictures may keep more of them, up to 16.
    public func maxDpbSize(width: Int, height: Int) -> Int {
        let maxDpbPicBuf = 6
        let samples = Self.pictureSize(width: width, height: height)
        let maxLumaPs = limits.maxLumaPs
        if samples <= maxLumaPs >> 2 { return Swift.min(4 * maxDpbPicBuf, 16) }
        if samples <= maxLumaPs >> 1 { return Swift.min(2 * maxDpbPicBuf, 16) }
        if samples <= (3 * maxLumaPs) >> 2 { return Swift.min(4 * maxDpbPicBuf / 3, 16) }
        return maxDpbPicBuf
    }

    /// The limits that `width`×`height` luma samples at `fps` pictures per second and `bitRate` bit/s break at
    /// this level and tier; empty when the level allows it. A nil bitRate skips the bit-rate check.
    public func violations(
        width: Int, height: Int, fps: Double, bitRate: Int? = nil, tier: HEVC.Tier = .main,
        profile: HEVC.Profile = .main, hrd: HRDKind = .vcl
    ) -> [Violation] {
        let limits = self.limits
        var found: [Violation] = []
        let samples = Self.pictureSize(width: width, height: height)
        if samples > limits.maxLumaPs {
            found.append(Violation(limit: .pictureSize, required: Double(samples), allowed: Double(limits.maxLumaPs)))
        }
        let maxSide = (Double(limits.maxLumaPs) * 8).squareRoot().rounded(.down)
        if Double(width) > maxSide {
            found.append(Violation(limit: .pictureWidth, required: Double(width), allowed: maxSide))
        }
        if Double(height) > maxSide {
            found.append(Violation(limit: .pictureHeight, required: Double(height), allowed: maxSide))
        }
        let sampleRate = Double(samples) * fps
        if sampleRate > Double(limits.maxLumaSr) {
            found.append(Violation(limit: .lumaSampleRate, required: sampleRate, allowed: Double(limits.maxLumaSr)))
        }
        if let allowed = maxBitRate(tier: tier, profile: profile, hrd: hrd) {
            if let bitRate, bitRate > allowed {
                found.append(Violation(limit: .bitRate, required: Double(bitRate), allowed: Double(allowed)))
            }
        } else {
            found.append(Violation(limit: .tier, required: 1, allowed: 0))
        }
        return found
    }

    /// Whether this level allows the stream (see `violations`).
    public func allows(
        width: Int, height: Int, fps: Double, bitRate: Int? = nil, tier: HEVC.Tier = .main,
        profile: HEVC.Profile = .main, hrd: HRDKind = .vcl
    ) -> Bool {
        violations(width: width, height: height, fps: fps, bitRate: bitRate, tier: tier, profile: profile, hrd: hrd)
            .isEmpty
    }

    /// The lowest level that allows the stream in `tier`; nil when even level 6.2 does not.
    public static func lowest(
        width: Int, height: Int, fps: Double, bitRate: Int? = nil, tier: HEVC.Tier = .main,
        profile: HEVC.Profile = .main, hrd: HRDKind = .vcl
    ) -> HEVC.Level? {
        allCases.sorted().first {
            $0.allows(width: width, height: height, fps: fps, bitRate: bitRate, tier: tier, profile: profile, hrd: hrd)
        }
    }

    /// Luma samples per picture, saturating at Int.max for absurd sizes instead of trapping; 0 for a
    /// non-positive side.
    static func pictureSize(width: Int, height: Int) -> Int {
        guard width > 0, height > 0 else { return 0 }
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : product
    }
}
