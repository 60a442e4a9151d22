// The one-byte NAL unit header, H.264 §7.3.1:
//
//   0 1 2 3 4 5 6 7
//  +-+-+-+-+-+-+-+-+
//  |F|NRI|  Type   |     F = forbidden_zero_bit, NRI = nal_ref_idc, Type = nal_unit_type
//  +-+-+-+-+-+-+-+-+

/// `nal_unit_type` (H.264 Table 7-1, plus the RTP packetization types of RFC 6184 §5.2).
///
/// A struct rather than an enum so that every 5-bit value is representable: an unknown or reserved type is simply
/// a value without a name, never a trap or a failed initializer.
public struct NALUnitType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 5-bit `nal_unit_type` value (0...31).
    public var rawValue: UInt8

    /// Wraps a value as it is; callers reading a header byte should go through `NALUnitHeader`, which masks it.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 1: coded slice of a non-IDR picture, `slice_layer_without_partitioning_rbsp`.
    public static let slice = Self(rawValue: 1)
    /// 2: coded slice data partition A.
    public static let sliceDataPartitionA = Self(rawValue: 2)
    /// 3: coded slice data partition B.
    public static let sliceDataPartitionB = Self(rawValue: 3)
    /// 4: coded slice data partition C.
    public static let sliceDataPartitionC = Self(rawValue: 4)
    /// 5: coded slice of an IDR picture.
    public static let idr = Self(rawValue: 5)
    /// 6: supplemental enhancement information.
    public static let sei = Self(rawValue: 6)
    /// 7: sequence parameter set.
    public static let sps = Self(rawValue: 7)
    /// 8: picture parameter set.
    public static let pps = Self(rawValue: 8)
    /// 9: access unit delimiter.
    public static let accessUnitDelimiter = Self(rawValue: 9)
    /// 10: end of sequence.
    public static let endOfSequence = Self(rawValue: 10)
    /// 11: end of stream.
    public static let endOfStream = Self(rawValue: 11)
    /// 12: filler data.
    public static let fillerData = Self(rawValue: 12)
    /// 13: sequence parameter set extension.
    public static let spsExtension = Self(rawValue: 13)
    /// 14: prefix NAL unit (Annex G/H).
    public static let prefix = Self(rawValue: 14)
    /// 15: subset sequence parameter set (Annex G/H).
    public static let subsetSPS = Self(rawValue: 15)
    /// 19: coded slice of an auxiliary coded picture without partitioning.
    public static let auxiliarySlice = Self(rawValue: 19)
    /// 20: coded slice extension (Annex G/H).
    public static let sliceExtension = Self(rawValue: 20)
    /// 24: RFC 6184 §5.7.1 single-time aggregation packet A.
    public static let stapA = Self(rawValue: 24)
    /// 25: RFC 6184 §5.7.1 single-time aggregation packet B.
    public static let stapB = Self(rawValue: 25)
    /// 26: RFC 6184 §5.7.2 multi-time aggregation packet, 16-bit timestamp offset.
    public static let mtap16 = Self(rawValue: 26)
    /// 27: RFC 6184 §5.7.2 multi-time aggregation packet, 24-bit timestamp offset.
    public static let mtap24 = Self(rawValue: 27)
    /// 28: RFC 6184 §5.8 fragmentation unit A.
    public static let fuA = Self(rawValue: 28)
    /// 29: RFC 6184 §5.8 fragmentation unit B.
    public static let fuB = Self(rawValue: 29)

    /// True for the VCL types of Table 7-1, Annex A column (1...5): the NAL units that carry slice data.
    public var isVCL: Bool { (1...5).contains(rawValue) }

    public var description: String {
        switch self {
        case .slice: "slice"
        case .sliceDataPartitionA: "sliceDataPartitionA"
        case .sliceDataPartitionB: "sliceDataPartitionB"
        case .sliceDataPartitionC: "sliceDataPartitionC"
        case .idr: "idr"
        case .sei: "sei"
        case .sps: "sps"
        case .pps: "pps"
        case .accessUnitDelimiter: "accessUnitDelimiter"
        case .endOfSequence: "endOfSequence"
        case .endOfStream: "endOfStream"
        case .fillerData: "fillerData"
        case .spsExtension: "spsExtension"
        case .prefix: "prefix"
        case .subsetSPS: "subsetSPS"
        case .auxiliarySlice: "auxiliarySlice"
        case .sliceExtension: "sliceExtension"
        case .stapA: "stapA"
        case .stapB: "stapB"
        case .mtap16: "mtap16"
        case .mtap24: "mtap24"
        case .fuA: "fuA"
        case .fuB: "fuB"
        default: "nalUnitType(\(rawValue))"
        }
    }
}

/// The first byte of every NAL unit (H.264 §7.3.1 `nal_unit`), split into its three fields.
public struct NALUnitHeader: Hashable, Sendable {
    /// `forbidden_zero_bit`; a conforming stream has it clear. RFC 6184 §5.3 lets a network element set it to flag
    /// a NAL unit with bit errors, so it is reported rather than rejected.
    public var forbiddenZeroBit: Bool
    /// `nal_ref_idc` (0...3): zero for NAL units not used for reference.
    public var nalRefIdc: UInt8
    /// `nal_unit_type`.
    public var nalUnitType: NALUnitType

    /// Splits a header byte. Every byte value is valid input.
    public init(_ byte: UInt8) {
        forbiddenZeroBit = byte & 0x80 != 0
        nalRefIdc = (byte >> 5) & 0x03
        nalUnitType = NALUnitType(rawValue: byte & 0x1F)
    }

    /// Builds a header from its fields; `nalRefIdc` is masked to 2 bits and the type to 5 bits.
    public init(forbiddenZeroBit: Bool = false, nalRefIdc: UInt8, nalUnitType: NALUnitType) {
        self.forbiddenZeroBit = forbiddenZeroBit
        self.nalRefIdc = nalRefIdc & 0x03
        self.nalUnitType = NALUnitType(rawValue: nalUnitType.rawValue & 0x1F)
    }

    /// The header as its wire byte.
    public var byte: UInt8 {
        (forbiddenZeroBit ? 0x80 : 0) | (nalRefIdc & 0x03) << 5 | (nalUnitType.rawValue & 0x1F)
    }
}
