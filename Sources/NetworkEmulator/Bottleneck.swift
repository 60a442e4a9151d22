/// The narrow part of the path: a link that sends one packet at a time at its rate, fed by a drop-tail queue.
///
/// This is a token bucket one packet deep (no bursts above the rate) in front of a FIFO of `queueBytes`: a packet
/// leaves when the link has finished the ones before it, and is dropped on arrival if the bytes still waiting or
/// in transmission would exceed the queue. So a stream above the rate first gains delay (the queue fills), then
/// loses packets — what a real bottleneck does to a sender that ignores congestion. With a time limit, the queue
/// is also measured as time to drain (RFC 8868): a packet whose last byte would leave more than the limit after it
/// arrived (what is ahead of it, then itself) is dropped, so under a falling rate the queue holds fewer bytes, as the
/// RFC 8867 cases want. That is the simulator's rule (CongestionSimulation's `QueueLimit.time`), so a real run
/// through `rtenc relay --queue-ms` and its simulation fill the same queue: counting only the wait before the packet's
/// own transmission let the relay's queue reach the limit plus one packet's serialisation (310 against 298 ms p95 in
/// RFC 8867 §5.1's full-queue phase at 0.6 Mb/s, where a 1200-byte packet takes 16 ms).
struct Bottleneck: Sendable {
    private let rateLimit: ImpairmentProfile.RateLimit
    private let queueBytes: Int
    private let queueDelayLimit: Duration?
    /// When the link finishes the last admitted packet.
    private var linkFreeAt: Duration = .zero
    /// Departure times and sizes of admitted packets not yet gone, oldest first (a FIFO with a moving head).
    private var inFlight: [(departure: Duration, bytes: Int)] = []
    private var head = 0
    private var backlogBytes = 0

    init(rateLimit: ImpairmentProfile.RateLimit, queueBytes: Int, queueDelayLimit: Duration? = nil) {
        self.rateLimit = rateLimit
        self.queueBytes = queueBytes
        self.queueDelayLimit = queueDelayLimit
    }

    /// When a packet of `bytes` arriving at `now` leaves the link; nil if the queue has no room (dropped).
    mutating func admit(bytes: Int, at now: Duration) -> Duration? {
        if case .unlimited = rateLimit { return now }
        while head < inFlight.count, inFlight[head].departure <= now {
            backlogBytes -= inFlight[head].bytes
            head += 1
        }
        if head > 1024, head * 2 > inFlight.count {  // compact now and then, so the array does not grow forever
            inFlight.removeFirst(head)
            head = 0
        }
        guard backlogBytes + bytes <= queueBytes else { return nil }
        let start = max(now, linkFreeAt)
        let departure: Duration?
        switch rateLimit {
        case .unlimited: departure = now
        case .constant(let bitsPerSecond): departure = start + .seconds(Double(bytes * 8) / Double(bitsPerSecond))
        case .trace(let trace): departure = trace.transmissionEnd(start: start, bits: bytes * 8)
        }
        guard let departure else { return nil }  // the trace ends in an outage: this packet would never leave
        // Time to drain (RFC 8868): what is ahead of it and itself.
        if let queueDelayLimit, departure - now > queueDelayLimit { return nil }
        linkFreeAt = departure
        inFlight.append((departure, bytes))
        backlogBytes += bytes
        return departure
    }
}
