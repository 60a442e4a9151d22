// profile_tier_level( profilePresentFlag, maxNumSubLayersMinus1 ), H.265 §7.3.3:
//
//   general_profile_space u(2)  general_tier_flag u(1)  general_profile_idc u(5)
//   general_profile_compatibility_flag[32] u(1) each
//   general_progressive_source_flag, general_interlaced_source_flag, general_non_packed_constraint_flag,
//   general_frame_only_constraint_flag u(1) each, then 43 + 1 bits of profile-specific constraint flags
//   general_level_idc u(8)
//   sub_layer_profile_present_flag[i], sub_layer_level_present_flag[i] for i < maxNumSubLayersMinus1
//   reserved_zero_2bits for i in maxNumSubLayersMinus1..<8 (when maxNumSubLayersMinus1 > 0)
//   per sub-layer: the same 88 profile bits when present, sub_layer_level_idc u(8) when present
//
// The 48 bits from general_progressive_source_flag on are what hvcC calls general_constraint_indicator_flags.

extension HEVC {
    /// profile_tier_level() (§7.3.3): the general profile, tier and level, and those of each sub-layer.
    public struct ProfileTierLevel: Hashable, Sendable {
        /// The profile part of the structure, general or for one sub-layer.
        public struct Profile: Hashable, Sendable {
            public var profileSpace: UInt8
            public var tierFlag: Bool
            public var profileIdc: UInt8
            /// general_profile_compatibility_flag[j] as a word, flag j in bit 31 − j (the order on the wire and in
            /// hvcC).
            public var profileCompatibilityFlags: UInt32
            /// The 48 bits from progressive_source_flag through the last reserved constraint bit, as hvcC's
            /// general_constraint_indicator_flags (progressive_source_flag in bit 47).
            public var constraintIndicatorFlags: UInt64

            public var progressiveSourceFlag: Bool { constraintIndicatorFlags >> 47 & 1 == 1 }
            public var interlacedSourceFlag: Bool { constraintIndicatorFlags >> 46 & 1 == 1 }
            public var nonPackedConstraintFlag: Bool { constraintIndicatorFlags >> 45 & 1 == 1 }
            public var frameOnlyConstraintFlag: Bool { constraintIndicatorFlags >> 44 & 1 == 1 }

            /// general_profile_compatibility_flag[j].
            public func profileCompatibilityFlag(_ j: Int) -> Bool {
                (0..<32).contains(j) && profileCompatibilityFlags >> UInt32(31 - j) & 1 == 1
            }

            init(reading reader: inout BitReader) throws(BitstreamError) {
                profileSpace = UInt8(try reader.readBits(2))
                tierFlag = try reader.readFlag()
                profileIdc = UInt8(try reader.readBits(5))
                profileCompatibilityFlags = try reader.readBits(32)
                constraintIndicatorFlags = try reader.readBits64(48)
            }

            public init(
                profileSpace: UInt8 = 0, tierFlag: Bool = false, profileIdc: UInt8, profileCompatibilityFlags: UInt32,
                constraintIndicatorFlags: UInt64
            ) {
                self.profileSpace = profileSpace
                self.tierFlag = tierFlag
                self.profileIdc = profileIdc
                self.profileCompatibilityFlags = profileCompatibilityFlags
                self.constraintIndicatorFlags = constraintIndicatorFlags
            }
        }

        /// What a sub-layer signals; each part is nil when its present flag is 0.
        public struct SubLayer: Hashable, Sendable {
            public var profile: Profile?
            public var levelIdc: UInt8?
        }

        /// The general profile (nil when profilePresentFlag is 0, as for some VPS layer sets; never for an SPS).
        public var general: Profile?
        public var generalLevelIdc: UInt8
        /// One entry per sub-layer 0..<maxNumSubLayersMinus1.
        public var subLayers: [SubLayer]

        public var generalProfileSpace: UInt8 { general?.profileSpace ?? 0 }
        public var generalTierFlag: Bool { general?.tierFlag ?? false }
        public var generalProfileIdc: UInt8 { general?.profileIdc ?? 0 }

        public init(reading reader: inout BitReader, profilePresentFlag: Bool = true, maxNumSubLayersMinus1: Int)
            throws(BitstreamError)
        {
            general = profilePresentFlag ? try Profile(reading: &reader) : nil
            generalLevelIdc = UInt8(try reader.readBits(8))
            var present: [(profile: Bool, level: Bool)] = []
            for _ in 0..<maxNumSubLayersMinus1 {
                present.append((try reader.readFlag(), try reader.readFlag()))
            }
            if maxNumSubLayersMinus1 > 0 {
                try reader.skipBits(2 * (8 - maxNumSubLayersMinus1))  // reserved_zero_2bits
            }
            subLayers = []
            for flags in present {
                var subLayer = SubLayer()
                if flags.profile { subLayer.profile = try Profile(reading: &reader) }
                if flags.level { subLayer.levelIdc = UInt8(try reader.readBits(8)) }
                subLayers.append(subLayer)
            }
        }

        public init(general: Profile?, generalLevelIdc: UInt8, subLayers: [SubLayer] = []) {
            self.general = general
            self.generalLevelIdc = generalLevelIdc
            self.subLayers = subLayers
        }
    }
}
