extension HEVC {
    /// video_parameter_set_rbsp() (H.265 §7.3.2.1), read through the timing and HRD part; the VPS extension
    /// (multi-layer, 3D) is noted by its flag and not read.
    public struct VideoParameterSet: Hashable, Sendable {
        /// vps_num_layer_sets_minus1 is 0…1023, vps_num_hrd_parameters at most vps_num_layer_sets_minus1 + 1.
        public static let maxNumLayerSets = 1024

        public var vpsVideoParameterSetId: Int
        public var vpsBaseLayerInternalFlag: Bool
        public var vpsBaseLayerAvailableFlag: Bool
        public var vpsMaxLayersMinus1: Int
        public var vpsMaxSubLayersMinus1: Int
        public var vpsTemporalIdNestingFlag: Bool
        public var profileTierLevel: ProfileTierLevel
        public var vpsSubLayerOrderingInfoPresentFlag: Bool
        /// One entry per sub-layer (the highest's values repeated when the present flag is 0).
        public var subLayerOrderingInfo: [SubLayerOrderingInfo]
        public var vpsMaxLayerId: Int
        public var vpsNumLayerSetsMinus1: Int
        public var vpsTimingInfoPresentFlag = false
        public var vpsNumUnitsInTick: UInt32?
        public var vpsTimeScale: UInt32?
        public var vpsPocProportionalToTimingFlag: Bool?
        public var vpsNumTicksPocDiffOneMinus1: Int?
        public var vpsNumHrdParameters: Int?
        public var vpsExtensionFlag = false

        /// What the parse accepted against the specification, in syntax order.
        public var warnings: [BitstreamWarning] = []

        /// Parses a VPS NAL unit, header included.
        public init(nalUnit: ArraySlice<UInt8>) throws(BitstreamError) {
            var (_, reader) = try HEVC.parameterSetReader(nalUnit, expecting: .vps, name: "VPS")
            try self.init(reading: &reader)
        }

        public init(reading reader: inout BitReader) throws(BitstreamError) {
            vpsVideoParameterSetId = Int(try reader.readBits(4))
            vpsBaseLayerInternalFlag = try reader.readFlag()
            vpsBaseLayerAvailableFlag = try reader.readFlag()
            vpsMaxLayersMinus1 = Int(try reader.readBits(6))
            vpsMaxSubLayersMinus1 = Int(try reader.readBits(3))
            if vpsMaxSubLayersMinus1 == 7 {
                // 0…6 (§7.4.3.1); FFmpeg refuses 7 too (more sub-layers than HEVC_MAX_SUB_LAYERS).
                throw .make(.invalidValue, "vps_max_sub_layers_minus1 = 7 exceeds 6", offset: 0)
            }
            vpsTemporalIdNestingFlag = try reader.readFlag()
            let reservedOffset = reader.bitOffset / 8
            let reserved = try reader.readBits(16)
            if reserved != 0xFFFF {
                warnings.append(BitstreamWarning(
                    code: .reservedValue, syntaxElement: "vps_reserved_0xffff_16bits",
                    reason: "is 0x\(String(reserved, radix: 16)), kept", offset: reservedOffset))
            }
            profileTierLevel = try ProfileTierLevel(reading: &reader, maxNumSubLayersMinus1: vpsMaxSubLayersMinus1)
            vpsSubLayerOrderingInfoPresentFlag = try reader.readFlag()
            subLayerOrderingInfo = try SubLayerOrderingInfo.readLoop(
                "vps", from: &reader, presentFlag: vpsSubLayerOrderingInfoPresentFlag,
                maxSubLayersMinus1: vpsMaxSubLayersMinus1, warnings: &warnings)
            vpsMaxLayerId = Int(try reader.readBits(6))
            vpsNumLayerSetsMinus1 = try reader.readUE("vps_num_layer_sets_minus1", max: Self.maxNumLayerSets - 1)
            if vpsNumLayerSetsMinus1 > 0 {
                // layer_id_included_flag[ i ][ j ] for i in 1...vps_num_layer_sets_minus1, j in 0...vps_max_layer_id
                try reader.skipBits(vpsNumLayerSetsMinus1 * (vpsMaxLayerId + 1))
            }
            vpsTimingInfoPresentFlag = try reader.readFlag()
            if vpsTimingInfoPresentFlag {
                vpsNumUnitsInTick = try reader.readBits(32)
                vpsTimeScale = try reader.readBits(32)
                let proportional = try reader.readFlag()
                vpsPocProportionalToTimingFlag = proportional
                if proportional {
                    vpsNumTicksPocDiffOneMinus1 = Int(try reader.readUE())
                }
                let hrdCount = try reader.readUE("vps_num_hrd_parameters", max: vpsNumLayerSetsMinus1 + 1)
                vpsNumHrdParameters = hrdCount
                for i in 0..<hrdCount {
                    _ = try reader.readUE("hrd_layer_set_idx", max: vpsNumLayerSetsMinus1)
                    let common = i > 0 ? try reader.readFlag() : true  // cprms_present_flag[ i ]
                    _ = try HRDParameters(
                        reading: &reader, commonInfPresentFlag: common, maxNumSubLayersMinus1: vpsMaxSubLayersMinus1)
                }
            }
            vpsExtensionFlag = try reader.readFlag()
            // vps_extension( ) and vps_extension_data_flag run to the stop bit; nothing here needs them.
            if !vpsExtensionFlag, let warning = HEVC.trailingBitsWarning(reader) {
                warnings.append(warning)
            }
        }

        /// Frames per second from the VPS timing: vps_time_scale ÷ vps_num_units_in_tick.
        public var fps: Double? {
            guard let tick = vpsNumUnitsInTick, let scale = vpsTimeScale, tick > 0, scale > 0 else { return nil }
            return Double(scale) / Double(tick)
        }
    }
}
