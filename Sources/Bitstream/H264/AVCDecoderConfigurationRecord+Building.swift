// Building an avcC record from the parameter sets an encoder produced.
//
// AVCProfileIndication, profile_compatibility and AVCLevelIndication are bytes 1...3 of the first SPS (right after
// its NAL unit header: profile_idc, constraint_set0..5_flag + reserved_zero_2bits, level_idc; H.264 §7.3.2.1.1).
// For the High profiles the record also repeats chroma_format_idc and the bit depths, which sit a few
// Exp-Golomb codes further into the SPS:
//
//   seq_parameter_set_data( ) {
//     profile_idc                 u(8)
//     constraint_set*_flag, ...   u(8)
//     level_idc                   u(8)
//     seq_parameter_set_id        ue(v)
//     if (profile_idc == 100 || ... ) {   /* the High profiles, list below */
//       chroma_format_idc         ue(v)
//       if (chroma_format_idc == 3)
//         separate_colour_plane_flag  u(1)
//       bit_depth_luma_minus8     ue(v)
//       bit_depth_chroma_minus8   ue(v)
//       ...
//
// Only those few fields are read here, by a private reader; full SPS parsing belongs to the syntax layer.

extension AVCDecoderConfigurationRecord {
    /// A record for `sequenceParameterSets` and `pictureParameterSets` (whole NAL units with header byte, as an
    /// encoder emits them), taking profile, compatibility and level from the first SPS and, for the High profiles,
    /// filling the extension from it.
    ///
    /// - Throws: `.invalidValue` without any SPS; `.truncated` for a first SPS too short to hold the fields read;
    ///   `.expGolombTooLong` / `.invalidValue` for unreadable or out-of-range fields; as the memberwise init.
    public init(
        sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]], nalUnitLengthSize: Int = 4,
        sequenceParameterSetExtensions: [[UInt8]] = []
    ) throws(BitstreamError) {
        guard let sps = sequenceParameterSets.first else {
            throw .make(.invalidValue, "an avcC record needs at least one SPS to take profile and level from")
        }
        guard sps.count >= 4 else {
            throw .make(.truncated, "SPS of \(sps.count) bytes has no profile_idc/level_idc", offset: sps.count)
        }
        let profile = sps[1]
        var highProfileExtension: HighProfileExtension?
        if Self.profileHasExtension(profile) {
            var reader = SPSHeadReader(sps[4...])
            _ = try reader.unsignedExpGolomb()  // seq_parameter_set_id
            let chromaFormatIdc = try reader.unsignedExpGolomb()
            if chromaFormatIdc == 3 { _ = try reader.bit() }  // separate_colour_plane_flag
            let bitDepthLuma = try reader.unsignedExpGolomb()
            let bitDepthChroma = try reader.unsignedExpGolomb()
            guard chromaFormatIdc <= 3, bitDepthLuma <= 6, bitDepthChroma <= 6 else {
                throw .make(.invalidValue,
                    "SPS chroma_format_idc \(chromaFormatIdc), bit depths -8 \(bitDepthLuma)/\(bitDepthChroma) out of range"
                )
            }
            highProfileExtension = try HighProfileExtension(
                chromaFormat: UInt8(chromaFormatIdc), bitDepthLumaMinus8: UInt8(bitDepthLuma),
                bitDepthChromaMinus8: UInt8(bitDepthChroma),
                sequenceParameterSetExtensions: sequenceParameterSetExtensions
            )
        } else if !sequenceParameterSetExtensions.isEmpty {
            throw .make(.invalidValue, "profile \(profile) records carry no SPS extensions")
        }
        try self.init(
            avcProfileIndication: profile, profileCompatibility: sps[2], avcLevelIndication: sps[3],
            nalUnitLengthSize: nalUnitLengthSize,
            sequenceParameterSets: sequenceParameterSets, pictureParameterSets: pictureParameterSets,
            highProfileExtension: highProfileExtension
        )
    }
}

/// Reads bits of the start of an SPS payload, dropping emulation prevention bytes (00 00 03 → 00 00, §7.4.1).
/// Offsets in errors count bytes of the SPS NAL unit.
private struct SPSHeadReader {
    private let bytes: ArraySlice<UInt8>
    private var index: Int
    private var bitInByte = 0
    private var zeroRun = 0

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    mutating func bit() throws(BitstreamError) -> UInt32 {
        if bitInByte == 0 {
            // Skip an emulation_prevention_three_byte before reading the byte after it.
            if zeroRun >= 2, index < bytes.endIndex, bytes[index] == 0x03 {
                index += 1
                zeroRun = 0
            }
            guard index < bytes.endIndex else { throw .make(.truncated, "SPS ends inside its first fields", offset: index) }
            zeroRun = bytes[index] == 0 ? zeroRun + 1 : 0
        }
        let value = UInt32(bytes[index] >> (7 - bitInByte)) & 1
        bitInByte += 1
        if bitInByte == 8 {
            bitInByte = 0
            index += 1
        }
        return value
    }

    /// ue(v), H.264 §9.1.
    mutating func unsignedExpGolomb() throws(BitstreamError) -> UInt32 {
        var leadingZeros = 0
        while try bit() == 0 {
            leadingZeros += 1
            guard leadingZeros <= 31 else {
                throw BitstreamError(
                    code: .expGolombTooLong, reason: "ue(v) with more than 31 leading zero bits", offset: index
                )
            }
        }
        var suffix: UInt32 = 0
        for _ in 0..<leadingZeros { suffix = suffix << 1 | (try bit()) }
        // leadingZeros <= 31: (1 << 31) - 1 + suffix < 2^32.
        return (UInt32(1) << UInt32(leadingZeros)) - 1 + suffix
    }
}
