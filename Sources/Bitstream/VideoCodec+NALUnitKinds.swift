extension VideoCodec {
    /// The nal_unit_types of the parameter sets a decoder needs before a random-access picture, in the order they
    /// go in front of it: H.264 SPS (7), PPS (8); H.265 VPS (32), SPS (33), PPS (34).
    public var parameterSetNALUnitTypes: [UInt8] {
        switch self {
        case .h264: [7, 8]
        case .hevc: [32, 33, 34]
        }
    }

    /// Whether nal_unit_type `type` is a slice of a picture that is not a random-access point, which decodes only
    /// from one before it: H.264 coded slices and data partitions of non-IDR pictures (1…4); H.265 VCL NAL units
    /// (0…31) outside the IRAP range 16…23.
    public func isNonRandomAccessSlice(nalUnitType type: UInt8) -> Bool {
        switch self {
        case .h264: (1...4).contains(type)
        case .hevc: type < 32 && !isRandomAccessSlice(nalUnitType: type)
        }
    }

    /// Whether nal_unit_type `type` is a slice of a random-access picture: an IDR slice (5) in H.264, an IRAP
    /// slice (BLA, IDR, CRA: 16…23) in H.265.
    public func isRandomAccessSlice(nalUnitType type: UInt8) -> Bool {
        switch self {
        case .h264: type == 5
        case .hevc: (16...23).contains(type)
        }
    }

    /// Whether nal_unit_type `type` is a VCL NAL unit (coded slice data): H.264 1…5, H.265 0…31.
    public func isVCL(nalUnitType type: UInt8) -> Bool {
        switch self {
        case .h264: (1...5).contains(type)
        case .hevc: type < 32
        }
    }

    /// nal_unit_type of the access unit delimiter: H.264 9, H.265 35 (AUD_NUT).
    public var accessUnitDelimiterNALUnitType: UInt8 {
        switch self {
        case .h264: 9
        case .hevc: 35
        }
    }
}
