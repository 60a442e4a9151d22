extension HEVC {
    /// vui_parameters() (H.265 §E.2.1). Each group's fields are nil when its present flag is 0.
    ///
    /// As lenient as FFmpeg (libavcodec/hevc_ps.c `decode_vui`): values outside §E.3.1's ranges that derive nothing
    /// are kept with a `BitstreamWarning`; a VUI cut short, or running into the rbsp_stop_one_bit, keeps the fields
    /// read before the damage and sets `isTruncated` (FFmpeg: "Overread VUI", and it keeps the SPS).
    public struct VUIParameters: Hashable, Sendable {
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
        public var matrixCoeffs: UInt8?

        public var chromaLocInfoPresentFlag = false
        public var chromaSampleLocTypeTopField: Int?
        public var chromaSampleLocTypeBottomField: Int?

        public var neutralChromaIndicationFlag = false
        public var fieldSeqFlag = false
        public var frameFieldInfoPresentFlag = false

        public var defaultDisplayWindowFlag = false
        public var defDispWinLeftOffset: Int?
        public var defDispWinRightOffset: Int?
        public var defDispWinTopOffset: Int?
        public var defDispWinBottomOffset: Int?

        public var vuiTimingInfoPresentFlag = false
        public var vuiNumUnitsInTick: UInt32?
        public var vuiTimeScale: UInt32?
        public var vuiPocProportionalToTimingFlag: Bool?
        public var vuiNumTicksPocDiffOneMinus1: Int?
        public var vuiHrdParametersPresentFlag: Bool?
        public var hrdParameters: HRDParameters?

        public var bitstreamRestrictionFlag = false
        public var tilesFixedStructureFlag: Bool?
        public var motionVectorsOverPicBoundariesFlag: Bool?
        public var restrictedRefPicListsFlag: Bool?
        public var minSpatialSegmentationIdc: Int?
        public var maxBytesPerPicDenom: Int?
        public var maxBitsPerMinCuDenom: Int?
        public var log2MaxMvLengthHorizontal: Int?
        public var log2MaxMvLengthVertical: Int?

        /// The VUI ended before its last field: the fields read before that point are kept, the rest absent.
        public var isTruncated = false

        public init() {}

        /// Reads vui_parameters( ) of an SPS with `spsMaxSubLayersMinus1`, appending what it accepted to `warnings`.
        public init(
            reading reader: inout BitReader, spsMaxSubLayersMinus1: Int, warnings: inout [BitstreamWarning]
        ) throws(BitstreamError) {
            let start = reader.bitOffset
            var group = "aspect_ratio_info"
            do throws(BitstreamError) {
                try readFields(from: &reader, maxSubLayersMinus1: spsMaxSubLayersMinus1, warnings: &warnings,
                               group: &group)
            } catch where error.code == .truncated {
                isTruncated = true
                warnings.append(BitstreamWarning(
                    code: .truncated, syntaxElement: "vui_parameters",
                    reason: "ends inside \(group) after \(reader.bitOffset - start) bit(s); the fields from there on "
                        + "are absent", offset: reader.bitOffset / 8))
            }
        }

        private mutating func readFields(
            from reader: inout BitReader, maxSubLayersMinus1: Int, warnings: inout [BitstreamWarning],
            group: inout String
        ) throws(BitstreamError) {
            var signal = VUISignalDescription()
            defer { adopt(signal) }
            try signal.read(from: &reader, warnings: &warnings, group: &group)
            group = "neutral_chroma_indication_flag"
            neutralChromaIndicationFlag = try reader.readFlag()
            fieldSeqFlag = try reader.readFlag()
            frameFieldInfoPresentFlag = try reader.readFlag()
            group = "default_display_window"
            defaultDisplayWindowFlag = try reader.readFlag()
            if defaultDisplayWindowFlag {
                // Only a display hint (FFmpeg applies it only with a flag); no bound a decoder needs.
                let bound = SequenceParameterSet.maxPicSideInLumaSamples
                defDispWinLeftOffset = try reader.readUE("def_disp_win_left_offset", max: bound, orWarnInto: &warnings)
                defDispWinRightOffset = try reader.readUE("def_disp_win_right_offset", max: bound, orWarnInto: &warnings)
                defDispWinTopOffset = try reader.readUE("def_disp_win_top_offset", max: bound, orWarnInto: &warnings)
                defDispWinBottomOffset = try reader.readUE(
                    "def_disp_win_bottom_offset", max: bound, orWarnInto: &warnings)
            }
            group = "vui_timing_info"
            vuiTimingInfoPresentFlag = try reader.readFlag()
            if vuiTimingInfoPresentFlag {
                let offset = reader.bitOffset / 8
                let tick = try reader.readBits(32)
                vuiNumUnitsInTick = tick
                let scale = try reader.readBits(32)
                vuiTimeScale = scale
                if tick == 0 || scale == 0 {
                    warnings.append(BitstreamWarning(
                        code: .outOfRange, syntaxElement: tick == 0 ? "vui_num_units_in_tick" : "vui_time_scale",
                        reason: "is 0 (must be > 0): no frame rate derived", offset: offset))
                }
                let proportional = try reader.readFlag()
                vuiPocProportionalToTimingFlag = proportional
                if proportional {
                    vuiNumTicksPocDiffOneMinus1 = Int(try reader.readUE())
                }
                group = "hrd_parameters"
                let hrd = try reader.readFlag()
                vuiHrdParametersPresentFlag = hrd
                if hrd {
                    hrdParameters = try HRDParameters(
                        reading: &reader, commonInfPresentFlag: true, maxNumSubLayersMinus1: maxSubLayersMinus1)
                }
            }
            group = "bitstream_restriction"
            bitstreamRestrictionFlag = try reader.readFlag()
            if bitstreamRestrictionFlag {
                tilesFixedStructureFlag = try reader.readFlag()
                motionVectorsOverPicBoundariesFlag = try reader.readFlag()
                restrictedRefPicListsFlag = try reader.readFlag()
                minSpatialSegmentationIdc = try reader.readUE(
                    "min_spatial_segmentation_idc", max: 4095, orWarnInto: &warnings)
                maxBytesPerPicDenom = try reader.readUE("max_bytes_per_pic_denom", max: 16, orWarnInto: &warnings)
                maxBitsPerMinCuDenom = try reader.readUE("max_bits_per_min_cu_denom", max: 16, orWarnInto: &warnings)
                log2MaxMvLengthHorizontal = try reader.readUE(
                    "log2_max_mv_length_horizontal", max: 15, orWarnInto: &warnings)
                log2MaxMvLengthVertical = try reader.readUE(
                    "log2_max_mv_length_vertical", max: 15, orWarnInto: &warnings)
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
            matrixCoeffs = signal.matrixCoefficients
            chromaLocInfoPresentFlag = signal.chromaLocInfoPresentFlag
            chromaSampleLocTypeTopField = signal.chromaSampleLocTypeTopField
            chromaSampleLocTypeBottomField = signal.chromaSampleLocTypeBottomField
        }
    }
}
