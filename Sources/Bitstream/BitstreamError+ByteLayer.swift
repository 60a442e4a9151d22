import MediaCore

// Error codes and factories of the byte layer (Annex-B, AVCC, avcC).
// The codes themselves live in BitstreamError.swift; the factories below keep every throw site in the byte layer
// reading the same way. Codes shared with the syntax layer (.truncated, .invalidValue, .trailingData,
// .limitExceeded) are built with the shared factories or the initializer, so the two layers never declare the
// same factory twice.

extension ErrorCode where Owner == BitstreamError {
    /// An in-place Annex-B → AVCC rewrite met a start code with fewer than four bytes in front of its NAL unit,
    /// so the 4-byte length prefix does not fit. Convert into a separate buffer instead.
    public static var shortStartCode: Self { Self("shortStartCode") }
}

extension BitstreamError {
    /// A `.lengthPastEnd` error: a length prefix promises more bytes than follow.
    @inline(never)
    public static func lengthPastEnd(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .lengthPastEnd, reason: reason, offset: offset, file: file, line: line)
    }

    /// An `.emptyNALUnit` error: a zero length, or a start code with no NAL unit after it.
    @inline(never)
    public static func emptyNALUnit(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .emptyNALUnit, reason: reason, offset: offset, file: file, line: line)
    }

    /// A `.missingStartCode` error: Annex-B data with something other than zero bytes before its first start code.
    @inline(never)
    public static func missingStartCode(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .missingStartCode, reason: reason, offset: offset, file: file, line: line)
    }

    /// An `.invalidLengthSize` error for a NAL unit length size other than 1, 2 or 4.
    @inline(never)
    public static func invalidLengthSize(_ lengthSize: Int, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(
            code: .invalidLengthSize,
            reason: "NAL unit length size \(lengthSize) is not 1, 2 or 4 (ISO/IEC 14496-15 §5.3.3.1.2)",
            offset: offset, file: file, line: line
        )
    }

    /// A `.nalUnitTooLarge` error: a NAL unit longer than its length field can say.
    @inline(never)
    public static func nalUnitTooLarge(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .nalUnitTooLarge, reason: reason, offset: offset, file: file, line: line)
    }

    /// An `.outputTooSmall` error: the caller's buffer has `available` bytes where `needed` are required.
    @inline(never)
    public static func outputTooSmall(needed: Int, available: Int, file: String = #fileID, line: UInt = #line) -> Self {
        .init(
            code: .outputTooSmall,
            reason: "output buffer holds \(available) bytes, \(needed) needed",
            file: file, line: line
        )
    }

    /// A `.shortStartCode` error: see `BitstreamError.Code.shortStartCode`.
    @inline(never)
    public static func shortStartCode(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .shortStartCode, reason: reason, offset: offset, file: file, line: line)
    }
}
