import MediaCore

// Error codes of the byte layer (Annex-B, AVCC, avcC), and the two factories that write their own reason.
// The other codes live in BitstreamError.swift; throw sites use `CodedError`'s `make`.

extension ErrorCode where Owner == BitstreamError {
    /// An in-place Annex-B → AVCC rewrite met a start code with fewer than four bytes in front of its NAL unit,
    /// so the 4-byte length prefix does not fit. Convert into a separate buffer instead.
    public static var shortStartCode: Self { Self("shortStartCode") }
}

extension BitstreamError {
    /// An `.invalidLengthSize` error for a NAL unit length size other than 1, 2 or 4.
    @inline(never)
    public static func invalidLengthSize(_ lengthSize: Int, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(
            code: .invalidLengthSize,
            reason: "NAL unit length size \(lengthSize) is not 1, 2 or 4 (ISO/IEC 14496-15 §5.3.3.1.2)",
            offset: offset, file: file, line: line
        )
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
}
