import MediaCore

/// The one error type of the CongestionSimulation module (`CodedError`, as in every module).
public struct SimulationError: CodedError {
    public typealias Code = ErrorCode<SimulationError>

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

    @inline(never)
    static func invalidTrace(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .invalidTrace, reason: reason, file: file, line: line)
    }

    @inline(never)
    static func invalidLog(_ reason: String, line: Int, file: String = #fileID, line callLine: UInt = #line) -> Self {
        .init(code: .invalidLog, reason: "line \(line): \(reason)", file: file, line: callLine)
    }

    @inline(never)
    static func unknownCase(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .unknownCase, reason: reason, file: file, line: line)
    }

    @inline(never)
    static func session(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .session, reason: reason, file: file, line: line)
    }
}

extension ErrorCode where Owner == SimulationError {
    /// A parameter that cannot work (a negative delay, a capacity schedule out of order, a frame rate of 0).
    public static var invalidArgument: Self { Self("invalidArgument") }
    /// A Mahimahi trace that is empty, not one non-decreasing integer a line, or ends at 0 ms.
    public static var invalidTrace: Self { Self("invalidTrace") }
    /// A packet log (`rtenc relay --packet-log`) that is not one: another header, a line that does not parse.
    public static var invalidLog: Self { Self("invalidLog") }
    /// A test case name the catalogue does not hold.
    public static var unknownCase: Self { Self("unknownCase") }
    /// An RTP session refused what the simulator handed it.
    public static var session: Self { Self("session") }
    /// The codec in the loop failed (a real encoder that cannot open, or refused a frame or a rate).
    public static var codec: Self { Self("codec") }
}
