// Stand-in for the Bitstream module's `AnnexB.split` and `AVCDecoderConfigurationRecord`, which are being written
// in parallel. When they reach main, the two functions below become one-line calls to them and this file goes.

/// Minimal Annex-B → AVCC framing for the MP4 writer.
enum H264FramingStandIn {
    /// NAL unit types (H.264 Table 7-1) the writers treat specially.
    static let sps: UInt8 = 7, pps: UInt8 = 8, accessUnitDelimiter: UInt8 = 9

    /// The NAL units of an Annex-B byte stream (start codes `00 00 01` / `00 00 00 01` removed, trailing zero bytes
    /// of a NAL unit dropped). Throws when data precedes the first start code.
    static func split(_ bytes: ArraySlice<UInt8>) throws(MediaIOError) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var index = bytes.startIndex
        var unitStart: Int?
        let end = bytes.endIndex
        while index + 2 < end {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                if let start = unitStart { units.append(trimmed(bytes[start..<index])) }
                else if bytes[bytes.startIndex..<index].contains(where: { $0 != 0 }) {
                    throw .invalidFormat("Annex-B data does not begin with a start code")
                }
                index += 3
                unitStart = index
            } else {
                index += 1
            }
        }
        guard let start = unitStart else { throw .invalidFormat("no Annex-B start code in \(bytes.count) bytes") }
        units.append(trimmed(bytes[start..<end]))
        return units.filter { !$0.isEmpty }
    }

    /// Drops the zero bytes that belong to the next start code (`00 00 00 01`) or are trailing_zero_8bits.
    private static func trimmed(_ unit: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var end = unit.endIndex
        while end > unit.startIndex, unit[end - 1] == 0 { end -= 1 }
        return unit[unit.startIndex..<end]
    }

    /// An AVCDecoderConfigurationRecord (ISO/IEC 14496-15 §5.3.3.1) with 4-byte NAL unit lengths:
    /// ```
    /// configurationVersion = 1            u(8)
    /// AVCProfileIndication                u(8)   SPS byte 1 (profile_idc)
    /// profile_compatibility               u(8)   SPS byte 2 (constraint flags)
    /// AVCLevelIndication                  u(8)   SPS byte 3 (level_idc)
    /// '111111'b  lengthSizeMinusOne = 3   u(8) = 0xFF
    /// '111'b  numOfSequenceParameterSets  u(8) = 0xE1
    /// sequenceParameterSetLength u(16), SPS NAL unit
    /// numOfPictureParameterSets u(8), pictureParameterSetLength u(16), PPS NAL unit
    /// if profile_idc is 100, 110, 122 or 144:
    ///   '111111'b chroma_format, '11111'b bit_depth_luma_minus8, '11111'b bit_depth_chroma_minus8,
    ///   numOfSequenceParameterSetExt = 0
    /// ```
    static func avcC(sps: [UInt8], pps: [UInt8]) throws(MediaIOError) -> [UInt8] {
        guard sps.count >= 4, sps.count <= 0xFFFF, !pps.isEmpty, pps.count <= 0xFFFF else {
            throw .invalidFormat("SPS of \(sps.count) bytes / PPS of \(pps.count) bytes cannot make an avcC record")
        }
        var record: [UInt8] = [1, sps[1], sps[2], sps[3], 0xFF, 0xE1]
        record += [UInt8(sps.count >> 8), UInt8(sps.count & 0xFF)] + sps
        record += [1, UInt8(pps.count >> 8), UInt8(pps.count & 0xFF)] + pps
        if [100, 110, 122, 144].contains(sps[1]) {
            let (chromaFormat, lumaDepth, chromaDepth) = try highProfileFields(sps)
            record += [0xFC | chromaFormat, 0xF8 | lumaDepth, 0xF8 | chromaDepth, 0]
        }
        return record
    }

    /// chroma_format_idc and the bit depths from the start of a High-profile SPS (H.264 §7.3.2.1.1).
    private static func highProfileFields(_ sps: [UInt8]) throws(MediaIOError) -> (UInt8, UInt8, UInt8) {
        // Remove emulation_prevention_three_byte (00 00 03 → 00 00) before reading bits (§7.4.1).
        var rbsp: [UInt8] = []
        var zeros = 0
        for byte in sps.dropFirst(4) {
            if zeros >= 2 && byte == 3 { zeros = 0; continue }
            zeros = byte == 0 ? zeros + 1 : 0
            rbsp.append(byte)
        }
        var bitIndex = 0
        func bit() throws(MediaIOError) -> UInt32 {
            guard bitIndex < rbsp.count * 8 else { throw .truncated("SPS ends inside its first fields") }
            defer { bitIndex += 1 }
            return UInt32(rbsp[bitIndex / 8] >> (7 - UInt8(bitIndex % 8)) & 1)
        }
        func unsignedExpGolomb() throws(MediaIOError) -> UInt32 {
            var leadingZeros = 0
            while try bit() == 0 {
                leadingZeros += 1
                guard leadingZeros < 32 else { throw .invalidFormat("SPS Exp-Golomb code too long") }
            }
            var value: UInt32 = 0
            for _ in 0..<leadingZeros { value = value << 1 | (try bit()) }
            return (UInt32(1) << UInt32(leadingZeros)) - 1 + value
        }
        _ = try unsignedExpGolomb() // seq_parameter_set_id
        let chromaFormat = try unsignedExpGolomb()
        if chromaFormat == 3 { _ = try bit() } // separate_colour_plane_flag
        let lumaDepth = try unsignedExpGolomb()
        let chromaDepth = try unsignedExpGolomb()
        guard chromaFormat <= 3, lumaDepth <= 6, chromaDepth <= 6 else {
            throw .invalidFormat("SPS chroma_format_idc/bit depth out of range")
        }
        return (UInt8(chromaFormat), UInt8(lumaDepth), UInt8(chromaDepth))
    }
}
