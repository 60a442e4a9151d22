import MediaCore

/// The rate controllers by name: what `rtenc stream --cc NAME`, `rtenc send --cc NAME` and `rtenc bench cc
/// --controllers` choose from, one entry per controller, so a new controller is one line here and every command
/// that picks one by name offers it. A researcher's own policy needs no entry to run: `Simulation` and
/// `LiveBitrateController` take any `BitrateControlPolicy` value.
public enum CongestionControllers {
    public struct Entry: Sendable {
        /// What the user types (`gcc`).
        public let name: String
        /// Other names accepted for it.
        public let aliases: [String]
        /// One line for help texts.
        public let summary: String
        /// It estimates from transport-wide feedback: the sender numbers its packets (transport-cc), reads the
        /// receiver's reports and hands them over; false for a controller that only obeys the peer's REMB/TMMBR.
        public let usesTransportFeedback: Bool
        /// Why the controller cannot drive a live stream yet (nil: it can): it runs in the simulator only. Every
        /// controller here runs live today (rtenc's since the sender reports its sent packets); a new one that needs
        /// what the live path lacks says so here, and `--cc` refuses it with the reason.
        public let notLiveBecause: String?
        /// A fresh policy; `startBitrate` is the first target when given (else the controller's own default).
        public let make: @Sendable (_ startBitrate: Int?) -> any BitrateControlPolicy

        public init(name: String, aliases: [String] = [], summary: String, usesTransportFeedback: Bool,
                    notLiveBecause: String? = nil,
                    make: @escaping @Sendable (_ startBitrate: Int?) -> any BitrateControlPolicy) {
            self.name = name
            self.aliases = aliases
            self.summary = summary
            self.usesTransportFeedback = usesTransportFeedback
            self.notLiveBecause = notLiveBecause
            self.make = make
        }
    }

    /// Every controller, the default (`remb`: rtenc's behaviour before congestion control) first.
    public static let all: [Entry] = [
        Entry(name: "remb", aliases: ["peer-limit"], summary: "the peer's REMB/TMMBR caps the rate (no estimation)",
              usesTransportFeedback: false) { _ in PeerLimitPolicy() },
        Entry(name: "gcc", summary: "Google congestion control after libwebrtc's goog_cc, over transport-cc",
              usesTransportFeedback: true) { start in
            GoogCCPolicy(configuration: .init(startBitrate: start ?? GoogCCPolicy.defaultStartBitrate))
        },
        Entry(name: "rtenc", summary: "rtenc's encoder-coupled controller: queue-delay target, per-frame budget, competing mode",
              usesTransportFeedback: true) { start in
            RtencCongestionPolicy(configuration: start.map { .init(startBitrate: $0) } ?? .init())
        },
    ]

    /// The entry called `name` (or with it as an alias), nil for none.
    public static func named(_ name: String) -> Entry? {
        all.first { $0.name == name || $0.aliases.contains(name) }
    }

    /// "remb, gcc, rtenc": for "expected …" messages.
    public static var names: String { all.map(\.name).joined(separator: ", ") }

    /// The controllers a live stream can use (`--cc`), for "expected …" messages.
    public static var liveNames: String { all.filter { $0.notLiveBecause == nil }.map(\.name).joined(separator: ", ") }

    /// What makes a fresh policy called `name` at the controller's own start rate, checked once (a simulation makes
    /// one per flow: policies keep state).
    /// - Throws: `.invalidArgument` naming the known controllers.
    public static func factory(named name: String) throws(CongestionControlError) -> @Sendable () -> any BitrateControlPolicy {
        guard let entry = named(name) else {
            throw .make(.invalidArgument, "no congestion controller \"\(name)\"; expected \(names)")
        }
        return { entry.make(nil) }
    }

    /// A fresh policy called `name`. - Throws: as `factory(named:)`.
    public static func policy(named name: String) throws(CongestionControlError) -> any BitrateControlPolicy {
        try factory(named: name)()
    }
}

extension CongestionControllers.Entry {
    /// A `BitrateController` over a fresh policy of this entry, within `ceiling` and `floor` (bits/s; a floor of 0 is
    /// taken as 1 b/s), its first target `start`: what a WebRTC peer's own controller is (`WebRTCServer`'s viewers,
    /// `WebRTCPublisher`'s server), made in one place for both.
    /// - Throws: `.invalidArgument` for a ceiling of 0.
    public func controller(ceiling: UInt64, floor: UInt64, start: UInt64, at now: Instant) throws(CongestionControlError) -> BitrateController {
        let bounds = try BitrateBounds(ceiling: Int(clamping: ceiling), floor: Int(clamping: max(1, floor)))
        return BitrateController(bounds: bounds, policy: make(Int(clamping: start)), at: now)
    }
}
