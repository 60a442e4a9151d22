import MediaCore

/// The rate rule of rtenc's controller: one update per transport feedback report, from the standing queue, the
/// delivery rate and the loss the report showed.
///
/// Delay mode (the queue is the controller's own), design after NADA (RFC 8698: an explicit queuing-delay target,
/// not GCC's delay *gradient*, which cannot tell a standing queue from an empty one) and BBR (rates taken from what
/// the path delivered):
/// Both thresholds scale with √(1 Mb/s ÷ the target) (`effectiveDelayTarget`): of flows that see one queue, the
/// largest backs off first, which is what makes them converge to equal shares.
/// - **Above `delayTarget`**: back off to `backoff` × the short-term delivery rate — the capacity left to the flow
///   while a queue stands — at most once per round trip (until a report covers a packet sent after the last cut:
///   reacting again to the queue the cut has not yet had time to drain is what makes AIMD over-react). The queue
///   itself is drained by the frame budget (`FrameBudget`), not by a deeper cut, so the link stays full.
/// - **Between `emptyQueue` and the target**: additive increase (`additiveIncrease` bits/s per second). Equal
///   additive steps with proportional back-offs make flows sharing a bottleneck converge to equal rates (Chiu and
///   Jain's AIMD argument); a multiplicative increase here would keep any unfairness forever.
/// - **Below `emptyQueue` for longer than `rampAfter`**: the link is underused (capacity rose, a flow left): the
///   rate grows by `rampRate` per second, but never above `rampCap` × the long-term delivery rate — probing from what
///   the path delivered, so an increase that finds no capacity builds at most a round trip's worth of queue, and
///   needs no padding probes.
/// - **Loss above `lossThreshold`** in a report (random loss, a policer): × (1 − ½ loss), GCC's rule; below it loss
///   is ignored, as the queue says more.
///
/// Competing mode (`CompetitionDetector` saw a standing queue that is not ours; BBR/Copa's answer to loss-based
/// competitors): the delay signal is ignored; additive increase `competingIncrease`, and × `competingBackoff` on a
/// report with loss, once per round trip — TCP Reno's shape with a gentler back-off, which is what holds a share
/// against a flow that halves its window only when the queue overflows.
public struct RtencRateControl: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var delayTarget: Duration
        public var emptyQueue: Duration
        public var backoff: Double
        public var additiveIncrease: Double
        public var rampRate: Double
        public var rampAfter: Duration
        public var rampCap: Double
        public var lossThreshold: Double
        public var competingIncrease: Double
        public var competingBackoff: Double

        public init(delayTarget: Duration = .milliseconds(15), emptyQueue: Duration = .milliseconds(6), backoff: Double = 0.92,
                    additiveIncrease: Double = 150_000, rampRate: Double = 0.3, rampAfter: Duration = .seconds(1),
                    rampCap: Double = 1.3, lossThreshold: Double = 0.1, competingIncrease: Double = 60_000,
                    competingBackoff: Double = 0.85) {
            self.delayTarget = delayTarget
            self.emptyQueue = emptyQueue
            self.backoff = backoff
            self.additiveIncrease = additiveIncrease
            self.rampRate = rampRate
            self.rampAfter = rampAfter
            self.rampCap = rampCap
            self.lossThreshold = lossThreshold
            self.competingIncrease = competingIncrease
            self.competingBackoff = competingBackoff
        }
    }

    /// What one report told the rule.
    public struct Signal: Sendable, Hashable {
        /// The standing queuing delay (`QueueDelayEstimator.standing`).
        public var standingQueue: Duration
        /// Delivery rate over the short and the long window, bits/s (nil until known).
        public var deliveredShort: Double?
        public var deliveredLong: Double?
        /// Lost / reported packets of the report.
        public var lossFraction: Double
        /// The newest send time among the report's packets.
        public var newestSent: Instant
        /// A competitor holds the queue (`CompetitionDetector.competing`).
        public var competing: Bool

        public init(standingQueue: Duration, deliveredShort: Double?, deliveredLong: Double?, lossFraction: Double,
                    newestSent: Instant, competing: Bool) {
            self.standingQueue = standingQueue
            self.deliveredShort = deliveredShort
            self.deliveredLong = deliveredLong
            self.lossFraction = lossFraction
            self.newestSent = newestSent
            self.competing = competing
        }
    }

    /// What the last update did (for tests and logs).
    public enum Action: Sendable, Hashable {
        case hold, additiveIncrease, ramp, delayBackoff, lossBackoff
    }

    /// The rate at which the delay target and the empty-queue threshold are as configured; a flow at rate r uses
    /// them × √(referenceRate / r), within ½…3 ×.
    public static let referenceRate = 1_000_000.0

    /// The delay target at the current target rate: a smaller flow tolerates a longer queue before it backs off, so
    /// of flows sharing a queue the largest backs off first and they converge to equal rates (Kelly's price
    /// argument, as in Copa's target rate 1/(δ·d_q) and NADA's x_ref·RMAX/r, here square-rooted so a lone flow's
    /// queue moves little with its rate).
    public var scale: Double { min(3, max(0.5, (Self.referenceRate / max(target, 1)).squareRoot())) }
    public var effectiveDelayTarget: Duration { configuration.delayTarget * scale }
    public var effectiveEmptyQueue: Duration { configuration.emptyQueue * scale }

    /// The longest step between two reports that counts as elapsed time (a gap in feedback is not a reason to jump).
    public static let maximumStep: Duration = .milliseconds(200)

    public let configuration: Configuration
    /// The target, bits/s.
    public private(set) var target: Double
    public private(set) var lastAction = Action.hold
    private var lastUpdate: Instant?
    private var emptySince: Instant?
    /// No back-off until a report covers a packet sent after this (the last back-off's time).
    private var fence: Instant?
    /// The standing queue when the last back-off happened, and in the signal being handled.
    private var queueAtBackoff: Duration?
    private var queueAtSignal: Duration = .zero

    public init(target: Double, configuration: Configuration = Configuration()) {
        self.target = target
        self.configuration = configuration
    }

    /// Another rule (a peer's limit, the bounds) moved the target.
    public mutating func setTarget(_ bitsPerSecond: Double) { target = bitsPerSecond }

    /// One report's signal at `now` (sender's clock); returns the new target.
    @discardableResult
    public mutating func update(_ signal: Signal, at now: Instant) -> Double {
        let step = min(Self.maximumStep, lastUpdate.map { now - $0 } ?? .zero).gccSeconds
        lastUpdate = now
        // Once per round trip, unless the queue doubled since the last cut and is well above the target: the capacity
        // fell further than the cut assumed (a sharp drop), and waiting a round trip behind a full queue would let it
        // overflow.
        let queueExploded = queueAtBackoff.map { signal.standingQueue > $0 * 2 && signal.standingQueue > effectiveDelayTarget * 3 } ?? false
        let mayBackOff = (fence.map { signal.newestSent > $0 } ?? true) || queueExploded
        queueAtSignal = signal.standingQueue
        let c = configuration
        lastAction = .hold
        if signal.competing {
            emptySince = nil
            if signal.lossFraction > 0 {
                if mayBackOff { backOff(to: target * c.competingBackoff, at: now, action: .lossBackoff) }
            } else {
                increase(by: c.competingIncrease * step, cap: signal.deliveredLong.map { $0 * 1.5 }, action: .additiveIncrease)
            }
            return target
        }
        if signal.lossFraction > c.lossThreshold {
            if mayBackOff { backOff(to: target * (1 - 0.5 * signal.lossFraction), at: now, action: .lossBackoff) }
            return target
        }
        if signal.standingQueue > effectiveDelayTarget {
            emptySince = nil
            if mayBackOff, let delivered = signal.deliveredShort ?? signal.deliveredLong {
                backOff(to: min(target, delivered) * c.backoff, at: now, action: .delayBackoff)
            }
            return target
        }
        let cap = signal.deliveredLong.map { $0 * c.rampCap }
        if signal.standingQueue < effectiveEmptyQueue {
            let start = emptySince ?? now
            emptySince = start
            if now - start >= c.rampAfter {
                increase(by: target * c.rampRate * step, cap: cap, action: .ramp)
                return target
            }
        } else {
            emptySince = nil
        }
        increase(by: c.additiveIncrease * step, cap: cap, action: .additiveIncrease)
        return target
    }

    private mutating func increase(by amount: Double, cap: Double?, action: Action) {
        let raised = target + amount
        // Never above the cap, but the cap never lowers the target either: that is the back-off's job.
        let limited = cap.map { min(raised, max($0, target)) } ?? raised
        if limited > target { lastAction = action }
        target = limited
    }

    private mutating func backOff(to rate: Double, at now: Instant, action: Action) {
        guard rate < target else { return }
        target = rate
        fence = now
        queueAtBackoff = queueAtSignal
        lastAction = action
    }
}
