import Bitstream

/// Rewrites the constraint-flags byte of every SPS so it says exactly what the requested profile promises
/// (`H264Profile.profileIop`).
///
/// In the SPS (7.3.2.1.1) the byte after the NAL header and profile_idc holds constraint_set0…5 and
/// reserved_zero_2bits. Rewriting it in place is safe with respect to emulation prevention: the byte before it
/// (profile_idc: 66, 77 or 100) is never zero, so no 00 00 0x pattern can be made or broken by the change.
enum ParameterSetPatch {
    static func apply(to bytes: inout [UInt8], nalUnits: [EncodedFrame.NALUnitRange], profile: H264Profile) {
        for unit in nalUnits where unit.type == NALUnitType.sps.rawValue && unit.range.count > 3 {
            bytes[unit.range.lowerBound + 2] = profile.profileIop
        }
    }
}
