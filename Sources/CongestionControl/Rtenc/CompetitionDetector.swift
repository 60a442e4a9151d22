import MediaCore

/// Tells a queue the controller causes from one it does not: delay-based control backs off from any queue, so
/// against a loss-based flow (TCP), which fills every buffer, it gives its share away until it starves. The
/// detector switches rtenc's controller to loss-based behaviour while a competitor keeps a standing queue, and back
/// when the queue is gone.
///
/// Design (BBR v2's and Copa's competing mode, SCReAM's "competing flows compensation", RFC 8298 §4.1.2.3): in delay
/// mode the controller drains what it queues within about a second (its frame budget removes the excess, its rate
/// backs off to the delivery rate), so a standing queue that stays above `enterThreshold` through a whole
/// `enterWindow` is not its own — Copa's test that the queue empties at least once every few RTTs, with a window long
/// enough that a capacity drop's transient never triggers it. It leaves competing mode when the standing queue stays
/// below `exitThreshold` for `exitWindow`: alone, after a loss-based cut, the queue empties and stays empty while the
/// rate climbs back; a loss-based competitor refills it within a fraction of that.
public struct CompetitionDetector: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var enterThreshold: Duration
        public var enterWindow: Duration
        public var exitThreshold: Duration
        public var exitWindow: Duration

        public init(enterThreshold: Duration = .milliseconds(60), enterWindow: Duration = .seconds(5),
                    exitThreshold: Duration = .milliseconds(10), exitWindow: Duration = .seconds(1)) {
            self.enterThreshold = enterThreshold
            self.enterWindow = enterWindow
            self.exitThreshold = exitThreshold
            self.exitWindow = exitWindow
        }
    }

    public let configuration: Configuration
    /// True while a competitor holds a standing queue.
    public private(set) var competing = false
    /// Since when the standing queue has been on the other side of the threshold that would switch the mode.
    private var since: Instant?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// A report at `now` showed a standing queue of `standing`. Returns true when the mode changed.
    @discardableResult
    public mutating func update(standing: Duration, at now: Instant) -> Bool {
        let crossing = competing ? standing < configuration.exitThreshold : standing > configuration.enterThreshold
        guard crossing else {
            since = nil
            return false
        }
        let start = since ?? now
        since = start
        guard now - start >= (competing ? configuration.exitWindow : configuration.enterWindow) else { return false }
        competing.toggle()
        since = nil
        return true
    }
}
