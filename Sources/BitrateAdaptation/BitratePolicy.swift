import EncoderSession

/// How a target bitrate from the network becomes the encoder's live properties: the piece a researcher replaces.
///
/// The harness calls `properties(forTarget:at:)` before every frame and `observe(_:)` after each frame's output
/// (delivered or dropped); when the returned properties differ from the session's, it calls
/// `CompressionSession.update` with them, which takes effect on that very frame. Policies see only plain numbers and
/// get time injected, so they are pure and testable without an encoder (see `BitrateAdjusterPolicy`).
///
/// To add one: write a type conforming to this protocol and add a case for it in `BitratePolicies.named(_:)` (or
/// pass it to `AdaptationHarness.run` directly).
///
/// Its live counterpart is CongestionControl's `BitrateControlPolicy`: fed by the network (REMB/TMMBR) instead of a
/// scenario, deciding the encoder target and the pacing rate together; `rtenc stream` runs it through StreamControl's
/// `LiveBitrateController`.
public protocol BitratePolicy: Sendable {
    /// Short identifier used in file names and tables (`hardcap`).
    var name: String { get }
    /// One line for the report: what the policy does.
    var summary: String { get }

    /// The live properties for the frame at `time` (seconds) when the network's target is `target` (bits/s).
    mutating func properties(forTarget target: Int, at time: Double) -> CompressionSession.LiveProperties
    /// The outcome of one frame: its size, or that it was dropped.
    mutating func observe(_ frame: FrameRecord)
    /// Who drives the encoder's rate control for this policy's session (fixed when the session opens); default
    /// `.session`, rtenc's controller.
    var rateControl: CompressionSession.RateControl { get }
}

extension BitratePolicy {
    public mutating func observe(_ frame: FrameRecord) {}
    public var rateControl: CompressionSession.RateControl { .session }
}

/// rtenc's default: what `CompressionSession.Configuration.realTimeCommunication` sets — average = target and a hard
/// DataRateLimit of 1.5 × target per 1 s, enforced by the session's rate controller (which drives x264's VBV and
/// drops a frame rather than overflow the window).
public struct HardCapPolicy: BitratePolicy {
    public let name = "hardcap"
    public let summary = "rtenc session: average = target, hard cap 1.5 × target per 1 s"

    public init() {}

    public func properties(forTarget target: Int, at time: Double) -> CompressionSession.LiveProperties {
        .realTimeCommunication(averageBitRate: target)
    }
}

/// "Raw x264 VBV": what a plain libavcodec user gets. The session is opened with `RateControl.encoderVBV` — x264's
/// own ABR at the target, VBV maxrate at the 1.5 × target limit with a 1 s buffer — and every target change is
/// passed straight to x264 (bit_rate, rc_max_rate, rc_buffer_size → x264_encoder_reconfig). Nothing is dropped and
/// the limit is not enforced, only expressed as the VBV. x264 keeps the ABR target it was opened with, so this is
/// the baseline the other policies are measured against.
public struct VBVOnlyPolicy: BitratePolicy {
    public let name = "vbv"
    public let summary = "raw x264: ABR = target, VBV maxrate 1.5 × target / 1 s buffer, changes passed to x264_encoder_reconfig"
    public var rateControl: CompressionSession.RateControl { .encoderVBV }

    public init() {}

    public func properties(forTarget target: Int, at time: Double) -> CompressionSession.LiveProperties {
        .realTimeCommunication(averageBitRate: target)
    }
}

/// The session's rate controller without its hard cap: average = target and **no** DataRateLimits, so nothing is
/// ever dropped and only the VBV the controller steers bounds the output (maxrate 1.5 × target, buffer 1.5 ×
/// target bits in steady state). Shows what the controller does and what the cap adds.
public struct NoCapPolicy: BitratePolicy {
    public let name = "nocap"
    public let summary = "rtenc session without hard cap: average = target, the controller's VBV only"

    public init() {}

    public func properties(forTarget target: Int, at time: Double) -> CompressionSession.LiveProperties {
        var live = CompressionSession.LiveProperties.realTimeCommunication(averageBitRate: target)
        live.dataRateLimits = []
        return live
    }
}

/// The policies the harness knows by name.
public enum BitratePolicies {
    /// Every policy; `defaults` is what `rtenc bench adapt` runs without --policy (the issue's three).
    public static let names = ["vbv", "nocap", "hardcap", "adjuster"]
    public static let defaults = ["vbv", "hardcap", "adjuster"]

    public static func named(_ name: String) throws(AdaptationError) -> any BitratePolicy {
        switch name {
        case "vbv": return VBVOnlyPolicy()
        case "nocap": return NoCapPolicy()
        case "hardcap": return HardCapPolicy()
        case "adjuster": return BitrateAdjusterPolicy()
        default: throw .make(.invalidArgument, "unknown policy \(name) (\(names.joined(separator: ", ")))")
        }
    }
}
