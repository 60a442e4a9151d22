import MediaCore

/// The one error type of the CongestionControl module: a code tests compare on, a reason and the call site
/// (`CodedError`, as in every module).
public typealias CongestionControlError = PlainCodedError<CongestionControlErrorDomain>

/// Names `CongestionControlError` (a `PlainCodedError`: code, reason, call site).
public enum CongestionControlErrorDomain {}

extension ErrorCode where Owner == CongestionControlError {
    /// A caller passed a value that cannot work (a ceiling or floor of 0 b/s).
    public static var invalidArgument: Self { Self("invalidArgument") }
}
