extension H264 {
    /// The SDP `profile-level-id` parameter (RFC 6184 §8.1): three bytes written as six hex digits,
    ///
    ///     +-------------+-------------+-------------+
    ///     | profile_idc | profile-iop |  level_idc  |
    ///     +-------------+-------------+-------------+
    ///
    /// where profile-iop is constraint_set0_flag … constraint_set5_flag and two reserved zero bits, exactly the
    /// second byte of an SPS.
    public struct ProfileLevelID: Hashable, Sendable, CustomStringConvertible, Codable {
        public var profileIdc: UInt8
        public var profileIop: UInt8
        public var levelIdc: UInt8

        public init(profileIdc: UInt8, profileIop: UInt8, levelIdc: UInt8) {
            self.profileIdc = profileIdc
            self.profileIop = profileIop
            self.levelIdc = levelIdc
        }

        /// The profile-level-id that announces `profile` at `level`, spelling level 1b as §A.3 asks.
        public init(profile: H264Profile, level: H264Level) {
            let (levelIdc, set3) = level.levelIdc(for: profile)
            self.init(
                profileIdc: profile.profileIdc, profileIop: profile.profileIop | (set3 ? 0x10 : 0), levelIdc: levelIdc)
        }

        /// Parses six hex digits (either case), e.g. "42e01f"; nil for anything else.
        public init?(_ hex: some StringProtocol) {
            let digits = Array(hex.utf8)
            guard digits.count == 6 else { return nil }
            var bytes: [UInt8] = []
            for pair in stride(from: 0, to: 6, by: 2) {
                guard let high = Hex.digitValue(digits[pair]), let low = Hex.digitValue(digits[pair + 1]) else { return nil }
                bytes.append(high << 4 | low)
            }
            self.init(profileIdc: bytes[0], profileIop: bytes[1], levelIdc: bytes[2])
        }

        /// Six lower-case hex digits.
        public var hexString: String { Hex.encode([profileIdc, profileIop, levelIdc], uppercase: false) }

        public var description: String { hexString }

        public var constraintSet3Flag: Bool { profileIop & 0x10 != 0 }

        public var profile: H264Profile? { H264Profile(profileIdc: profileIdc, profileIop: profileIop) }

        public var level: H264Level? {
            H264Level(levelIdc: levelIdc, profileIdc: profileIdc, constraintSet3Flag: constraintSet3Flag)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(hexString)
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let value = ProfileLevelID(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "profile-level-id must be six hex digits, got \(text)")
            }
            self = value
        }
    }
}
