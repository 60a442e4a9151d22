import MediaCore

/// The one error type of the NetworkEmulator module, shaped like `RTPError`: a code tests compare on, a reason, the
/// line of the input where a parser stopped (rate traces), and the call site.
public struct NetworkEmulatorError: CodedError {
    public let code: Code
    public let reason: String
    /// 1-based line of a rate trace, when the error is about one.
    public let line: Int?
    /// The C `errno` behind a `.system` error (EADDRINUSE for a port already taken…), nil otherwise.
    public let errno: Int32?
    public let file: String
    public let sourceLine: Int

    public init(code: Code, reason: String, line: Int? = nil, errno: Int32? = nil, file: String = #fileID,
                sourceLine: Int = #line) {
        self.code = code
        self.reason = reason
        self.line = line
        self.errno = errno
        self.file = file
        self.sourceLine = sourceLine
    }

    /// `CodedError`'s plain error: `line` here is the call site's (`sourceLine`), not a trace line.
    public init(code: Code, reason: String, file: String, line: UInt) {
        self.init(code: code, reason: reason, line: nil, file: file, sourceLine: Int(line))
    }

    public var description: String {
        line.map { "\(reason) (line \($0))" } ?? reason
    }

    static func invalidTrace(_ reason: String, line: Int, file: String = #fileID, sourceLine: Int = #line) -> Self {
        Self(code: .invalidTrace, reason: reason, line: line, file: file, sourceLine: sourceLine)
    }

    static func limitExceeded(_ reason: String, line: Int? = nil, file: String = #fileID, sourceLine: Int = #line) -> Self {
        Self(code: .limitExceeded, reason: reason, line: line, file: file, sourceLine: sourceLine)
    }

    static func system(_ reason: String, errno: Int32? = nil, file: String = #fileID, sourceLine: Int = #line) -> Self {
        Self(code: .system, reason: reason, errno: errno, file: file, sourceLine: sourceLine)
    }
}

extension ErrorCode where Owner == NetworkEmulatorError {
    /// A setting outside its range (loss above 100 %, a negative delay, a zero rate…).
    public static var invalidSetting: Self { Self("invalidSetting") }
    /// A rate trace line that cannot be read, or times that go backwards.
    public static var invalidTrace: Self { Self("invalidTrace") }
    /// A hostile-input bound (a named constant) was exceeded.
    public static var limitExceeded: Self { Self("limitExceeded") }
    /// A socket call failed; `reason` names it.
    public static var system: Self { Self("system") }
}
