/// What the analyser reads — per-packet records, per-frame records, per-flow targets, and the path's description —
/// from a simulation or, later, from a real-time run (rtenc relay's packet log carries the same per-packet fields).
public struct AnalysisInput: Sendable {
    public var caseName: String
    public var controller: String
    public var duration: Int64
    /// [0]: forward, [1]: backward.
    public var links: [LinkConfiguration]
    public var media: [MediaFlowSpec]
    /// Capacity steps, joins, pauses, resumes, cross traffic starts and ends.
    public var changeTimes: [Int64]
    public var packets: [PacketFate]
    public var frames: [FrameFate]
    public var targets: [[(time: Int64, bitsPerSecond: Int)]]

    public init(caseName: String, controller: String, duration: Int64, links: [LinkConfiguration], media: [MediaFlowSpec],
                changeTimes: [Int64], packets: [PacketFate], frames: [FrameFate], targets: [[(time: Int64, bitsPerSecond: Int)]]) {
        self.caseName = caseName
        self.controller = controller
        self.duration = duration
        self.links = links
        self.media = media
        self.changeTimes = changeTimes
        self.packets = packets
        self.frames = frames
        self.targets = targets
    }

    public init(_ result: SimulationResult) {
        let scenario = result.scenario
        self.init(caseName: scenario.name, controller: result.controller, duration: scenario.duration,
                  links: [scenario.forward, scenario.backward], media: scenario.media,
                  changeTimes: Array(Set(scenario.changeTimes + scenario.backward.changeTimes)).sorted(),
                  packets: result.packets, frames: result.frames, targets: result.targets)
    }

    /// The target of media flow `flow` in force at `time` (nil before its first decision).
    public func target(of flow: Int, at time: Int64) -> Int? {
        targets[flow].last { $0.time <= time }?.bitsPerSecond
    }
}
