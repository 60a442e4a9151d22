import Bitstream

/// Annex-B → AVCC framing (keeping the NAL unit ranges the session already has) and the avcC record, for
/// `OutputFormat.avcc`.
enum AVCC {
    /// Every NAL unit as a 4-byte big-endian length followed by the unit (ISO/IEC 14496-15 §5.3.4.2, lengthSize 4).
    static func frame(
        _ bytes: [UInt8], nalUnits: [EncodedFrame.NALUnitRange]
    ) -> (bytes: [UInt8], nalUnits: [EncodedFrame.NALUnitRange]) {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + nalUnits.count)
        var ranges: [EncodedFrame.NALUnitRange] = []
        ranges.reserveCapacity(nalUnits.count)
        for unit in nalUnits {
            let length = UInt32(unit.range.count)
            out.append(UInt8(length >> 24))
            out.append(UInt8(length >> 16 & 0xFF))
            out.append(UInt8(length >> 8 & 0xFF))
            out.append(UInt8(length & 0xFF))
            let start = out.count
            out.append(contentsOf: bytes[unit.range])
            ranges.append(.init(type: unit.type, range: start..<out.count))
        }
        return (out, ranges)
    }

    /// The avcC record (ISO/IEC 14496-15 §5.3.3.1.1) for the encoder's parameter sets, built by the Bitstream
    /// module; nil when the sets cannot form one (then the frame still goes out, without a record).
    static func decoderConfigurationRecord(sps: [[UInt8]], pps: [[UInt8]]) -> AVCDecoderConfigurationRecord? {
        try? AVCDecoderConfigurationRecord(sequenceParameterSets: sps, pictureParameterSets: pps)
    }
}

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
