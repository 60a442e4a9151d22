import MediaCore

/// The one error type of the CongestionSimulation module (`CodedError`, as in every module).
public typealias SimulationError = PlainCodedError<SimulationErrorDomain>

/// Names `SimulationError` (a `PlainCodedError`: code, reason, call site).
public enum SimulationErrorDomain {}

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
