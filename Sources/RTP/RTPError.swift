import MediaCore

/// The one error type of rtenc's RTP: the pure `RTP` module and its I/O edge `RTPOut` (which adds `system`, with
/// strerror's text).
///
/// Shaped like `BitstreamError` (and swift-asn1's `ASN1Error`): an extensible `code` that tests compare on, a human
/// `reason`, the byte `offset` into the input where a parser stopped (when there is one), and the call site.
/// Throw sites use `CodedError`'s factory: `throw .make(.truncated, "…", offset: 3)`.
public struct RTPError: ByteOffsetCodedError {
    public let code: Code
    public let reason: String
    public let offset: Int?
    /// The C `errno` behind a `.system` error (EADDRINUSE for a port already taken…), nil otherwise.
    public let errno: Int32?
    public let file: String
    public let line: UInt

    public init(code: Code, reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) {
        self.init(code: code, reason: reason, offset: offset, errno: nil, file: file, line: line)
    }

    public init(code: Code, reason: String, offset: Int? = nil, errno: Int32?, file: String = #fileID,
                line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.offset = offset
        self.errno = errno
        self.file = file
        self.line = line
    }
}

extension ErrorCode where Owner == RTPError {
    /// The input ended in the middle of a structure.
    public static var truncated: Self { Self("truncated") }
    /// A field holds a value the RFC forbids (version ≠ 2, a length that does not add up, padding larger than
    /// the packet…).
    public static var invalidValue: Self { Self("invalidValue") }
    /// Something the RFC allows that this implementation does not handle (FU-B, MTAP, interleaved mode).
    public static var unsupported: Self { Self("unsupported") }
    /// The caller's output buffer is smaller than `marshalSize`.
    public static var outputTooSmall: Self { Self("outputTooSmall") }
    /// Bytes left over after a structure that must end the input.
    public static var trailingData: Self { Self("trailingData") }
    /// A value that does not fit its wire field (more than 15 CSRCs, an extension element of 17 bytes…).
    public static var fieldOverflow: Self { Self("fieldOverflow") }
    /// A NAL unit that cannot be carried with the configured packetization mode and payload size.
    public static var nalUnitTooLarge: Self { Self("nalUnitTooLarge") }
    /// An RFC 6184 payload that breaks the payload format's rules (nested aggregation, empty units…).
    public static var malformedPayload: Self { Self("malformedPayload") }
    /// A hostile-input bound (a named constant) was exceeded.
    public static var limitExceeded: Self { Self("limitExceeded") }
    /// SDP text that cannot be read.
    public static var invalidSDP: Self { Self("invalidSDP") }
    /// A system call failed; `reason` names the call and says what errno means (strerror), `errno` holds it.
    public static var system: Self { Self("system") }
    /// The sender or receiver was closed.
    public static var closed: Self { Self("closed") }
}

extension RTPError {
    @inline(never)
    package static func outputTooSmall(need: Int, have: Int, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .outputTooSmall, reason: "need \(need) bytes, buffer has \(have)", file: file, line: line)
    }
}
