/// Something a parser accepted although the specification says otherwise: kept, and reported here.
///
/// The rule is FFmpeg's (libavcodec/h264_ps.c): refuse what cannot be decoded, accept what real encoders write.
/// OpenH264 writes log2_max_mv_length_horizontal = 16 where §E.2.1 allows 0…15; peers send a VUI cut short. Such a
/// value derives nothing the decoder needs, so the parse keeps it and adds one of these, naming the syntax element
/// and the reason, instead of throwing a `BitstreamError`.
public struct BitstreamWarning: Hashable, Sendable, CustomStringConvertible {
    /// What kind of leniency this is. An extensible struct, like `BitstreamError.Code`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A value outside the range the specification allows, kept as read because nothing derived depends on it.
        public static let outOfRange = Code("outOfRange")
        /// A value the specification reserves for future use, kept as read.
        public static let reservedValue = Code("reservedValue")
        /// A structure (vui_parameters()) that ends before its last field: cut short, or its fields run past the
        /// rbsp_stop_one_bit. Every field read before the damage is kept; the rest are absent.
        public static let truncated = Code("truncated")
        /// Bits between the last syntax element and the rbsp_stop_one_bit, or non-zero bytes after the trailing bits.
        public static let trailingData = Code("trailingData")
    }

    public let code: Code
    /// The syntax element as the specification spells it (`log2_max_mv_length_horizontal`, `vui_parameters`).
    public let syntaxElement: String
    public let reason: String
    /// Byte offset into the RBSP where the element starts, when known.
    public let offset: Int?

    public init(code: Code, syntaxElement: String, reason: String, offset: Int? = nil) {
        self.code = code
        self.syntaxElement = syntaxElement
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        offset.map { "\(syntaxElement): \(reason) (at byte \($0))" } ?? "\(syntaxElement): \(reason)"
    }
}

extension BitstreamWarning: Encodable {
    enum CodingKeys: String, CodingKey {
        case code
        case syntaxElement = "syntax_element"
        case reason, offset
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code.name, forKey: .code)
        try c.encode(syntaxElement, forKey: .syntaxElement)
        try c.encode(reason, forKey: .reason)
        try c.encodeIfPresent(offset, forKey: .offset)
    }
}

extension BitstreamWarning {
    /// `lengthSizeMinusOne` 2 in an avcC or hvcC: 3-byte NAL unit lengths, which ISO/IEC 14496-15 reserves but
    /// FFmpeg's decoders and `*_mp4toannexb` filters read. `offset` is the byte's offset in the record.
    static func reservedLengthSize(offset: Int) -> Self {
        BitstreamWarning(
            code: .reservedValue, syntaxElement: "lengthSizeMinusOne",
            reason: "2 (3-byte NAL unit lengths, reserved by ISO/IEC 14496-15), read as FFmpeg reads it", offset: offset)
    }
}
