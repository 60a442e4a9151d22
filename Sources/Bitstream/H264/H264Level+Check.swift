extension H264Level {
    /// A Table A-1 limit a stream would break.
    public struct Violation: Hashable, Sendable, CustomStringConvertible {
        public enum Limit: String, Hashable, Sendable {
            /// MaxFS: macroblocks per frame.
            case frameSize
            /// §A.3.1 f/g: PicWidthInMbs ≤ Sqrt(MaxFS · 8), likewise FrameHeightInMbs.
            case frameWidth, frameHeight
            /// MaxMBPS: macroblocks per second.
            case macroblockRate
            /// MaxBR · cpbBrVclFactor (or NAL factor): bit/s.
            case bitRate
        }

        public var limit: Limit
        /// What the stream needs and what the level allows, in the limit's unit.
        public var required: Double
        public var allowed: Double

        public var description: String { "\(limit.rawValue) \(required) > \(allowed)" }
    }

    /// Which HRD's factor scales MaxBR (Table A-2): the VCL one is the stricter and what encoders check.
    public enum HRDKind: Sendable { case vcl, nal }

    /// Max bit rate at this level for `profile`, in bit/s.
    public func maxBitRate(for profile: H264Profile, hrd: HRDKind = .vcl) -> Int {
        limits.maxBR * (hrd == .vcl ? profile.cpbBrVclFactor : profile.cpbBrNalFactor)
    }

    /// Max CPB size at this level for `profile`, in bits.
    public func maxCPBSize(for profile: H264Profile, hrd: HRDKind = .vcl) -> Int {
        limits.maxCPB * (hrd == .vcl ? profile.cpbBrVclFactor : profile.cpbBrNalFactor)
    }

    /// MaxDpbFrames for a picture size (§A.3.1 h, A.3.2 f): Min(MaxDpbMbs ÷ (PicWidthInMbs · FrameHeightInMbs), 16).
    public func maxDpbFrames(width: Int, height: Int) -> Int {
        let mbs = Self.frameSize(width: width, height: height)
        guard mbs > 0 else { return 16 }
        return Swift.min(limits.maxDpbMbs / mbs, 16)
    }

    /// The limits that `width`×`height` luma samples at `fps` frames per second and `bitRate` bit/s break at this
    /// level for `profile`; empty when the level allows it. A nil bitRate skips the bit-rate check.
    public func violations(
        width: Int, height: Int, fps: Double, bitRate: Int? = nil, profile: H264Profile = .high, hrd: HRDKind = .vcl
    ) -> [Violation] {
        let limits = self.limits
        let widthMbs = Self.macroblocks(width)
        let heightMbs = Self.macroblocks(height)
        let frameSize = Self.frameSize(width: width, height: height)
        var found: [Violation] = []
        if frameSize > limits.maxFS {
            found.append(Violation(limit: .frameSize, required: Double(frameSize), allowed: Double(limits.maxFS)))
        }
        let maxSide = (Double(limits.maxFS) * 8).squareRoot()
        if Double(widthMbs) > maxSide {
            found.append(Violation(limit: .frameWidth, required: Double(widthMbs), allowed: maxSide.rounded(.down)))
        }
        if Double(heightMbs) > maxSide {
            found.append(Violation(limit: .frameHeight, required: Double(heightMbs), allowed: maxSide.rounded(.down)))
        }
        let mbRate = Double(frameSize) * fps
        if mbRate > Double(limits.maxMBPS) {
            found.append(Violation(limit: .macroblockRate, required: mbRate, allowed: Double(limits.maxMBPS)))
        }
        if let bitRate {
            let allowed = maxBitRate(for: profile, hrd: hrd)
            if bitRate > allowed {
                found.append(Violation(limit: .bitRate, required: Double(bitRate), allowed: Double(allowed)))
            }
        }
        return found
    }

    /// Whether this level allows the stream (see `violations`).
    public func allows(
        width: Int, height: Int, fps: Double, bitRate: Int? = nil, profile: H264Profile = .high, hrd: HRDKind = .vcl
    ) -> Bool {
        violations(width: width, height: height, fps: fps, bitRate: bitRate, profile: profile, hrd: hrd).isEmpty
    }

    /// The lowest level that allows the stream; nil when even level 6.2 does not. Level 1b is considered only
    /// where `profile` can signal it in the usual way (it always can; pass `includeLevel1b: false` to skip it).
    public static func lowest(
        width: Int, height: Int, fps: Double, bitRate: Int? = nil, profile: H264Profile = .high,
        hrd: HRDKind = .vcl, includeLevel1b: Bool = true
    ) -> H264Level? {
        allCases.sorted().first { level in
            (includeLevel1b || level != .level1b)
                && level.allows(width: width, height: height, fps: fps, bitRate: bitRate, profile: profile, hrd: hrd)
        }
    }

    /// Macroblocks covering `samples` luma samples (16 per macroblock, rounded up); 0 for non-positive input.
    /// Written without `samples + 15` so that no input can overflow.
    static func macroblocks(_ samples: Int) -> Int {
        samples > 0 ? samples / 16 + (samples % 16 == 0 ? 0 : 1) : 0
    }

    /// Macroblocks per frame, saturating at Int.max for absurd sizes instead of trapping.
    static func frameSize(width: Int, height: Int) -> Int {
        let (product, overflow) = macroblocks(width).multipliedReportingOverflow(by: macroblocks(height))
        return overflow ? .max : product
    }
}
