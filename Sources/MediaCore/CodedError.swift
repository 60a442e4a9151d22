/// The code of one module's error type `Owner`, after swift-asn1's `ASN1Error.ErrorCode`: a name compared by value,
/// extensible (a struct, not a frozen enum, so a new code is not source-breaking), and a different type per module,
/// so `BitstreamError.Code.truncated` and `RTPError.Code.truncated` cannot be mixed up.
///
/// A module declares `public typealias Code = ErrorCode<ItsError>` and its codes as static members of
/// `extension ErrorCode where Owner == ItsError` (computed: a generic type holds no static stored properties; each is
/// a small string, built when a throw site asks for it).
public struct ErrorCode<Owner>: Hashable, Sendable, CustomStringConvertible {
    public let name: String

    public init(_ name: String) { self.name = name }

    public var description: String { name }
}

/// The shape every module's one error type shares (STYLE.md §3): a `code` tests compare on, a human `reason`, and
/// the call site that raised it (`#fileID`, the line under the name each type gives it). Each module keeps its own
/// type with its own name, codes and context (a byte offset, a libav status, a trace line); the plumbing — the code
/// type, the factory every throw site uses, the description — is here, once.
///
/// A throw site names the code: `throw .make(.truncated, "RTP header needs 12 bytes")`. A type with context adds an
/// initializer (or, for a byte offset, adopts `ByteOffsetCodedError`) rather than a factory per code.
public protocol CodedError: Error, Sendable, CustomStringConvertible {
    /// This type's codes: `extension ErrorCode where Owner == ItsError { public static var … }`.
    typealias Code = ErrorCode<Self>

    var code: Code { get }
    var reason: String { get }
    /// What goes in parentheses after the reason in the default description ("at byte 12"); nil: nothing.
    var detail: String? { get }
    /// The file that raised the error (`#fileID`).
    var file: String { get }

    /// The error with no context: every field the type adds (an offset, a status) at its "none". `line` is the call
    /// site's line, whatever the type calls it.
    init(code: Code, reason: String, file: String, line: UInt)
}

extension CodedError {
    public var detail: String? { nil }

    /// "code: reason", or "code: reason (detail)".
    public var description: String {
        if let detail { return "\(code): \(reason) (\(detail))" }
        return "\(code): \(reason)"
    }

    /// The one factory of every module's throw sites: `throw .make(.invalidValue, "version 3")`.
    @inline(never)
    public static func make(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: code, reason: reason, file: file, line: line)
    }
}

/// A `CodedError` of a parser that says where in its input it stopped: the byte `offset`, "(at byte 12)" in the
/// description.
public protocol ByteOffsetCodedError: CodedError {
    /// Byte offset into the input that was being read, when known.
    var offset: Int? { get }

    init(code: Code, reason: String, offset: Int?, file: String, line: UInt)
}

extension ByteOffsetCodedError {
    public var detail: String? { offset.map { "at byte \($0)" } }

    public init(code: Code, reason: String, file: String, line: UInt) {
        self.init(code: code, reason: reason, offset: nil, file: file, line: line)
    }

    /// `throw .make(.truncated, "header ends early", offset: 7)`.
    @inline(never)
    public static func make(
        _ code: Code, _ reason: String, offset: Int?, file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(code: code, reason: reason, offset: offset, file: file, line: line)
    }
}

/// The error type of a module whose errors carry no context beyond code, reason and call site: the module names it
/// (`public enum DTLSErrorDomain {}`, `public typealias DTLSError = PlainCodedError<DTLSErrorDomain>`) and declares
/// its codes on it (`extension ErrorCode where Owner == DTLSError`), so it is still its own type with its own codes —
/// without a copy of these four fields and their initializer.
public struct PlainCodedError<Domain>: CodedError {
    public let code: Code
    public let reason: String
    public let file: String
    public let line: UInt

    public init(code: Code, reason: String, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }
}
