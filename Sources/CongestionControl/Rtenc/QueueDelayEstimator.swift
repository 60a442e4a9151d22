import MediaCore
import RTP

/// The bottleneck's queue as rtenc's controller sees it: each received packet's one-way delay above the smallest one
/// seen recently, from transport feedback alone.
///
/// Design (after LEDBAT, RFC 6817 §2.4, and SCReAM, RFC 8298 §4.1.2, which both estimate queuing delay this way, and
/// Copa's "standing RTT"): the one-way delay `arrival − send time` mixes the sender's and the receiver's clocks, so
/// its absolute value means nothing, but its minimum over a long window is the path's propagation plus that offset
/// — the *base delay* — and anything above it is queue. The base is the minimum over `baseWindow` kept in 1 s buckets
/// (a route change that lengthens the path shows up as queue for at most that long; LEDBAT keeps ten minutes, a video
/// call cannot wait that long). The *standing* queue is the smallest queuing delay among the packets that arrived in
/// the last `standingWindow` of a report: a frame's own packets, which leave the pacer faster than the link drains
/// them, and jitter spikes raise single packets, never the minimum, so the controller does not cut its rate for the
/// sawtooth of its own frames (Copa takes the minimum RTT over half an RTT for the same reason). The newest packet's
/// delay (`latest`) answers sharp changes at once: after a capacity drop it is the first to show the queue.
public struct QueueDelayEstimator: Sendable {
    /// How long the base (minimum) delay is remembered.
    public static let baseWindow: Duration = .seconds(30)
    /// The window, ending at a report's newest arrival, whose smallest delay is the standing queue.
    public static let standingWindow: Duration = .milliseconds(40)

    /// One-way delay minimum per 1 s bucket of arrival time (receiver clock), oldest first: (bucket, minimum ns).
    private var buckets: [(second: Int64, minimum: Int64)] = []
    /// The standing queue after the last report (nil before any packet arrived).
    public private(set) var standing: Duration?
    /// The queuing delay of the newest packet of the last report.
    public private(set) var latest: Duration?
    /// Bucket count that covers `baseWindow`.
    private static var bucketCount: Int { Int(baseWindow.components.seconds) }

    public init() {}

    /// The smallest one-way delay remembered (receiver clock minus sender clock, ns), nil before any arrival.
    public var baseDelay: Int64? { buckets.map(\.minimum).min() }

    /// Takes a report's received packets; updates the base, the standing and the latest queuing delay. Packets
    /// without an arrival (lost) are ignored. Returns false when the report held no arrival.
    @discardableResult
    public mutating func update(_ packets: [PacketResult]) -> Bool {
        var newest: (arrival: Instant, delay: Int64)?
        var delays: [(arrival: Instant, delay: Int64)] = []
        delays.reserveCapacity(packets.count)
        for packet in packets {
            guard let arrival = packet.arrival else { continue }
            // Overflow cannot happen: both are ns since their clock's epoch, far below 2^62 apart in any real run.
            let delay = arrival.nanoseconds - packet.sent.sendTime.nanoseconds
            delays.append((arrival, delay))
            record(delay, at: arrival)
            if newest.map({ arrival >= $0.arrival }) ?? true { newest = (arrival, delay) }
        }
        guard let newest, let base = baseDelay else { return false }
        let horizon = newest.arrival - Self.standingWindow
        let standingDelay = delays.lazy.filter { $0.arrival >= horizon }.map(\.delay).min() ?? newest.delay
        standing = .nanoseconds(max(0, standingDelay - base))
        latest = .nanoseconds(max(0, newest.delay - base))
        return true
    }

    private mutating func record(_ delay: Int64, at arrival: Instant) {
        let second = arrival.nanoseconds / 1_000_000_000
        if let last = buckets.last, last.second == second {
            buckets[buckets.count - 1].minimum = min(last.minimum, delay)
        } else if let last = buckets.last, second < last.second {
            // A packet reported late (reordered across a bucket boundary) still lowers the bucket it belongs to.
            if let i = buckets.lastIndex(where: { $0.second <= second }), buckets[i].second == second {
                buckets[i].minimum = min(buckets[i].minimum, delay)
            } else if let i = buckets.indices.last {
                buckets[i].minimum = min(buckets[i].minimum, delay)
            }
        } else {
            buckets.append((second, delay))
        }
        let oldest = second - Int64(Self.bucketCount) + 1
        if let first = buckets.first, first.second < oldest { buckets.removeAll { $0.second < oldest } }
    }
}
