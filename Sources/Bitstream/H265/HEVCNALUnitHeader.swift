// The two-byte NAL unit header, H.265 §7.3.1.2:
//
//  +---------------+---------------+
//  |0|1|2|3|4|5|6|7|0|1|2|3|4|5|6|7|
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |F|   Type    |  LayerId  | TID |   F = forbidden_zero_bit, Type = nal_unit_type,
//  +-------------+-----------------+   LayerId = nuh_layer_id, TID = nuh_temporal_id_plus1

/// Namespace for the H.265 (ISO/IEC 23008-2, ITU-T H.265) syntax structures, beside `H264`.
public enum HEVC {}

extension HEVC {
    /// `nal_unit_type` (H.265 Table 7-1, plus the RTP packetization types of RFC 7798 §4.4).
    ///
    /// A struct rather than an enum so that every 6-bit value is representable: a reserved type is a value without
    /// a name, never a trap.
    public struct NALUnitType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The 6-bit `nal_unit_type` value (0...63).
        public var rawValue: UInt8

        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// 0: TRAIL_N, coded slice segment of a non-TSA, non-STSA trailing picture, sub-layer non-reference.
        public static let trailN = Self(rawValue: 0)
        /// 1: TRAIL_R, the same, sub-layer reference.
        public static let trailR = Self(rawValue: 1)
        /// 2: TSA_N, temporal sub-layer access.
        public static let tsaN = Self(rawValue: 2)
        /// 3: TSA_R.
        public static let tsaR = Self(rawValue: 3)
        /// 4: STSA_N, step-wise temporal sub-layer access.
        public static let stsaN = Self(rawValue: 4)
        /// 5: STSA_R.
        public static let stsaR = Self(rawValue: 5)
        /// 6: RADL_N, random access decodable leading picture.
        public static let radlN = Self(rawValue: 6)
        /// 7: RADL_R.
        public static let radlR = Self(rawValue: 7)
        /// 8: RASL_N, random access skipped leading picture.
        public static let raslN = Self(rawValue: 8)
        /// 9: RASL_R.
        public static let raslR = Self(rawValue: 9)
        /// 16: BLA_W_LP, broken link access, may have leading pictures.
        public static let blaWLP = Self(rawValue: 16)
        /// 17: BLA_W_RADL.
        public static let blaWRADL = Self(rawValue: 17)
        /// 18: BLA_N_LP.
        public static let blaNLP = Self(rawValue: 18)
        /// 19: IDR_W_RADL, instantaneous decoding refresh, may have RADL pictures.
        public static let idrWRADL = Self(rawValue: 19)
        /// 20: IDR_N_LP, IDR without leading pictures.
        public static let idrNLP = Self(rawValue: 20)
        /// 21: CRA_NUT, clean random access.
        public static let cra = Self(rawValue: 21)
        /// 32: VPS_NUT, video parameter set.
        public static let vps = Self(rawValue: 32)
        /// 33: SPS_NUT, sequence parameter set.
        public static let sps = Self(rawValue: 33)
        /// 34: PPS_NUT, picture parameter set.
        public static let pps = Self(rawValue: 34)
        /// 35: AUD_NUT, access unit delimiter.
        public static let accessUnitDelimiter = Self(rawValue: 35)
        /// 36: EOS_NUT, end of sequence.
        public static let endOfSequence = Self(rawValue: 36)
        /// 37: EOB_NUT, end of bitstream.
        public static let endOfBitstream = Self(rawValue: 37)
        /// 38: FD_NUT, filler data.
        public static let fillerData = Self(rawValue: 38)
        /// 39: PREFIX_SEI_NUT.
        public static let prefixSEI = Self(rawValue: 39)
        /// 40: SUFFIX_SEI_NUT.
        public static let suffixSEI = Self(rawValue: 40)
        /// 48: RFC 7798 §4.4.2 aggregation packet (AP).
        public static let aggregationPacket = Self(rawValue: 48)
        /// 49: RFC 7798 §4.4.3 fragmentation unit (FU).
        public static let fragmentationUnit = Self(rawValue: 49)
        /// 50: RFC 7798 §4.4.4 PAYLOAD CONTENT INFORMATION (PACI).
        public static let payloadContentInformation = Self(rawValue: 50)

        /// 0...31: coded slice segments (VCL NAL units).
        public var isVCL: Bool { rawValue < 32 }
        /// 16...23: intra random access point pictures (BLA, IDR, CRA and the reserved IRAP types 22, 23).
        public var isIRAP: Bool { (16...23).contains(rawValue) }
        /// 19, 20: IDR pictures.
        public var isIDR: Bool { self == .idrWRADL || self == .idrNLP }
        /// VPS, SPS or PPS.
        public var isParameterSet: Bool { (32...34).contains(rawValue) }

        public var description: String {
            switch self {
            case .trailN: "TRAIL_N"
            case .trailR: "TRAIL_R"
            case .tsaN: "TSA_N"
            case .tsaR: "TSA_R"
            case .stsaN: "STSA_N"
            case .stsaR: "STSA_R"
            case .radlN: "RADL_N"
            case .radlR: "RADL_R"
            case .raslN: "RASL_N"
            case .raslR: "RASL_R"
            case .blaWLP: "BLA_W_LP"
            case .blaWRADL: "BLA_W_RADL"
            case .blaNLP: "BLA_N_LP"
            case .idrWRADL: "IDR_W_RADL"
            case .idrNLP: "IDR_N_LP"
            case .cra: "CRA_NUT"
            case .vps: "VPS_NUT"
            case .sps: "SPS_NUT"
            case .pps: "PPS_NUT"
            case .accessUnitDelimiter: "AUD_NUT"
            case .endOfSequence: "EOS_NUT"
            case .endOfBitstream: "EOB_NUT"
            case .fillerData: "FD_NUT"
            case .prefixSEI: "PREFIX_SEI_NUT"
            case .suffixSEI: "SUFFIX_SEI_NUT"
            case .aggregationPacket: "AP"
            case .fragmentationUnit: "FU"
            case .payloadContentInformation: "PACI"
            default: "nal_unit_type(\(rawValue))"
            }
        }
    }

    /// The first two bytes of every NAL unit (H.265 §7.3.1.2 `nal_unit_header`), split into their four fields.
    public struct NALUnitHeader: Hashable, Sendable {
        /// Size of the header on the wire.
        public static let size = 2

        /// `forbidden_zero_bit`; reported rather than rejected (RFC 7798 §1.1.4 lets a network element set it).
        public var forbiddenZeroBit: Bool
        public var nalUnitType: NALUnitType
        /// `nuh_layer_id` (0...63): 0 for single-layer streams.
        public var nuhLayerId: UInt8
        /// `nuh_temporal_id_plus1` (1...7 in a conforming stream; 0 is reported as it is).
        public var nuhTemporalIdPlus1: UInt8

        /// Splits the two header bytes. Every byte pair is valid input.
        public init(_ first: UInt8, _ second: UInt8) {
            forbiddenZeroBit = first & 0x80 != 0
            nalUnitType = NALUnitType(rawValue: (first >> 1) & 0x3F)
            nuhLayerId = (first & 0x01) << 5 | second >> 3
            nuhTemporalIdPlus1 = second & 0x07
        }

        /// Reads the header at the start of `nalUnit`; nil when fewer than two bytes are there.
        public init?(_ nalUnit: some Collection<UInt8>) {
            var bytes = nalUnit.makeIterator()
            guard let first = bytes.next(), let second = bytes.next() else { return nil }
            self.init(first, second)
        }

        /// Builds a header from its fields, each masked to its width.
        public init(forbiddenZeroBit: Bool = false, nalUnitType: NALUnitType, nuhLayerId: UInt8 = 0, nuhTemporalIdPlus1: UInt8 = 1) {
            self.forbiddenZeroBit = forbiddenZeroBit
            self.nalUnitType = NALUnitType(rawValue: nalUnitType.rawValue & 0x3F)
            self.nuhLayerId = nuhLayerId & 0x3F
            self.nuhTemporalIdPlus1 = nuhTemporalIdPlus1 & 0x07
        }

        /// `TemporalId` (§7.4.2.2): nuh_temporal_id_plus1 − 1.
        public var temporalId: Int { Int(nuhTemporalIdPlus1) - 1 }

        /// The header as its two wire bytes.
        public var bytes: (UInt8, UInt8) {
            ((forbiddenZeroBit ? 0x80 : 0) | (nalUnitType.rawValue & 0x3F) << 1 | (nuhLayerId >> 5) & 0x01,
             (nuhLayerId & 0x1F) << 3 | (nuhTemporalIdPlus1 & 0x07))
        }
    }
}
