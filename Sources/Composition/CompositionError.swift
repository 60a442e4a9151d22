import MediaIO
import Timeline

/// The one error type of the Composition module, the engine (shaped like `MediaIOError`): an extensible `code` for tests to
/// compare, a `reason` a person can act on, the JSON path it concerns when it came from a timeline document
/// (`$.items[2].speed`), and the call site.
public struct CompositionError: CodedError {
    public let code: Code
    public let reason: String
    /// Where in the timeline document the problem is, as a JSONPath (`$` is the document), when it is there.
    public let path: String?
    /// The MediaIO error behind a `.source` failure.
    public let underlying: MediaIOError?
    public let file: String
    public let line: UInt

    public init(
        code: Code, reason: String, path: String? = nil, underlying: MediaIOError? = nil,
        file: String = #fileID, line: UInt = #line
    ) {
        self.code = code
        self.reason = reason
        self.path = path
        self.underlying = underlying
        self.file = file
        self.line = line
    }

    public init(code: Code, reason: String, file: String, line: UInt) {
        self.init(code: code, reason: reason, path: nil, file: file, line: line)
    }

    /// "path: reason: underlying", leaving out what is empty.
    public var description: String {
        [path, reason.isEmpty ? nil : reason, underlying.map { "\($0)" }].compactMap { $0 }.joined(separator: ": ")
    }
}

extension CompositionError {
    /// The engine's form of a timeline error: the same code, reason, path and call site.
    public init(_ error: TimelineError) {
        self.init(code: Code(error.code.name), reason: error.reason, path: error.path, file: error.file, line: error.line)
    }

    @inline(never)
    static func source(_ path: String, _ reason: String, _ underlying: MediaIOError,
                       file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .source, reason: reason, path: path, underlying: underlying, file: file, line: line)
    }
}

extension ErrorCode where Owner == CompositionError {
    // The first five are `TimelineError`'s codes, which the engine passes on (`init(_:)`).
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
    /// A legal timeline feature this build does not render yet; the reason says what to do instead.
    public static var unsupported: Self { Self("unsupported") }
    /// A source could not be opened or decoded (the MediaIO error is in `underlying`).
    public static var source: Self { Self("source") }
    /// Live playback refused: the timeline asks for more than real time affords (a reverse clip whose
    /// keyframes are too far apart, `LiveReverseBudget`); the reason says how to fix it. Offline it renders.
    public static var liveBudget: Self { Self("liveBudget") }
    /// A frame handed to a public kernel (`LumaMap.wipe`) is not the I420 layout it needs.
    public static var layout: Self { Self("layout") }
}
