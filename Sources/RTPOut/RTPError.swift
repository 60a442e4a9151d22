#if canImport(Glibc)
import Glibc
#endif

/// The one error type of the RTPOut module.
///
/// Shaped like `BitstreamError` (and swift-asn1's `ASN1Error`): an extensible `code` that tests compare on, a human
/// `reason`, the byte `offset` into the input where a parser stopped (when there is one), and the call site.
/// Every throw site goes through a static factory so they all read the same way.
public struct RTPError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The input ended in the middle of a structure.
        public static let truncated = Code("truncated")
        /// A field holds a value the RFC forbids (version ≠ 2, a length that does not add up, padding larger than
        /// the packet…).
        public static let invalidValue = Code("invalidValue")
        /// Something the RFC allows that this implementation does not handle (FU-B, MTAP, interleaved mode).
        public static let unsupported = Code("unsupported")
        /// The caller's output buffer is smaller than `marshalSize`.
        public static let outputTooSmall = Code("outputTooSmall")
        /// Bytes left over after a structure that must end the input.
        public static let trailingData = Code("trailingData")
        /// A value that does not fit its wire field (more than 15 CSRCs, an extension element of 17 bytes…).
        public static let fieldOverflow = Code("fieldOverflow")
        /// A NAL unit that cannot be carried with the configured packetization mode and payload size.
        public static let nalUnitTooLarge = Code("nalUnitTooLarge")
        /// An RFC 6184 payload that breaks the payload format's rules (nested aggregation, empty units…).
        public static let malformedPayload = Code("malformedPayload")
        /// A hostile-input bound (a named constant) was exceeded.
        public static let limitExceeded = Code("limitExceeded")
        /// SDP text that cannot be read.
        public static let invalidSDP = Code("invalidSDP")
        /// A system call failed; `reason` names the call and says what errno means (strerror), `errno` holds it.
        public static let system = Code("system")
        /// The sender or receiver was closed.
        public static let closed = Code("closed")
    }

    public let code: Code
    public let reason: String
    public let offset: Int?
    /// The C `errno` behind a `.system` error (EADDRINUSE for a port already taken…), nil otherwise.
    public let errno: Int32?
    public let file: String
    public let line: UInt

    public init(code: Code, reason: String, offset: Int? = nil, errno: Int32? = nil, file: String = #fileID,
                line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.offset = offset
        self.errno = errno
        self.file = file
        self.line = line
    }

    public var description: String {
        if let offset { return "\(code): \(reason) (at byte \(offset))" }
        return "\(code): \(reason)"
    }
}

extension RTPError {
    @inline(never)
    static func truncated(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .truncated, reason: reason, offset: offset, file: file, line: line)
    }

    @inline(never)
    static func invalidValue(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidValue, reason: reason, offset: offset, file: file, line: line)
    }

    @inline(never)
    static func unsupported(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .unsupported, reason: reason, offset: offset, file: file, line: line)
    }

    @inline(never)
    static func outputTooSmall(need: Int, have: Int, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .outputTooSmall, reason: "need \(need) bytes, buffer has \(have)", file: file, line: line)
    }

    @inline(never)
    static func trailingData(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .trailingData, reason: reason, offset: offset, file: file, line: line)
    }

    @inline(never)
    static func fieldOverflow(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .fieldOverflow, reason: reason, file: file, line: line)
    }

    @inline(never)
    static func malformedPayload(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .malformedPayload, reason: reason, offset: offset, file: file, line: line)
    }

    @inline(never)
    static func limitExceeded(_ reason: String, offset: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .limitExceeded, reason: reason, offset: offset, file: file, line: line)
    }

    @inline(never)
    static func invalidSDP(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidSDP, reason: reason, file: file, line: line)
    }

    @inline(never)
    /// "bind 0.0.0.0:5004 failed: Address already in use": strerror's text, never a bare number, for every errno.
    static func system(_ call: String, errno code: Int32, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .system, reason: "\(call) failed: \(String(cString: strerror(code)))", errno: code, file: file, line: line)
    }
}
