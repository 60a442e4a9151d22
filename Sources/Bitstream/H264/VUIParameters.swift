extension H264 {
    /// vui_parameters() (H.264 §E.1.1). Each group's fields are nil when its present flag is 0.
    public struct VUIParameters: Hashable, Sendable {
        /// aspect_ratio_idc value meaning "sar_width and sar_height follow" (Table E-1).
        public static let extendedSAR: UInt8 = 255

        public var aspectRatioInfoPresentFlag: Bool
        public var aspectRatioIdc: UInt8?
        public var sarWidth: UInt16?
        public var sarHeight: UInt16?

        public var overscanInfoPresentFlag: Bool
        public var overscanAppropriateFlag: Bool?

        public var videoSignalTypePresentFlag: Bool
        public var videoFormat: UInt8?
        public var videoFullRangeFlag: Bool?
        public var colourDescriptionPresentFlag: Bool?
        public var colourPrimaries: UInt8?
        public var transferCharacteristics: UInt8?
        public var matrixCoefficients: UInt8?

        public var chromaLocInfoPresentFlag: Bool
        public var chromaSampleLocTypeTopField: Int?
        public var chromaSampleLocTypeBottomField: Int?

        public var timingInfoPresentFlag: Bool
        public var numUnitsInTick: UInt32?
        public var timeScale: UInt32?
        public var fixedFrameRateFlag: Bool?

        public var nalHrdParametersPresentFlag: Bool
        public var nalHrdParameters: HRDParameters?
        public var vclHrdParametersPresentFlag: Bool
        public var vclHrdParameters: HRDParameters?
        /// Present when either HRD is present.
        public var lowDelayHrdFlag: Bool?
        public var picStructPresentFlag: Bool

        public var bitstreamRestrictionFlag: Bool
        public var motionVectorsOverPicBoundariesFlag: Bool?
        public var maxBytesPerPicDenom: Int?
        public var maxBitsPerMbDenom: Int?
        public var log2MaxMvLengthHorizontal: Int?
        public var log2MaxMvLengthVertical: Int?
        public var maxNumReorderFrames: Int?
        public var maxDecFrameBuffering: Int?

        public init(reading reader: inout BitReader) throws(BitstreamError) {
            aspectRatioInfoPresentFlag = try reader.readFlag()
            if aspectRatioInfoPresentFlag {
                let idc = UInt8(try reader.readBits(8))
                aspectRatioIdc = idc
                if idc == Self.extendedSAR {
                    sarWidth = UInt16(try reader.readBits(16))
                    sarHeight = UInt16(try reader.readBits(16))
                }
            }
            overscanInfoPresentFlag = try reader.readFlag()
            if overscanInfoPresentFlag {
                overscanAppropriateFlag = try reader.readFlag()
            }
            videoSignalTypePresentFlag = try reader.readFlag()
            if videoSignalTypePresentFlag {
                videoFormat = UInt8(try reader.readBits(3))
                videoFullRangeFlag = try reader.readFlag()
                let colour = try reader.readFlag()
                colourDescriptionPresentFlag = colour
                if colour {
                    colourPrimaries = UInt8(try reader.readBits(8))
                    transferCharacteristics = UInt8(try reader.readBits(8))
                    matrixCoefficients = UInt8(try reader.readBits(8))
                }
            }
            chromaLocInfoPresentFlag = try reader.readFlag()
            if chromaLocInfoPresentFlag {
                chromaSampleLocTypeTopField = try reader.readUE("chroma_sample_loc_type_top_field", max: 5)
                chromaSampleLocTypeBottomField = try reader.readUE("chroma_sample_loc_type_bottom_field", max: 5)
            }
            timingInfoPresentFlag = try reader.readFlag()
            if timingInfoPresentFlag {
                numUnitsInTick = try reader.readBits(32)
                timeScale = try reader.readBits(32)
                fixedFrameRateFlag = try reader.readFlag()
            }
            nalHrdParametersPresentFlag = try reader.readFlag()
            if nalHrdParametersPresentFlag {
                nalHrdParameters = try HRDParameters(reading: &reader)
            }
            vclHrdParametersPresentFlag = try reader.readFlag()
            if vclHrdParametersPresentFlag {
                vclHrdParameters = try HRDParameters(reading: &reader)
            }
            if nalHrdParametersPresentFlag || vclHrdParametersPresentFlag {
                lowDelayHrdFlag = try reader.readFlag()
            }
            picStructPresentFlag = try reader.readFlag()
            bitstreamRestrictionFlag = try reader.readFlag()
            if bitstreamRestrictionFlag {
                motionVectorsOverPicBoundariesFlag = try reader.readFlag()
                maxBytesPerPicDenom = try reader.readUE("max_bytes_per_pic_denom", max: 16)
                maxBitsPerMbDenom = try reader.readUE("max_bits_per_mb_denom", max: 16)
                log2MaxMvLengthHorizontal = try reader.readUE("log2_max_mv_length_horizontal", max: 15)
                log2MaxMvLengthVertical = try reader.readUE("log2_max_mv_length_vertical", max: 15)
                // Both at most MaxDpbFrames ≤ 16 (§E.2.1).
                maxNumReorderFrames = try reader.readUE("max_num_reorder_frames", max: 16)
                maxDecFrameBuffering = try reader.readUE("max_dec_frame_buffering", max: 16)
            }
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
