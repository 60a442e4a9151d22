import MediaCore
import RTP

/// What the path delivered to the receiver, bits/s, over two windows of arrival time: a short one (`shortWindow`)
/// that follows a capacity drop within a report, and a long one (`longWindow`) steady enough to ramp from. The short
/// one is read only while a queue stands, when arrivals are spaced by the link, not by the sender's frame bursts, so
/// 100 ms of them measure the capacity well.
///
/// Design: BBR's delivery rate (draft-cardwell-iccrg-bbr-congestion-control §4.1.1), taken at the receiver instead of
/// from ACKs: bytes that arrived in the window over the span from the window's first arrival to its last. While a
/// queue stands at the bottleneck this is the capacity left to the flow (its share); while the link is underused it
/// is the flow's own sending rate. rtenc's controller backs off *to* it (not to a fraction of its own target, as
/// AIMD does) and ramps *from* it, so neither a decrease nor a probe depends on how wrong the target was.
public struct DeliveryRateEstimator: Sendable {
    public static let shortWindow: Duration = .milliseconds(100)
    public static let longWindow: Duration = .seconds(1)

    private var arrivals: [(time: Instant, bytes: Int)] = []
    private var head = 0

    public init() {}

    /// Adds a report's received packets (any order; lost ones are skipped).
    public mutating func update(_ packets: [PacketResult]) {
        let received = packets.compactMap { packet in packet.arrival.map { ($0, packet.sent.size) } }.sorted { $0.0 < $1.0 }
        for (time, bytes) in received {
            // A packet that arrived before the newest one already counted (reported late) joins at its place's end.
            arrivals.append((max(time, arrivals.last?.time ?? time), bytes))
        }
        guard let newest = arrivals.last?.time else { return }
        while head < arrivals.count, arrivals[head].time < newest - Self.longWindow { head += 1 }
        if head > 1024 {
            arrivals.removeFirst(head)
            head = 0
        }
    }

    /// The rate over the short window (nil until it spans at least half of it).
    public var shortTerm: Double? { rate(over: Self.shortWindow) }
    /// The rate over the long window (nil until it spans at least half of it).
    public var longTerm: Double? { rate(over: Self.longWindow) }

    private func rate(over window: Duration) -> Double? {
        guard let newest = arrivals.last?.time else { return nil }
        let start = newest - window
        var first = arrivals.count - 1
        while first > head, arrivals[first - 1].time >= start { first -= 1 }
        let span = newest - arrivals[first].time
        guard span * 2 >= window, first < arrivals.count - 1 else { return nil }
        // The first packet's bytes arrived before the span began: they are not counted.
        var bytes = 0
        for i in (first + 1) ..< arrivals.count { bytes += arrivals[i].bytes }
        return Double(bytes) * 8 / span.gccSeconds
    }
}
