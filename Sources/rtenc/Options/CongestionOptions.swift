import ArgumentParser
import CongestionControl
import RTPOut
import StreamControl

/// `--cc` and `--min-bitrate`, for `stream` and `send`: which controller owns the rate (CongestionControl's
/// `CongestionControllers`, by name) and what the sender needs for it.
struct CongestionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Rate controller: \(CongestionControllers.liveNames) (default remb).",
                               discussion: Self.controllerDiscussion, valueName: "name"),
            transform: Self.controller)
    var cc: CongestionControllers.Entry = CongestionControllers.all[0]

    @Option(parsing: .unconditional,
            help: ArgumentHelp("The least the controller takes the rate to (like 150k).", default: "10k", valueName: "rate"),
            transform: BitRate.parse)
    var minBitrate = BitRate(bitsPerSecond: BitrateBounds.defaultFloor)

    static let controllerDiscussion: String = {
        let estimating: [String] = CongestionControllers.all.filter(\.usesTransportFeedback).map { $0.name + ": " + $0.summary }
        return "remb: the peer's REMB/TMMBR caps the rate, as before congestion control. " + estimating.joined(separator: "; ")
            + ": implies --transport-cc (the receiver sends transport-cc reports, e.g. `rtenc receive`, which reads the SDP), "
            + "adds an RTX stream (payload type one above --payload-type) that carries the controller's probe clusters as "
            + "padding-only packets at the cluster's rate (NACK retransmissions stay on the media SSRC), and starts at the "
            + "controller's start rate, never above --bitrate nor below --min-bitrate. rtenc's controller also gives each "
            + "frame a byte budget and skips frames while the queue is over its delay target (stream only: send has no "
            + "encoder); skips and frames over budget are counted in --stats-json (frames: skipped_controller, budget_overruns)."
    }()

    /// libwebrtc's process interval: a controller with timers is asked again this often (at the next frame).
    static let processInterval: Duration = .milliseconds(25)

    static func controller(_ name: String) throws(OptionValueError) -> CongestionControllers.Entry {
        guard let entry = CongestionControllers.named(name) else {
            throw OptionValueError("'\(name)' is not a rate controller", expected: "expected \(CongestionControllers.liveNames)")
        }
        if let reason = entry.notLiveBecause {
            throw OptionValueError("'\(name)' runs in simulation only for now: \(reason)", expected: "expected \(CongestionControllers.liveNames)")
        }
        return entry
    }

    /// A controller that estimates paces what it sends (its probes leave at their own rate, the media at the pacing
    /// rate it sets): `--no-pacing` would silently ignore it.
    func validate(noPacing: Bool) throws {
        if estimates, noPacing { throw ValidationError("--cc \(cc.name) sets the pacing rate; it cannot run with --no-pacing") }
    }

    /// Whether the controller reads transport-wide feedback (and so needs the numbering, the reports and probes).
    var estimates: Bool { cc.usesTransportFeedback }

    /// The one owner of the rate for a stream whose ceiling is `ceiling` b/s.
    func rateController(ceiling: Int, command: String) throws -> LiveBitrateController {
        let bounds: BitrateBounds
        do {
            bounds = try BitrateBounds(ceiling: ceiling, floor: minBitrate.bitsPerSecond)
        } catch {
            throw CLIError("\(command): --bitrate/--min-bitrate: \(error)")
        }
        return LiveBitrateController(bounds: bounds, policy: cc.make(nil), processInterval: estimates ? Self.processInterval : nil)
    }

    /// What the controller needs of the sender: transport-wide numbering, the pacer burst it paces with
    /// (`BitrateControlPolicy.pacingBurst`), and an RTX stream for probe padding, on which retransmissions are not
    /// sent (`rtenc receive` reads the media payload type only).
    func configure(_ configuration: inout RTPSenderConfiguration) {
        guard estimates else { return }
        // The controller's pacer burst, as the simulator gives the session it (`MediaFlow`): live and simulated pacing
        // are one parameter.
        if let burst = cc.make(nil).pacingBurst { configuration.pacingBurst = burst }
        if configuration.headerExtensions.transportSequenceNumberID == nil {
            configuration.headerExtensions.transportSequenceNumberID = NetworkOptions.transportCCExtensionID
        }
        if configuration.rtx == nil {
            let payloadType = configuration.payloadType < 127 ? configuration.payloadType + 1 : configuration.payloadType - 1
            var ssrc = UInt32.random(in: 1 ... .max)
            while ssrc == configuration.ssrc { ssrc = .random(in: 1 ... .max) }
            configuration.rtx = (payloadType, ssrc)
            configuration.retransmitsOnRTX = false
        }
    }
}
