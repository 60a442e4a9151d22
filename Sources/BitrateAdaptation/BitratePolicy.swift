import EncoderSession

/// How a target bitrate from the network becomes the encoder's live properties: the piece a researcher replaces.
///
/// The harness calls `properties(forTarget:at:)` before every frame and `observe(_:)` after each frame's output
/// (delivered or dropped); when the returned properties differ from the session's, it calls
/// `EncoderSession.update` with them, which takes effect on that very frame. Policies see only plain numbers and
/// get time injected, so they are pure and testable without an encoder (see `BitrateAdjusterPolicy`).
///
/// To add one: write a type conforming to this protocol and add a case for it in `BitratePolicies.named(_:)` (or
/// pass it to `AdaptationHarness.run` directly).
public protocol BitratePolicy: Sendable {
    /// Short identifier used in file names and tables (`hardcap`).
    var name: String { get }
    /// One line for the report: what the policy does.
    var summary: String { get }

    /// The live properties for the frame at `time` (seconds) when the network's target is `target` (bits/s).
    mutating func properties(forTarget target: Int, at time: Double) -> EncoderSession.LiveProperties
    /// The outcome of one frame: its size, or that it was dropped.
    mutating func observe(_ frame: FrameRecord)
}

extension BitratePolicy {
    public mutating func observe(_ frame: FrameRecord) {}
}

/// rtenc's default: what `EncoderSession.Configuration.realTimeCommunication` sets — average = target and a hard
/// DataRateLimit of 1.5 × target per 1 s, enforced by the session's rate controller (which drives x264's VBV and
/// drops a frame rather than overflow the window).
public struct HardCapPolicy: BitratePolicy {
    public let name = "hardcap"
    public let summary = "rtenc session: average = target, hard cap 1.5 × target per 1 s"

    public init() {}

    public func properties(forTarget target: Int, at time: Double) -> EncoderSession.LiveProperties {
        .realTimeCommunication(averageBitRate: target)
    }
}

/// "Raw x264 VBV" as far as the public session API allows: average = target and **no** DataRateLimits, so nothing
/// is ever dropped and only x264's VBV bounds the output (the session's ceiling without limits: maxrate 1.5 ×
/// target, buffer 1.5 × target bits).
///
/// Emulated, not raw: `EncoderSession` has no switch that hands a bitrate change straight to x264. Its rate
/// controller still runs — after each change it holds the VBV maxrate at the target for 0.5 s and then steers
/// maxrate from the measured output (`RateController`) — so this policy shows the session *without its hard cap*,
/// not what a plain `bit_rate`/`rc_max_rate` reconfig of x264 does. That plain reconfig was measured by hand on this
/// project (after 2 M → 500 k the 1 s windows ran 2.7×, 2.5×, 2.2× … the new target for 4 s and more); a true raw
/// policy needs a session option that bypasses the controller.
public struct VBVOnlyPolicy: BitratePolicy {
    public let name = "vbv"
    public let summary = "session without hard cap: average = target, VBV only (emulates raw x264 VBV)"

    public init() {}

    public func properties(forTarget target: Int, at time: Double) -> EncoderSession.LiveProperties {
        var live = EncoderSession.LiveProperties.realTimeCommunication(averageBitRate: target)
        live.dataRateLimits = []
        return live
    }
}

/// The policies the harness knows by name.
public enum BitratePolicies {
    public static let names = ["vbv", "hardcap", "adjuster"]

    public static func named(_ name: String) throws(AdaptationError) -> any BitratePolicy {
        switch name {
        case "vbv": return VBVOnlyPolicy()
        case "hardcap": return HardCapPolicy()
        case "adjuster": return BitrateAdjusterPolicy()
        default: throw .invalidArgument("unknown policy \(name) (\(names.joined(separator: ", ")))")
        }
    }
}
