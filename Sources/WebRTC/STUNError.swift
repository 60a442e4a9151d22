import MediaCore

/// The error of rtenc's STUN and ICE code (RFC 8489, RFC 8445, RFC 8839 candidate lines), shaped like `RTPError`:
/// an extensible `code` that tests compare on, a human `reason`, the byte `offset` where a parser stopped (when
/// there is one), and the call site. Every throw site goes through a static factory.
public struct STUNError: CodedError {
    public typealias Code = ErrorCode<STUNError>

    public let code: Code
    public let reason: String
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

    public var detail: String? { offset.map { "at byte \($0)" } }
}

extension ErrorCode where Owner == STUNError {
    /// The input ended in the middle of a structure (a header, an attribute, its padding).
    public static var truncated: Self { Self("truncated") }
    /// A field holds a value the RFC forbids (the top two bits of the type set, a length not a multiple of 4, an
    /// XOR-MAPPED-ADDRESS of the wrong size…).
    public static var invalidValue: Self { Self("invalidValue") }
    /// The magic cookie is not 0x2112A442: an RFC 3489 message, or not STUN at all.
    public static var notSTUN: Self { Self("notSTUN") }
    /// Bytes after the message the length field announces.
    public static var trailingData: Self { Self("trailingData") }
    /// FINGERPRINT is present and does not match the CRC-32 of the message (RFC 8489 §14.7).
    public static var fingerprintMismatch: Self { Self("fingerprintMismatch") }
    /// A value too large for its wire field (a username over 512 bytes, a message over 65 535 bytes…).
    public static var fieldOverflow: Self { Self("fieldOverflow") }
    /// A hostile-input bound (a named constant) was exceeded.
    public static var limitExceeded: Self { Self("limitExceeded") }
    /// An `a=candidate` line (RFC 8839 §5.1) or ICE credential that cannot be read.
    public static var invalidCandidate: Self { Self("invalidCandidate") }
    /// ICE credentials outside RFC 8839 §5.4 (ufrag 4–256, pwd 22–256 ice-chars).
    public static var invalidCredentials: Self { Self("invalidCredentials") }
}

extension STUNError {
    @inline(never)
    package static func truncated(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .truncated, reason: reason, offset: offset, file: file, line: line)
    }

    @inline(never)
    package static func invalidValue(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidValue, reason: reason, offset: offset, file: file, line: line)
    }

    @inline(never)
    package static func notSTUN(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .notSTUN, reason: reason, offset: offset, file: file, line: line)
    }

    @inline(never)
    package static func trailingData(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .trailingData, reason: reason, offset: offset, file: file, line: line)
    }

    @inline(never)
    package static func fingerprintMismatch(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .fingerprintMismatch, reason: reason, offset: offset, file: file, line: line)
    }

    @inline(never)
    package static func fieldOverflow(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .fieldOverflow, reason: reason, file: file, line: line)
    }

    @inline(never)
    package static func limitExceeded(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .limitExceeded, reason: reason, offset: offset, file: file, line: line)
    }

    @inline(never)
    package static func invalidCandidate(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidCandidate, reason: reason, file: file, line: line)
    }

    @inline(never)
    package static func invalidCredentials(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidCredentials, reason: reason, file: file, line: line)
    }
}
