extension HEVC {
    /// hrd_parameters( commonInfPresentFlag, maxNumSubLayersMinus1 ) (H.265 §E.2.2), read in full so the fields
    /// after it can be reached; the common part and, per sub-layer, the rate flags and CPB count are kept, the
    /// per-CPB values only for the NAL HRD's first CPB of each sub-layer (what `bitRate`/`cpbSize` report).
    public struct HRDParameters: Hashable, Sendable {
        /// cpb_cnt_minus1 is 0…31 (§E.3.2).
        public static let maxCpbCnt = 32

        public struct SubLayer: Hashable, Sendable {
            public var fixedPicRateGeneralFlag: Bool
            /// Inferred 1 when fixedPicRateGeneralFlag is 1.
            public var fixedPicRateWithinCvsFlag: Bool
            public var elementalDurationInTcMinus1: Int?
            public var lowDelayHrdFlag: Bool
            public var cpbCntMinus1: Int
            /// bit_rate_value_minus1[0] and cpb_size_value_minus1[0] of the NAL HRD (else the VCL HRD), if any.
            public var bitRateValueMinus1: UInt32?
            public var cpbSizeValueMinus1: UInt32?
        }

        public var nalHrdParametersPresentFlag = false
        public var vclHrdParametersPresentFlag = false
        public var subPicHrdParamsPresentFlag = false
        public var bitRateScale: UInt8 = 0
        public var cpbSizeScale: UInt8 = 0
        public var subLayers: [SubLayer] = []

        public init(
            reading reader: inout BitReader, commonInfPresentFlag: Bool, maxNumSubLayersMinus1: Int
        ) throws(BitstreamError) {
            if commonInfPresentFlag {
                nalHrdParametersPresentFlag = try reader.readFlag()
                vclHrdParametersPresentFlag = try reader.readFlag()
                if nalHrdParametersPresentFlag || vclHrdParametersPresentFlag {
                    subPicHrdParamsPresentFlag = try reader.readFlag()
                    if subPicHrdParamsPresentFlag {
                        // tick_divisor_minus2 u(8), du_cpb_removal_delay_increment_length_minus1 u(5),
                        // sub_pic_cpb_params_in_pic_timing_sei_flag u(1), dpb_output_delay_du_length_minus1 u(5)
                        try reader.skipBits(8 + 5 + 1 + 5)
                    }
                    bitRateScale = UInt8(try reader.readBits(4))
                    cpbSizeScale = UInt8(try reader.readBits(4))
                    if subPicHrdParamsPresentFlag {
                        try reader.skipBits(4)  // cpb_size_du_scale
                    }
                    // initial_cpb_removal_delay_length_minus1, au_cpb_removal_delay_length_minus1,
                    // dpb_output_delay_length_minus1: u(5) each
                    try reader.skipBits(15)
                }
            }
            for _ in 0...maxNumSubLayersMinus1 {
                let general = try reader.readFlag()
                let withinCvs = general ? true : try reader.readFlag()
                var duration: Int?
                var lowDelay = false
                if withinCvs {
                    duration = try reader.readUE("elemental_duration_in_tc_minus1", max: 2047)
                } else {
                    lowDelay = try reader.readFlag()
                }
                var cpbCnt = 0
                if !lowDelay {
                    cpbCnt = try reader.readUE("cpb_cnt_minus1", max: Self.maxCpbCnt - 1)
                }
                var subLayer = SubLayer(
                    fixedPicRateGeneralFlag: general, fixedPicRateWithinCvsFlag: withinCvs,
                    elementalDurationInTcMinus1: duration, lowDelayHrdFlag: lowDelay, cpbCntMinus1: cpbCnt)
                for present in [nalHrdParametersPresentFlag, vclHrdParametersPresentFlag] where present {
                    // sub_layer_hrd_parameters( i ) (§E.2.3)
                    for k in 0...cpbCnt {
                        let bitRate = try reader.readUE()
                        let cpbSize = try reader.readUE()
                        if subPicHrdParamsPresentFlag {
                            _ = try reader.readUE()  // cpb_size_du_value_minus1
                            _ = try reader.readUE()  // bit_rate_du_value_minus1
                        }
                        _ = try reader.readFlag()  // cbr_flag
                        if k == 0, subLayer.bitRateValueMinus1 == nil {
                            subLayer.bitRateValueMinus1 = bitRate
                            subLayer.cpbSizeValueMinus1 = cpbSize
                        }
                    }
                }
                subLayers.append(subLayer)
            }
        }

        /// BitRate[0] of the highest sub-layer in bit/s (equation E-xx: (value + 1) · 2^(6 + bit_rate_scale)).
        public var bitRate: Int? {
            subLayers.last?.bitRateValueMinus1.map { (Int($0) + 1) << (6 + Int(bitRateScale)) }
        }

        /// CpbSize[0] of the highest sub-layer in bits ((value + 1) · 2^(4 + cpb_size_scale)).
        public var cpbSize: Int? {
            subLayers.last?.cpbSizeValueMinus1.map { (Int($0) + 1) << (4 + Int(cpbSizeScale)) }
        }
    }
}
