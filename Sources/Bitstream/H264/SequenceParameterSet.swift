extension H264 {
    /// seq_parameter_set_data() (H.264 §7.3.2.1.1), VUI included (§E.1.1). Field names are the spec's syntax
    /// elements in camelCase; parts the syntax makes conditional are optionals or hold the value §7.4.2.1.1 infers.
    ///
    /// As strict as decoding needs and as lenient as FFmpeg (libavcodec/h264_ps.c): what changes how the stream
    /// decodes (ids, chroma format, bit depths, frame_num and POC sizes, reference counts, picture size, cropping)
    /// is refused when out of range; what derives nothing is kept and listed in `warnings`; a VUI cut short keeps
    /// the fields before the damage (`vuiTruncated`), so width, height and cropping survive it.
    public struct SequenceParameterSet: Hashable, Sendable {
        /// Hostile-input bounds. The spec leaves these ue(v) fields unbounded; the largest legal picture (level 6.2,
        /// MaxFS 139 264 MBs) has no side longer than Sqrt(8 · MaxFS) ≈ 1056 MBs, so 2048 leaves room and keeps the
        /// derived sizes far from overflow.
        public static let maxPicWidthInMbs = 2048
        public static let maxPicHeightInMapUnits = 2048
        /// num_ref_frames_in_pic_order_cnt_cycle is 0…255 (§7.4.2.1.1).
        public static let maxNumRefFramesInPicOrderCntCycle = 255

        public var profileIdc: UInt8
        public var constraintSet0Flag: Bool
        public var constraintSet1Flag: Bool
        public var constraintSet2Flag: Bool
        public var constraintSet3Flag: Bool
        public var constraintSet4Flag: Bool
        public var constraintSet5Flag: Bool
        public var reservedZero2Bits: UInt8
        public var levelIdc: UInt8
        public var seqParameterSetId: Int

        /// 1 (4:2:0) when not present (§7.4.2.1.1).
        public var chromaFormatIdc: Int = 1
        public var separateColourPlaneFlag = false
        public var bitDepthLumaMinus8 = 0
        public var bitDepthChromaMinus8 = 0
        public var qpprimeYZeroTransformBypassFlag = false
        public var seqScalingMatrixPresentFlag = false
        /// The 8 or 12 lists when seqScalingMatrixPresentFlag (else nil: Flat_4x4_16 / Flat_8x8_16 apply).
        public var seqScalingLists: [ScalingList]?

        public var log2MaxFrameNumMinus4: Int
        public var picOrderCntType: Int
        /// Present when picOrderCntType == 0.
        public var log2MaxPicOrderCntLsbMinus4: Int?
        /// The four below are present when picOrderCntType == 1.
        public var deltaPicOrderAlwaysZeroFlag: Bool?
        public var offsetForNonRefPic: Int?
        public var offsetForTopToBottomField: Int?
        /// offset_for_ref_frame[i]; its count is num_ref_frames_in_pic_order_cnt_cycle.
        public var offsetForRefFrame: [Int]?

        public var maxNumRefFrames: Int
        public var gapsInFrameNumValueAllowedFlag: Bool
        public var picWidthInMbsMinus1: Int
        public var picHeightInMapUnitsMinus1: Int
        public var frameMbsOnlyFlag: Bool
        /// 0 when frameMbsOnlyFlag (not present).
        public var mbAdaptiveFrameFieldFlag = false
        public var direct8x8InferenceFlag: Bool
        public var frameCroppingFlag: Bool
        /// The four offsets are 0 when frameCroppingFlag is 0 (§7.4.2.1.1), in units of CropUnitX / CropUnitY.
        public var frameCropLeftOffset = 0
        public var frameCropRightOffset = 0
        public var frameCropTopOffset = 0
        public var frameCropBottomOffset = 0
        public var vuiParametersPresentFlag: Bool
        public var vuiParameters: VUIParameters?

        /// What the parse accepted against the specification, in syntax order (empty for a clean SPS).
        public var warnings: [BitstreamWarning] = []

        /// The VUI was cut short (or the SPS ended where vui_parameters_present_flag should be): the fields read
        /// before the damage are kept, the later ones absent.
        public var vuiTruncated: Bool { warnings.contains { $0.code == .truncated } }

        /// Parses an SPS NAL unit, header byte included.
        ///
        /// The RBSP is read up to its rbsp_stop_one_bit (its last 1 bit), as FFmpeg does: syntax that runs into the
        /// stop bit is cut short, and bits left between the last field and the stop bit (or non-zero bytes after
        /// the alignment, which then hold the stop bit) are a `trailingData` warning, not an error.
        public init(nalUnit: ArraySlice<UInt8>) throws(BitstreamError) {
            let (header, rbsp) = try RBSP.split(nalUnit: nalUnit)
            try BitstreamError.expect(.sps, in: header)
            guard let stopBit = RBSP.stopBitOffset(rbsp) else {
                throw .make(.truncated, "SPS has no rbsp_stop_one_bit (\(rbsp.count) RBSP byte(s), all zero)", offset: 1)
            }
            var reader = BitReader(rbsp, bitCount: stopBit)
            try self.init(reading: &reader)
            // After a truncated VUI the bits left are the start of the field that did not fit, not trailing data.
            if reader.bitsLeft > 0, !vuiTruncated {
                warnings.append(BitstreamWarning(
                    code: .trailingData, syntaxElement: "rbsp_trailing_bits",
                    reason: "\(reader.bitsLeft) bit(s) between the last syntax element and the rbsp_stop_one_bit, ignored",
                    offset: reader.bitOffset / 8))
            }
        }

        /// Parses seq_parameter_set_data() from an RBSP reader, leaving it after the last field.
        public init(reading reader: inout BitReader) throws(BitstreamError) {
            profileIdc = UInt8(try reader.readBits(8))
            constraintSet0Flag = try reader.readFlag()
            constraintSet1Flag = try reader.readFlag()
            constraintSet2Flag = try reader.readFlag()
            constraintSet3Flag = try reader.readFlag()
            constraintSet4Flag = try reader.readFlag()
            constraintSet5Flag = try reader.readFlag()
            reservedZero2Bits = UInt8(try reader.readBits(2))
            levelIdc = UInt8(try reader.readBits(8))
            seqParameterSetId = try reader.readUE("seq_parameter_set_id", max: 31)

            if Self.profilesWithChromaInfo.contains(profileIdc) {
                chromaFormatIdc = try reader.readUE("chroma_format_idc", max: 3)
                if chromaFormatIdc == 3 {
                    separateColourPlaneFlag = try reader.readFlag()
                }
                bitDepthLumaMinus8 = try reader.readUE("bit_depth_luma_minus8", max: 6)
                bitDepthChromaMinus8 = try reader.readUE("bit_depth_chroma_minus8", max: 6)
                qpprimeYZeroTransformBypassFlag = try reader.readFlag()
                seqScalingMatrixPresentFlag = try reader.readFlag()
                if seqScalingMatrixPresentFlag {
                    seqScalingLists = try ScalingList.readMatrix(
                        count: chromaFormatIdc != 3 ? 8 : 12, from: &reader)
                }
            }

            log2MaxFrameNumMinus4 = try reader.readUE("log2_max_frame_num_minus4", max: 12)
            picOrderCntType = try reader.readUE("pic_order_cnt_type", max: 2)
            if picOrderCntType == 0 {
                log2MaxPicOrderCntLsbMinus4 = try reader.readUE("log2_max_pic_order_cnt_lsb_minus4", max: 12)
            } else if picOrderCntType == 1 {
                deltaPicOrderAlwaysZeroFlag = try reader.readFlag()
                let int32 = Int(Int32.min + 1)...Int(Int32.max)
                offsetForNonRefPic = try reader.readSE("offset_for_non_ref_pic", in: int32)
                offsetForTopToBottomField = try reader.readSE("offset_for_top_to_bottom_field", in: int32)
                let cycle = try reader.readUE(
                    "num_ref_frames_in_pic_order_cnt_cycle", max: Self.maxNumRefFramesInPicOrderCntCycle)
                var offsets: [Int] = []
                offsets.reserveCapacity(cycle)
                for _ in 0..<cycle {
                    offsets.append(try reader.readSE("offset_for_ref_frame", in: int32))
                }
                offsetForRefFrame = offsets
            }

            // MaxDpbFrames is at most 16 (§A.3.1 h), so max_num_ref_frames is too.
            maxNumRefFrames = try reader.readUE("max_num_ref_frames", max: 16)
            gapsInFrameNumValueAllowedFlag = try reader.readFlag()
            picWidthInMbsMinus1 = try reader.readUE("pic_width_in_mbs_minus1", max: Self.maxPicWidthInMbs - 1)
            picHeightInMapUnitsMinus1 = try reader.readUE(
                "pic_height_in_map_units_minus1", max: Self.maxPicHeightInMapUnits - 1)
            frameMbsOnlyFlag = try reader.readFlag()
            if !frameMbsOnlyFlag {
                mbAdaptiveFrameFieldFlag = try reader.readFlag()
            }
            direct8x8InferenceFlag = try reader.readFlag()
            frameCroppingFlag = try reader.readFlag()
            let cropStart = reader.bitOffset
            if frameCroppingFlag {
                let bound = Self.maxPicWidthInMbs * 16
                frameCropLeftOffset = try reader.readUE("frame_crop_left_offset", max: bound)
                frameCropRightOffset = try reader.readUE("frame_crop_right_offset", max: bound)
                frameCropTopOffset = try reader.readUE("frame_crop_top_offset", max: bound)
                frameCropBottomOffset = try reader.readUE("frame_crop_bottom_offset", max: bound)
            }
            if reader.bitsLeft == 0 {
                // Cut right after the cropping: libwebrtc and mediacommon read the size without the VUI, FFmpeg
                // reads a 0 here. Everything a decoder needs is known.
                vuiParametersPresentFlag = false
                warnings.append(BitstreamWarning(
                    code: .truncated, syntaxElement: "vui_parameters_present_flag",
                    reason: "the SPS ends before it: no VUI", offset: reader.bitOffset / 8))
            } else {
                vuiParametersPresentFlag = try reader.readFlag()
            }
            if vuiParametersPresentFlag {
                vuiParameters = try VUIParameters(reading: &reader, warnings: &warnings)
            }
            guard width > 0, height > 0 else {
                throw .make(.invalidValue, "frame cropping removes the whole picture", offset: cropStart / 8)
            }
        }

        /// profile_idc values whose SPS carries chroma_format_idc … seq_scaling_matrix_present_flag (§7.3.2.1.1).
        public static let profilesWithChromaInfo: Set<UInt8> = [
            100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135,
        ]
    }
}
