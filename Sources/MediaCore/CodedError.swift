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
/// type with its own context (a byte offset, a libav status, a trace line) and its own factories.
public protocol CodedError: Error, Sendable, CustomStringConvertible {
    var code: ErrorCode<Self> { get }
    var reason: String { get }
    /// What goes in parentheses after the reason in the default description ("at byte 12"); nil: nothing.
    var detail: String? { get }
    /// The file that raised the error (`#fileID`).
    var file: String { get }
}

extension CodedError {
    public var detail: String? { nil }

    /// "code: reason", or "code: reason (detail)".
    public var description: String {
        if let detail { return "\(code): \(reason) (\(detail))" }
        return "\(code): \(reason)"
    }
}
