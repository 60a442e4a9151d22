/// The congestion controllers by the names the CLI and reports use (`--cc gcc|rtenc`, `bench cc --controllers`):
/// one place that maps a name to a fresh policy, so every tool offers the same set and a new controller is added
/// once. A researcher's own policy needs no entry here to run: `Simulation` and `LiveBitrateController` take any
/// `BitrateControlPolicy` value.
public enum PolicyRegistry {
    /// The names `policy(named:)` knows, in the order tools list them.
    public static let names = ["gcc", "rtenc", "peer-limit"]

    /// A fresh policy (each flow needs its own: policies keep state).
    /// - Throws: `.invalidArgument` naming the known controllers.
    public static func policy(named name: String) throws(CongestionControlError) -> any BitrateControlPolicy {
        try factory(named: name)()
    }

    /// What makes a fresh policy of that name, checked once (a simulation makes one per flow).
    /// - Throws: `.invalidArgument` naming the known controllers.
    public static func factory(named name: String) throws(CongestionControlError) -> @Sendable () -> any BitrateControlPolicy {
        switch name {
        case "gcc": { GoogCCPolicy() }
        case "rtenc": { RtencCongestionPolicy() }
        case "peer-limit": { PeerLimitPolicy() }
        default: throw .invalidArgument("no congestion controller \"\(name)\"; expected \(names.joined(separator: ", "))")
        }
    }
}
