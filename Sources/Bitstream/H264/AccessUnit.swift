extension H264 {
    /// The NAL units of one access unit (§7.4.1.2.3): one primary coded picture plus the parameter sets, SEI and
    /// delimiters in front of it and anything that trails it. The NAL units are the caller's slices, not copies.
    public struct AccessUnit: Sendable {
        public var nalUnits: [ArraySlice<UInt8>]
        /// Header of the first slice of the primary coded picture, when its PPS and SPS were known and it parsed.
        public var firstSliceHeader: SliceHeader?
        /// Why `firstSliceHeader` is nil when the access unit has a slice (missing parameter set, bad data).
        public var sliceHeaderError: BitstreamError?
        /// The type of the primary picture: B if any parsed slice of it is B, else P if any is P or SP, else I.
        public var primarySliceType: SliceType?

        public init(
            nalUnits: [ArraySlice<UInt8>], firstSliceHeader: SliceHeader? = nil, sliceHeaderError: BitstreamError? = nil,
            primarySliceType: SliceType? = nil
        ) {
            self.nalUnits = nalUnits
            self.firstSliceHeader = firstSliceHeader
            self.sliceHeaderError = sliceHeaderError
            self.primarySliceType = primarySliceType
        }

        /// Whether the access unit carries an IDR picture (a NAL unit of type 5).
        public var isIDR: Bool {
            nalUnits.contains { $0.first.map { NALUnitHeader($0).nalUnitType == .idr } ?? false }
        }

        /// SliceQPY of the first slice of the primary picture.
        public var qp: Int? { firstSliceHeader?.qp }

        /// Total size in bytes of the NAL units (without start codes or length prefixes).
        public var byteCount: Int { nalUnits.reduce(0) { $0 + $1.count } }

        public var nalUnitTypes: [NALUnitType] {
            nalUnits.compactMap { $0.first.map { NALUnitHeader($0).nalUnitType } }
        }
    }
}

extension H264.AccessUnit: Encodable {
    enum CodingKeys: String, CodingKey {
        case nalUnitTypes = "nal_unit_types"
        case isIDR = "idr"
        case primarySliceType = "primary_slice_type"
        case qp
        case byteCount = "byte_count"
        case firstSliceHeader = "first_slice_header"
        case sliceHeaderError = "slice_header_error"
    }

    /// A summary for `rtenc inspect`: the NAL unit types, IDR flag, picture type, QP, size and first slice header.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(nalUnitTypes.map(\.rawValue), forKey: .nalUnitTypes)
        try c.encode(isIDR, forKey: .isIDR)
        try c.encodeIfPresent(primarySliceType?.name, forKey: .primarySliceType)
        try c.encodeIfPresent(qp, forKey: .qp)
        try c.encode(byteCount, forKey: .byteCount)
        try c.encodeIfPresent(firstSliceHeader, forKey: .firstSliceHeader)
        try c.encodeIfPresent(sliceHeaderError.map(\.description), forKey: .sliceHeaderError)
    }
}
