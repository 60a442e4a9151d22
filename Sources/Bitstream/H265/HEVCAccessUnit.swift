extension HEVC {
    /// The NAL units of one access unit (§7.4.2.4.4): one coded picture of the base layer plus the parameter
    /// sets, SEI and delimiters in front of it and the suffix SEI, end of sequence/bitstream that trail it. The NAL
    /// units are the caller's slices, not copies.
    public struct AccessUnit: Sendable {
        public var nalUnits: [ArraySlice<UInt8>]
        /// Header of the first slice segment of the picture, when its PPS and SPS were known and it parsed.
        public var firstSliceSegmentHeader: SliceSegmentHeader?
        /// Why `firstSliceSegmentHeader` is nil when the access unit has a slice (missing parameter set, bad data).
        public var sliceHeaderError: BitstreamError?
        /// The type of the picture: B if any parsed slice of it is B, else P if any is P, else I.
        public var pictureSliceType: SliceType?

        public init(
            nalUnits: [ArraySlice<UInt8>], firstSliceSegmentHeader: SliceSegmentHeader? = nil,
            sliceHeaderError: BitstreamError? = nil, pictureSliceType: SliceType? = nil
        ) {
            self.nalUnits = nalUnits
            self.firstSliceSegmentHeader = firstSliceSegmentHeader
            self.sliceHeaderError = sliceHeaderError
            self.pictureSliceType = pictureSliceType
        }

        public var nalUnitTypes: [NALUnitType] { nalUnits.compactMap { NALUnitHeader($0)?.nalUnitType } }

        /// Whether the picture is an intra random access point (IDR, CRA or BLA; nal_unit_type 16…23).
        public var isIRAP: Bool { nalUnitTypes.contains { $0.isIRAP } }
        /// Whether the picture is an IDR (nal_unit_type 19 or 20).
        public var isIDR: Bool { nalUnitTypes.contains { $0.isIDR } }

        /// SliceQpY of the first slice segment of the picture.
        public var qp: Int? { firstSliceSegmentHeader?.sliceQpY }

        /// Total size in bytes of the NAL units (without start codes or length prefixes).
        public var byteCount: Int { nalUnits.reduce(0) { $0 + $1.count } }
    }
}

extension HEVC.AccessUnit: Encodable {
    enum CodingKeys: String, CodingKey {
        case nalUnitTypes = "nal_unit_types"
        case isIRAP = "irap"
        case isIDR = "idr"
        case pictureSliceType = "picture_slice_type"
        case qp
        case byteCount = "byte_count"
        case firstSliceSegmentHeader = "first_slice_segment_header"
        case sliceHeaderError = "slice_header_error"
    }

    /// A summary for `rtenc inspect`: the NAL unit types, IRAP/IDR flags, picture type, QP, size, first header.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(nalUnitTypes.map(\.rawValue), forKey: .nalUnitTypes)
        try c.encode(isIRAP, forKey: .isIRAP)
        try c.encode(isIDR, forKey: .isIDR)
        try c.encodeIfPresent(pictureSliceType?.name, forKey: .pictureSliceType)
        try c.encodeIfPresent(qp, forKey: .qp)
        try c.encode(byteCount, forKey: .byteCount)
        try c.encodeIfPresent(firstSliceSegmentHeader, forKey: .firstSliceSegmentHeader)
        try c.encodeIfPresent(sliceHeaderError.map(\.description), forKey: .sliceHeaderError)
    }
}
