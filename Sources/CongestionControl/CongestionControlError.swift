import MediaCore

/// The one error type of the CongestionControl module: a code tests compare on, a reason and the call site
/// (`CodedError`, as in every module).
public struct CongestionControlError: CodedError {
    /// What kind of problem this is: extensible, compared by name (the codes are below).
    public typealias Code = ErrorCode<CongestionControlError>

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

    @inline(never)
    static func invalidArgument(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidArgument, reason: reason, file: file, line: line)
    }
}

extension ErrorCode where Owner == CongestionControlError {
    /// A caller passed a value that cannot work (a ceiling or floor of 0 b/s).
    public static var invalidArgument: Self { Self("invalidArgument") }
}
