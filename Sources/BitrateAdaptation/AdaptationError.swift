import MediaCore

/// The one error type of the BitrateAdaptation module.
///
/// Shaped like the other modules' errors (swift-asn1's `ASN1Error`): an extensible `code` that tests compare on, a
/// human `reason`, the call site, and — for a trace file — the 1-based line it is about.
public struct AdaptationError: CodedError {
    public let code: Code
    public let reason: String
    /// 1-based line of the trace file, when the error is about one.
    public let line: Int?
    public let file: String
    public let sourceLine: UInt

    public init(code: Code, reason: String, line: Int? = nil, file: String = #fileID, sourceLine: UInt = #line) {
        self.code = code
        self.reason = reason
        self.line = line
        self.file = file
        self.sourceLine = sourceLine
    }

    /// `CodedError`'s plain error: `line` here is the call site's (`sourceLine`), not a trace line.
    public init(code: Code, reason: String, file: String, line: UInt) {
        self.init(code: code, reason: reason, line: nil, file: file, sourceLine: line)
    }

    public var description: String {
        if let line { return "line \(line): \(reason)" }
        return reason
    }
}

extension ErrorCode where Owner == AdaptationError {
    /// A trace has no data rows.
    public static var emptyTrace: Self { Self("emptyTrace") }
    /// A trace row does not have exactly two comma-separated fields.
    public static var wrongFieldCount: Self { Self("wrongFieldCount") }
    /// A trace field is not a finite decimal number.
    public static var invalidNumber: Self { Self("invalidNumber") }
    /// Trace times must start at 0 and increase strictly.
    public static var timeNotIncreasing: Self { Self("timeNotIncreasing") }
    /// A target bitrate outside `Scenario.bitRateRange`, or a time beyond `Scenario.maximumDuration`.
    public static var outOfRange: Self { Self("outOfRange") }
    /// A hostile-input bound (named constant) was exceeded.
    public static var limitExceeded: Self { Self("limitExceeded") }
    /// A caller passed a value that cannot work (zero duration, zero frame rate, unknown scenario name).
    public static var invalidArgument: Self { Self("invalidArgument") }
    /// The encoder session failed (opening, encoding, or a frame's status).
    public static var encoderFailed: Self { Self("encoderFailed") }
    /// The frame source failed or ended before the scenario did.
    public static var sourceFailed: Self { Self("sourceFailed") }
}

extension AdaptationError {
    static func trace(
        _ code: Code, _ reason: String, line: Int?, file: String = #fileID, sourceLine: UInt = #line
    ) -> AdaptationError {
        AdaptationError(code: code, reason: reason, line: line, file: file, sourceLine: sourceLine)
    }
}
