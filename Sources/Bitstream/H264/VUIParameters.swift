extension H264 {
    /// vui_parameters() (H.264 §E.1.1). Each group's fields are nil when its present flag is 0.
    ///
    /// Parsed as leniently as FFmpeg: a value outside §E.2.1's range that nothing derived depends on is kept and
    /// reported as a `BitstreamWarning`; a VUI cut short, or one whose fields run into the rbsp_stop_one_bit, keeps
    /// every field read before the damage and sets `isTruncated` (the later fields are absent: nil or false).
    public struct VUIParameters: Hashable, Sendable {
        /// aspect_ratio_idc value meaning "sar_width and sar_height follow" (Table E-1).
        public static let extendedSAR: UInt8 = 255
        /// aspect_ratio_idc 1…16 are the sample aspect ratios of Table E-1; 17…254 are reserved.
        public static let tableE1AspectRatios: ClosedRange<UInt8> = 0...16
        /// max_bytes_per_pic_denom and max_bits_per_mb_denom are 0…16; log2_max_mv_length_* 0…15 (§E.2.1).
        public static let maxDenom = 16
        public static let maxLog2MvLength = 15
        /// max_num_reorder_frames and max_dec_frame_buffering are at most MaxDpbFrames ≤ 16 (§E.2.1, §A.3.1 h).
        public static let maxDpbFrames = 16

        public var aspectRatioInfoPresentFlag = false
        public var aspectRatioIdc: UInt8?
        public var sarWidth: UInt16?
        public var sarHeight: UInt16?

        public var overscanInfoPresentFlag = false
        public var overscanAppropriateFlag: Bool?

        public var videoSignalTypePresentFlag = false
        public var videoFormat: UInt8?
        public var videoFullRangeFlag: Bool?
        public var colourDescriptionPresentFlag: Bool?
        public var colourPrimaries: UInt8?
        public var transferCharacteristics: UInt8?
        public var matrixCoefficients: UInt8?

        public var chromaLocInfoPresentFlag = false
        public var chromaSampleLocTypeTopField: Int?
        public var chromaSampleLocTypeBottomField: Int?

        public var timingInfoPresentFlag = false
        public var numUnitsInTick: UInt32?
        public var timeScale: UInt32?
        public var fixedFrameRateFlag: Bool?

        public var nalHrdParametersPresentFlag = false
        public var nalHrdParameters: HRDParameters?
        public var vclHrdParametersPresentFlag = false
        public var vclHrdParameters: HRDParameters?
        /// Present when either HRD is present.
        public var lowDelayHrdFlag: Bool?
        public var picStructPresentFlag = false

        public var bitstreamRestrictionFlag = false
        public var motionVectorsOverPicBoundariesFlag: Bool?
        public var maxBytesPerPicDenom: Int?
        public var maxBitsPerMbDenom: Int?
        public var log2MaxMvLengthHorizontal: Int?
        public var log2MaxMvLengthVertical: Int?
        public var maxNumReorderFrames: Int?
        public var maxDecFrameBuffering: Int?

        /// The VUI ended (cut short, or ran into the rbsp_stop_one_bit) before its last field: the fields read
        /// before that point are kept, the rest are absent. FFmpeg warns "Overread VUI" and keeps the SPS.
        public var isTruncated = false

        /// An empty VUI: every present flag 0.
        public init() {}

        /// Reads vui_parameters(), appending what it accepted against the specification to `warnings`. Only what
        /// no decoder accepts throws: cpb_cnt_minus1 above 31 (FFmpeg refuses it too).
        public init(reading reader: inout BitReader, warnings: inout [BitstreamWarning]) throws(BitstreamError) {
            let start = reader.bitOffset
            var group = "aspect_ratio_info"
            do throws(BitstreamError) {
                try readFields(from: &reader, warnings: &warnings, group: &group)
            } catch where error.code == .truncated {
                isTruncated = true
                warnings.append(BitstreamWarning(
                    code: .truncated, syntaxElement: "vui_parameters",
                    reason: "ends inside \(group) after \(reader.bitOffset - start) bit(s); the fields from there on "
                        + "are absent", offset: reader.bitOffset / 8))
            }
        }

        /// The fields in syntax order, each stored as soon as it is read so a truncation keeps them. `group` names
        /// the part being read, for the warning.
        private mutating func readFields(
            from reader: inout BitReader, warnings: inout [BitstreamWarning], group: inout String
        ) throws(BitstreamError) {
            var signal = VUISignalDescription()
            defer { adopt(signal) }
            try signal.read(from: &reader, warnings: &warnings, group: &group)
            group = "timing_info"
            timingInfoPresentFlag = try reader.readFlag()
            if timingInfoPresentFlag {
                let offset = reader.bitOffset / 8
                let tick = try reader.readBits(32)
                numUnitsInTick = tick
                let scale = try reader.readBits(32)
                timeScale = scale
                if tick == 0 || scale == 0 {
                    // FFmpeg logs "time_scale/num_units_in_tick invalid" and keeps the SPS without a frame rate.
                    warnings.append(BitstreamWarning(
                        code: .outOfRange, syntaxElement: tick == 0 ? "num_units_in_tick" : "time_scale",
                        reason: "is 0 (must be > 0): no frame rate derived", offset: offset))
                }
                fixedFrameRateFlag = try reader.readFlag()
            }
            group = "nal_hrd_parameters"
            nalHrdParametersPresentFlag = try reader.readFlag()
            if nalHrdParametersPresentFlag {
                nalHrdParameters = try HRDParameters(reading: &reader)
            }
            group = "vcl_hrd_parameters"
            vclHrdParametersPresentFlag = try reader.readFlag()
            if vclHrdParametersPresentFlag {
                vclHrdParameters = try HRDParameters(reading: &reader)
            }
            if nalHrdParametersPresentFlag || vclHrdParametersPresentFlag {
                group = "low_delay_hrd_flag"
                lowDelayHrdFlag = try reader.readFlag()
            }
            group = "pic_struct_present_flag"
            picStructPresentFlag = try reader.readFlag()
            group = "bitstream_restriction"
            bitstreamRestrictionFlag = try reader.readFlag()
            if bitstreamRestrictionFlag {
                // None of these derives anything a decoder needs (FFmpeg reads them unchecked; it clips a
                // max_num_reorder_frames above 16 and goes on), so out-of-range values are kept with a warning.
                // OpenH264 writes log2_max_mv_length_horizontal = log2_max_mv_length_vertical = 16.
                motionVectorsOverPicBoundariesFlag = try reader.readFlag()
                maxBytesPerPicDenom = try reader.readUE(
                    "max_bytes_per_pic_denom", max: Self.maxDenom, orWarnInto: &warnings)
                maxBitsPerMbDenom = try reader.readUE("max_bits_per_mb_denom", max: Self.maxDenom, orWarnInto: &warnings)
                log2MaxMvLengthHorizontal = try reader.readUE(
                    "log2_max_mv_length_horizontal", max: Self.maxLog2MvLength, orWarnInto: &warnings)
                log2MaxMvLengthVertical = try reader.readUE(
                    "log2_max_mv_length_vertical", max: Self.maxLog2MvLength, orWarnInto: &warnings)
                let reorder = try reader.readUE("max_num_reorder_frames", max: Self.maxDpbFrames, orWarnInto: &warnings)
                maxNumReorderFrames = reorder
                let offset = reader.bitOffset / 8
                let buffering = try reader.readUE(
                    "max_dec_frame_buffering", max: Self.maxDpbFrames, orWarnInto: &warnings)
                maxDecFrameBuffering = buffering
                if reorder > buffering {
                    warnings.append(BitstreamWarning(
                        code: .outOfRange, syntaxElement: "max_num_reorder_frames",
                        reason: "\(reorder) exceeds max_dec_frame_buffering \(buffering) (§E.2.1), kept", offset: offset))
                }
            }
        }

        /// Copies the groups §E shares with the other codec into this VUI's fields.
        private mutating func adopt(_ signal: VUISignalDescription) {
            aspectRatioInfoPresentFlag = signal.aspectRatioInfoPresentFlag
            aspectRatioIdc = signal.aspectRatioIdc
            sarWidth = signal.sarWidth
            sarHeight = signal.sarHeight
            overscanInfoPresentFlag = signal.overscanInfoPresentFlag
            overscanAppropriateFlag = signal.overscanAppropriateFlag
            videoSignalTypePresentFlag = signal.videoSignalTypePresentFlag
            videoFormat = signal.videoFormat
            videoFullRangeFlag = signal.videoFullRangeFlag
            colourDescriptionPresentFlag = signal.colourDescriptionPresentFlag
            colourPrimaries = signal.colourPrimaries
            transferCharacteristics = signal.transferCharacteristics
            matrixCoefficients = signal.matrixCoefficients
            chromaLocInfoPresentFlag = signal.chromaLocInfoPresentFlag
            chromaSampleLocTypeTopField = signal.chromaSampleLocTypeTopField
            chromaSampleLocTypeBottomField = signal.chromaSampleLocTypeBottomField
        }
    }

    /// hrd_parameters() (§E.1.2).
    public struct HRDParameters: Hashable, Sendable {
        public struct SchedSel: Hashable, Sendable {
            public var bitRateValueMinus1: UInt32
            public var cpbSizeValueMinus1: UInt32
            public var cbrFlag: Bool
        }

        /// cpb_cnt_minus1 is 0…31 (§E.2.2).
        public static let maxCpbCnt = 32

        public var cpbCntMinus1: Int
        public var bitRateScale: UInt8
        public var cpbSizeScale: UInt8
        /// One entry per SchedSelIdx 0…cpb_cnt_minus1.
        public var schedSel: [SchedSel]
        public var initialCpbRemovalDelayLengthMinus1: UInt8
        public var cpbRemovalDelayLengthMinus1: UInt8
        public var dpbOutputDelayLengthMinus1: UInt8
        public var timeOffsetLength: UInt8

        public init(reading reader: inout BitReader) throws(BitstreamError) {
            cpbCntMinus1 = try reader.readUE("cpb_cnt_minus1", max: Self.maxCpbCnt - 1)
            bitRateScale = UInt8(try reader.readBits(4))
            cpbSizeScale = UInt8(try reader.readBits(4))
            schedSel = []
            for _ in 0...cpbCntMinus1 {
                let bitRate = try reader.readUE()
                let cpbSize = try reader.readUE()
                let cbr = try reader.readFlag()
                schedSel.append(SchedSel(bitRateValueMinus1: bitRate, cpbSizeValueMinus1: cpbSize, cbrFlag: cbr))
            }
            initialCpbRemovalDelayLengthMinus1 = UInt8(try reader.readBits(5))
            cpbRemovalDelayLengthMinus1 = UInt8(try reader.readBits(5))
            dpbOutputDelayLengthMinus1 = UInt8(try reader.readBits(5))
            timeOffsetLength = UInt8(try reader.readBits(5))
        }

        /// BitRate[SchedSelIdx] in bit/s (equation E-37).
        public func bitRate(_ schedSelIdx: Int = 0) -> Int? {
            guard schedSel.indices.contains(schedSelIdx) else { return nil }
            return (Int(schedSel[schedSelIdx].bitRateValueMinus1) + 1) << (6 + Int(bitRateScale))
        }

        /// CpbSize[SchedSelIdx] in bits (equation E-38).
        public func cpbSize(_ schedSelIdx: Int = 0) -> Int? {
            guard schedSel.indices.contains(schedSelIdx) else { return nil }
            return (Int(schedSel[schedSelIdx].cpbSizeValueMinus1) + 1) << (4 + Int(cpbSizeScale))
        }
    }
}
