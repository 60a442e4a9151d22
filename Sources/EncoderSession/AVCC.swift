/// Annex-B → AVCC framing and the avcC record, for `OutputFormat.avcc`.
///
/// Interim, like `MiniH264`: to be replaced by the Bitstream module's AVCDecoderConfigurationRecord once merged.
enum AVCC {
    /// Every NAL unit as a 4-byte big-endian length followed by the unit (ISO/IEC 14496-15 §5.3.4.2, lengthSize 4).
    static func frame(_ bytes: [UInt8], nalUnits: [EncodedFrame.NALUnitRange]) -> (bytes: [UInt8], nalUnits: [EncodedFrame.NALUnitRange]) {
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

    /// AVCDecoderConfigurationRecord (ISO/IEC 14496-15 §5.3.3.1.1):
    ///
    ///     configurationVersion = 1            8
    ///     AVCProfileIndication                8   (SPS profile_idc)
    ///     profile_compatibility               8   (SPS constraint flags byte)
    ///     AVCLevelIndication                  8   (SPS level_idc)
    ///     '111111'b + lengthSizeMinusOne      8   (3: 4-byte lengths)
    ///     '111'b + numOfSequenceParameterSets 8
    ///       { sequenceParameterSetLength 16, sequenceParameterSetNALUnit }
    ///     numOfPictureParameterSets           8
    ///       { pictureParameterSetLength 16, pictureParameterSetNALUnit }
    ///     if profile_idc in 100, 110, 122, 144:
    ///       '111111'b + chroma_format 8, '11111'b + bit_depth_luma_minus8 8,
    ///       '11111'b + bit_depth_chroma_minus8 8, numOfSequenceParameterSetExt 8 (0)
    static func decoderConfigurationRecord(sps: [[UInt8]], pps: [[UInt8]], chromaFormatIDC: UInt32) -> [UInt8]? {
        guard let first = sps.first, first.count >= 4, sps.count < 32, pps.count < 256 else { return nil }
        var out: [UInt8] = [1, first[1], first[2], first[3], 0xFF, 0xE0 | UInt8(sps.count)]
        for unit in sps where unit.count <= 0xFFFF {
            out.append(UInt8(unit.count >> 8))
            out.append(UInt8(unit.count & 0xFF))
            out.append(contentsOf: unit)
        }
        out.append(UInt8(pps.count))
        for unit in pps where unit.count <= 0xFFFF {
            out.append(UInt8(unit.count >> 8))
            out.append(UInt8(unit.count & 0xFF))
            out.append(contentsOf: unit)
        }
        if [100, 110, 122, 144].contains(first[1]) {
            out += [0xFC | UInt8(chromaFormatIDC & 3), 0xF8, 0xF8, 0]
        }
        return out
    }
}

/// Rewrites the constraint-flags byte of every SPS so it says exactly what the requested profile promises.
///
/// In the SPS (7.3.2.1.1) the byte after the NAL header and profile_idc holds constraint_set0…5 and
/// reserved_zero_2bits. Rewriting it in place is safe with respect to emulation prevention: the byte before it
/// (profile_idc: 66, 77 or 100) is never zero, so no 00 00 0x pattern can be made or broken by the change.
enum ParameterSetPatch {
    static func apply(to bytes: inout [UInt8], nalUnits: [EncodedFrame.NALUnitRange], profile: ProfileLevel.Profile) {
        for unit in nalUnits where unit.type == 7 && unit.range.count > 3 {
            let index = unit.range.lowerBound + 2
            bytes[index] = profile.constraintFlags
        }
    }
}
