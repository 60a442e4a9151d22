// The avcC box payload, ISO/IEC 14496-15 §5.3.3.1:
//
//   aligned(8) class AVCDecoderConfigurationRecord {
//     unsigned int(8) configurationVersion = 1;
//     unsigned int(8) AVCProfileIndication;          // profile_idc of the SPSs
//     unsigned int(8) profile_compatibility;         // the constraint_set flags byte of the SPSs
//     unsigned int(8) AVCLevelIndication;            // level_idc
//     bit(6) reserved = '111111'b;
//     unsigned int(2) lengthSizeMinusOne;            // 0, 1 or 3
//     bit(3) reserved = '111'b;
//     unsigned int(5) numOfSequenceParameterSets;
//     for (i = 0; i < numOfSequenceParameterSets; i++) {
//       unsigned int(16) sequenceParameterSetLength;
//       bit(8*sequenceParameterSetLength) sequenceParameterSetNALUnit;
//     }
//     unsigned int(8) numOfPictureParameterSets;
//     for (i = 0; i < numOfPictureParameterSets; i++) {
//       unsigned int(16) pictureParameterSetLength;
//       bit(8*pictureParameterSetLength) pictureParameterSetNALUnit;
//     }
//     if (AVCProfileIndication == 100 || AVCProfileIndication == 110 ||
//         AVCProfileIndication == 122 || AVCProfileIndication == 144) {
//       bit(6) reserved = '111111'b;
//       unsigned int(2) chroma_format;
//       bit(5) reserved = '11111'b;
//       unsigned int(3) bit_depth_luma_minus8;
//       bit(5) reserved = '11111'b;
//       unsigned int(3) bit_depth_chroma_minus8;
//       unsigned int(8) numOfSequenceParameterSetExt;
//       for (i = 0; i < numOfSequenceParameterSetExt; i++) {
//         unsigned int(16) sequenceParameterSetExtLength;
//         bit(8*sequenceParameterSetExtLength) sequenceParameterSetExtNALUnit;
//       }
//     }
//   }
//
// Leniency, following FFmpeg and GPAC: reserved bits are not checked, the High-profile extension may be missing
// (muxers before 14496-15:2010 never wrote it) and bytes after the record are ignored. Strict: the version, the
// length size, every count and length.

/// The AVC decoder configuration record (the payload of an MP4 `avcC` box): parameter sets and the NAL unit length
/// size of the samples. Values are validated on construction, so `serialized()` cannot fail.
public struct AVCDecoderConfigurationRecord: Hashable, Sendable {
    /// The fields present only for the High profiles (AVCProfileIndication 100, 110, 122, 144).
    public struct HighProfileExtension: Hashable, Sendable {
        /// `chroma_format`: chroma_format_idc of the SPSs (0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4).
        public let chromaFormat: UInt8
        /// `bit_depth_luma_minus8` (0...7).
        public let bitDepthLumaMinus8: UInt8
        /// `bit_depth_chroma_minus8` (0...7).
        public let bitDepthChromaMinus8: UInt8
        /// `sequenceParameterSetExtNALUnit`s (nal_unit_type 13), whole NAL units with their header byte.
        public let sequenceParameterSetExtensions: [[UInt8]]

        /// - Throws: `.invalidValue` for a field wider than its bits, and as the record for the NAL units.
        public init(
            chromaFormat: UInt8, bitDepthLumaMinus8: UInt8, bitDepthChromaMinus8: UInt8,
            sequenceParameterSetExtensions: [[UInt8]] = []
        ) throws(BitstreamError) {
            guard chromaFormat <= 3 else { throw .make(.invalidValue, "chroma_format \(chromaFormat) does not fit 2 bits") }
            guard bitDepthLumaMinus8 <= 7, bitDepthChromaMinus8 <= 7 else {
                throw .make(.invalidValue, "bit_depth_*_minus8 \(bitDepthLumaMinus8)/\(bitDepthChromaMinus8) over 7")
            }
            try AVCDecoderConfigurationRecord.checkParameterSets(
                sequenceParameterSetExtensions, maxCount: 255, name: "sequenceParameterSetExt"
            )
            self.chromaFormat = chromaFormat
            self.bitDepthLumaMinus8 = bitDepthLumaMinus8
            self.bitDepthChromaMinus8 = bitDepthChromaMinus8
            self.sequenceParameterSetExtensions = sequenceParameterSetExtensions
        }
    }

    /// `configurationVersion`; always 1 (the only version 14496-15 defines).
    public var configurationVersion: UInt8 { 1 }
    /// `AVCProfileIndication`: profile_idc.
    public let avcProfileIndication: UInt8
    /// `profile_compatibility`: the byte of constraint_set flags between profile_idc and level_idc in the SPS.
    public let profileCompatibility: UInt8
    /// `AVCLevelIndication`: level_idc.
    public let avcLevelIndication: UInt8
    /// `lengthSizeMinusOne`: 0, 1 or 3 (2, reserved, only when parsed from a record that says so).
    public internal(set) var lengthSizeMinusOne: UInt8
    /// `sequenceParameterSetNALUnit`s, whole NAL units with their header byte (at most 31).
    public let sequenceParameterSets: [[UInt8]]
    /// `pictureParameterSetNALUnit`s, whole NAL units with their header byte (at most 255).
    public let pictureParameterSets: [[UInt8]]
    /// The High-profile fields; nil for other profiles and for High-profile records written without them.
    public let highProfileExtension: HighProfileExtension?
    /// What `init(parsing:)` accepted against 14496-15 (empty for a clean record, and for one built from fields).
    public internal(set) var warnings: [BitstreamWarning] = []

    /// Bytes of each NAL unit length prefix in the samples: 1, 2 or 4 (or 3, when a parsed record says so:
    /// FFmpeg reads that too).
    public var nalUnitLengthSize: Int { Int(lengthSizeMinusOne) + 1 }

    /// Whether `profile` is one of those whose record carries the High-profile extension.
    public static func profileHasExtension(_ profile: UInt8) -> Bool {
        profile == 100 || profile == 110 || profile == 122 || profile == 144
    }

    /// A record from its fields.
    /// - Throws: `.invalidLengthSize`; `.invalidValue` for more than 31 SPSs or 255 PPSs or for an extension given
    ///   with a profile that has none; `.emptyNALUnit` / `.nalUnitTooLarge` for a parameter set of 0 or more than
    ///   65535 bytes.
    public init(
        avcProfileIndication: UInt8, profileCompatibility: UInt8, avcLevelIndication: UInt8,
        nalUnitLengthSize: Int = 4,
        sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]],
        highProfileExtension: HighProfileExtension? = nil
    ) throws(BitstreamError) {
        try ByteLayer.checkLengthSize(nalUnitLengthSize)
        try Self.checkParameterSets(sequenceParameterSets, maxCount: 31, name: "sequenceParameterSet")
        try Self.checkParameterSets(pictureParameterSets, maxCount: 255, name: "pictureParameterSet")
        if highProfileExtension != nil, !Self.profileHasExtension(avcProfileIndication) {
            throw .make(.invalidValue, "profile \(avcProfileIndication) records carry no High-profile extension")
        }
        self.avcProfileIndication = avcProfileIndication
        self.profileCompatibility = profileCompatibility
        self.avcLevelIndication = avcLevelIndication
        self.lengthSizeMinusOne = UInt8(nalUnitLengthSize - 1)
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
        self.highProfileExtension = highProfileExtension
    }

    static func checkParameterSets(_ sets: [[UInt8]], maxCount: Int, name: String) throws(BitstreamError) {
        guard sets.count <= maxCount else {
            throw .make(.invalidValue, "\(sets.count) \(name)s, the count field holds at most \(maxCount)")
        }
        for (index, set) in sets.enumerated() {
            guard !set.isEmpty else { throw .make(.emptyNALUnit, "\(name) \(index) is empty") }
            guard set.count <= Int(UInt16.max) else {
                throw .make(.nalUnitTooLarge, "\(name) \(index) has \(set.count) bytes, its 16-bit length holds 65535")
            }
        }
    }
}
