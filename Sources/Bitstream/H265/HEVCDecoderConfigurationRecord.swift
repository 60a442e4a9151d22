// The hvcC box payload, ISO/IEC 14496-15 §8.3.3.1:
//
//   aligned(8) class HEVCDecoderConfigurationRecord {
//     unsigned int(8) configurationVersion = 1;
//     unsigned int(2) general_profile_space;  unsigned int(1) general_tier_flag;  unsigned int(5) general_profile_idc;
//     unsigned int(32) general_profile_compatibility_flags;
//     unsigned int(48) general_constraint_indicator_flags;
//     unsigned int(8) general_level_idc;
//     bit(4) reserved = '1111'b;    unsigned int(12) min_spatial_segmentation_idc;
//     bit(6) reserved = '111111'b;  unsigned int(2) parallelismType;
//     bit(6) reserved = '111111'b;  unsigned int(2) chromaFormat;
//     bit(5) reserved = '11111'b;   unsigned int(3) bitDepthLumaMinus8;
//     bit(5) reserved = '11111'b;   unsigned int(3) bitDepthChromaMinus8;
//     bit(16) avgFrameRate;
//     bit(2) constantFrameRate;  bit(3) numTemporalLayers;  bit(1) temporalIdNested;
//     unsigned int(2) lengthSizeMinusOne;
//     unsigned int(8) numOfArrays;
//     for (j=0; j < numOfArrays; j++) {
//       bit(1) array_completeness;  unsigned int(1) reserved = 0;  unsigned int(6) NAL_unit_type;
//       unsigned int(16) numNalus;
//       for (i=0; i< numNalus; i++) { unsigned int(16) nalUnitLength; bit(8*nalUnitLength) nalUnit; }
//     }
//   }
//
// Leniency, following FFmpeg: reserved bits are not checked, configurationVersion 0 (written before 14496-15 3rd
// edition was final) is read with a warning, bytes after the record are ignored. Strict: the length size, every
// count and length.

extension HEVC {
    /// The HEVC decoder configuration record (the payload of an MP4 `hvcC` box). Values are validated on
    /// construction, so `serialized()` cannot fail.
    public struct DecoderConfigurationRecord: Hashable, Sendable {
        /// One array of NAL units of one type (VPS, SPS, PPS, prefix or suffix SEI).
        public struct NALUnitArray: Hashable, Sendable {
            /// array_completeness: all NAL units of this type are here, none in the samples (hvc1) — or maybe
            /// not (0, hev1).
            public var arrayCompleteness: Bool
            public var nalUnitType: NALUnitType
            /// Whole NAL units with their 2-byte header.
            public var nalUnits: [[UInt8]]

            public init(arrayCompleteness: Bool, nalUnitType: NALUnitType, nalUnits: [[UInt8]]) {
                self.arrayCompleteness = arrayCompleteness
                self.nalUnitType = nalUnitType
                self.nalUnits = nalUnits
            }
        }

        /// configurationVersion: 1 (a parsed 0 is kept, with a warning).
        public internal(set) var configurationVersion: UInt8 = 1
        public let generalProfileSpace: UInt8
        public let generalTierFlag: Bool
        public let generalProfileIdc: UInt8
        public let generalProfileCompatibilityFlags: UInt32
        /// 48 bits.
        public let generalConstraintIndicatorFlags: UInt64
        public let generalLevelIdc: UInt8
        /// 12 bits.
        public let minSpatialSegmentationIdc: UInt16
        /// 0 mixed or unknown, 1 slices, 2 tiles, 3 wavefront.
        public let parallelismType: UInt8
        /// chroma_format_idc.
        public let chromaFormat: UInt8
        public let bitDepthLumaMinus8: UInt8
        public let bitDepthChromaMinus8: UInt8
        /// Frames per 256 seconds; 0: unspecified.
        public let avgFrameRate: UInt16
        /// 0 unknown, 1 constant, 2 each temporal layer constant.
        public let constantFrameRate: UInt8
        /// 0 unknown, else sps_max_sub_layers_minus1 + 1.
        public let numTemporalLayers: UInt8
        public let temporalIdNested: Bool
        public internal(set) var lengthSizeMinusOne: UInt8
        public let arrays: [NALUnitArray]
        /// What `init(parsing:)` accepted against 14496-15 (empty for a clean record and for a built one).
        public internal(set) var warnings: [BitstreamWarning] = []

        /// Bytes of each NAL unit length prefix in the samples: 1, 2 or 4 (or 3, when a parsed record says so:
        /// FFmpeg reads that too).
        public var nalUnitLengthSize: Int { Int(lengthSizeMinusOne) + 1 }

        /// The NAL units of every array of `type`, in order.
        public func nalUnits(ofType type: NALUnitType) -> [[UInt8]] {
            arrays.filter { $0.nalUnitType == type }.flatMap(\.nalUnits)
        }

        public var videoParameterSets: [[UInt8]] { nalUnits(ofType: .vps) }
        public var sequenceParameterSets: [[UInt8]] { nalUnits(ofType: .sps) }
        public var pictureParameterSets: [[UInt8]] { nalUnits(ofType: .pps) }

        /// A record from its fields.
        /// - Throws: `.invalidLengthSize`; `.invalidValue` for a field wider than its bits or more than 255 arrays
        ///   or 65535 NAL units in one; `.emptyNALUnit` / `.nalUnitTooLarge` for a NAL unit of 0 or more than
        ///   65535 bytes.
        public init(
            generalProfileSpace: UInt8, generalTierFlag: Bool, generalProfileIdc: UInt8,
            generalProfileCompatibilityFlags: UInt32, generalConstraintIndicatorFlags: UInt64, generalLevelIdc: UInt8,
            minSpatialSegmentationIdc: UInt16 = 0, parallelismType: UInt8 = 0, chromaFormat: UInt8 = 1,
            bitDepthLumaMinus8: UInt8 = 0, bitDepthChromaMinus8: UInt8 = 0, avgFrameRate: UInt16 = 0,
            constantFrameRate: UInt8 = 0, numTemporalLayers: UInt8 = 1, temporalIdNested: Bool = true,
            nalUnitLengthSize: Int = 4, arrays: [NALUnitArray]
        ) throws(BitstreamError) {
            try ByteLayer.checkLengthSize(nalUnitLengthSize)
            let widths: [(String, UInt64, UInt64)] = [
                ("general_profile_space", UInt64(generalProfileSpace), 3),
                ("general_profile_idc", UInt64(generalProfileIdc), 31),
                ("general_constraint_indicator_flags", generalConstraintIndicatorFlags, (1 << 48) - 1),
                ("min_spatial_segmentation_idc", UInt64(minSpatialSegmentationIdc), 4095),
                ("parallelismType", UInt64(parallelismType), 3), ("chromaFormat", UInt64(chromaFormat), 3),
                ("bitDepthLumaMinus8", UInt64(bitDepthLumaMinus8), 7),
                ("bitDepthChromaMinus8", UInt64(bitDepthChromaMinus8), 7),
                ("constantFrameRate", UInt64(constantFrameRate), 3), ("numTemporalLayers", UInt64(numTemporalLayers), 7),
            ]
            for (name, value, max) in widths where value > max {
                throw .make(.invalidValue, "\(name) \(value) does not fit its bits (max \(max))")
            }
            guard arrays.count <= 255 else { throw .make(.invalidValue, "\(arrays.count) arrays, numOfArrays holds 255") }
            for array in arrays {
                guard array.nalUnitType.rawValue <= 63 else {
                    throw .make(.invalidValue, "NAL_unit_type \(array.nalUnitType.rawValue) does not fit 6 bits")
                }
                try AVCDecoderConfigurationRecord.checkParameterSets(
                    array.nalUnits, maxCount: 65535, name: "\(array.nalUnitType) nalUnit")
            }
            self.generalProfileSpace = generalProfileSpace
            self.generalTierFlag = generalTierFlag
            self.generalProfileIdc = generalProfileIdc
            self.generalProfileCompatibilityFlags = generalProfileCompatibilityFlags
            self.generalConstraintIndicatorFlags = generalConstraintIndicatorFlags
            self.generalLevelIdc = generalLevelIdc
            self.minSpatialSegmentationIdc = minSpatialSegmentationIdc
            self.parallelismType = parallelismType
            self.chromaFormat = chromaFormat
            self.bitDepthLumaMinus8 = bitDepthLumaMinus8
            self.bitDepthChromaMinus8 = bitDepthChromaMinus8
            self.avgFrameRate = avgFrameRate
            self.constantFrameRate = constantFrameRate
            self.numTemporalLayers = numTemporalLayers
            self.temporalIdNested = temporalIdNested
            self.lengthSizeMinusOne = UInt8(nalUnitLengthSize - 1)
            self.arrays = arrays
        }
    }
}

extension HEVC.DecoderConfigurationRecord: OutOfBandParameterSets {
    public var codec: VideoCodec { .hevc }
    public var inBandParameterSets: [(nalUnitType: UInt8, nalUnits: [[UInt8]])] {
        [(32, videoParameterSets), (33, sequenceParameterSets), (34, pictureParameterSets)]
    }
}
