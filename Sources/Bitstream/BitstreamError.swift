import MediaCore

/// The one error type of the Bitstream module.
///
/// Modelled on swift-asn1's `ASN1Error`: an extensible `code` (compare on it in tests), a human `reason`, the byte
/// `offset` into the input where the problem was found (when there is one), and the call site that raised it.
/// Throw sites use `CodedError`'s factory: `throw .make(.truncated, "…", offset: 7)`.
public struct BitstreamError: ByteOffsetCodedError {
    public let code: Code
    public let reason: String
    /// Byte offset into the input that was being read, when known.
    public let offset: Int?
    public let file: String
    public let line: UInt

    public init(code: Code, reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.offset = offset
        self.file = file
        self.line = line
    }
}

extension ErrorCode where Owner == BitstreamError {
    /// The input ended in the middle of a structure (a length prefix, a header, an RBSP field).
    public static var truncated: Self { Self("truncated") }
    /// A length field points past the end of the input.
    public static var lengthPastEnd: Self { Self("lengthPastEnd") }
    /// A NAL unit of zero bytes where the format requires at least a header byte.
    public static var emptyNALUnit: Self { Self("emptyNALUnit") }
    /// Annex-B data that does not begin with a start code.
    public static var missingStartCode: Self { Self("missingStartCode") }
    /// A NAL unit length size other than 1, 2 or 4 (ISO/IEC 14496-15 §5.3.3.1.2).
    public static var invalidLengthSize: Self { Self("invalidLengthSize") }
    /// A NAL unit too large for the chosen length size.
    public static var nalUnitTooLarge: Self { Self("nalUnitTooLarge") }
    /// The caller's output buffer is too small.
    public static var outputTooSmall: Self { Self("outputTooSmall") }
    /// A field holds a value the specification forbids.
    public static var invalidValue: Self { Self("invalidValue") }
    /// A feature the specification allows but this implementation does not read.
    public static var unsupported: Self { Self("unsupported") }
    /// An Exp-Golomb code with more than 32 leading zero bits (H.264 §9.1).
    public static var expGolombTooLong: Self { Self("expGolombTooLong") }
    /// Bytes left over after a structure that must end the input.
    public static var trailingData: Self { Self("trailingData") }
    /// A reference to a parameter set that was not supplied (e.g. a slice naming an unknown PPS id).
    public static var missingParameterSet: Self { Self("missingParameterSet") }
    /// A hostile-input bound (named constant) was exceeded.
    public static var limitExceeded: Self { Self("limitExceeded") }
}
