import MediaCore

/// The one error type of the Timeline module (the format and its planner): an extensible `code` for tests to
/// compare, a `reason` a person can act on, the JSON path it concerns when it came from a timeline document
/// (`$.items[2].speed`), and the call site. Composition's engine turns it into a `CompositionError` of the same code
/// (`CompositionError.init(_:)`), so an embedder that plays a timeline handles one error type.
public struct TimelineError: CodedError {
    public let code: Code
    public let reason: String
    /// Where in the timeline document the problem is, as a JSONPath (`$` is the document), when it is there.
    public let path: String?
    public let file: String
    public let line: UInt

    public init(code: Code, reason: String, path: String? = nil, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.path = path
        self.file = file
        self.line = line
    }

    public init(code: Code, reason: String, file: String, line: UInt) {
        self.init(code: code, reason: reason, path: nil, file: file, line: line)
    }

    /// "path: reason", leaving out what is empty (the path is what a person fixes, so it leads).
    public var description: String {
        [path, reason.isEmpty ? nil : reason].compactMap { $0 }.joined(separator: ": ")
    }
}

extension ErrorCode where Owner == TimelineError {
    /// The document is not JSON (RFC 8259): the reason says where and what was expected.
    public static var syntax: Self { Self("syntax") }
    /// JSON, but not a timeline: a missing or unknown key, a value of the wrong type or out of range.
    public static var invalidTimeline: Self { Self("invalidTimeline") }
    /// A `version` this build does not read.
    public static var unsupportedVersion: Self { Self("unsupportedVersion") }
    /// The timeline cannot be planned: a transition longer than a neighbour, overlapping transitions.
    public static var unplannable: Self { Self("unplannable") }
    /// A hostile-input bound (named constant) was exceeded.
    public static var limitExceeded: Self { Self("limitExceeded") }
}

extension TimelineError {
    @inline(never)
    package static func invalid(_ path: JSONPath, _ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidTimeline, reason: reason, path: path.description, file: file, line: line)
    }

    @inline(never)
    package static func unplannable(_ path: String?, _ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .unplannable, reason: reason, path: path, file: file, line: line)
    }
}
