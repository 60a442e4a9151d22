/// What limits a link's rate: a piecewise-constant schedule, a Mahimahi trace, or nothing.
public enum LinkCapacity: Sendable, Hashable {
    case schedule(CapacitySchedule)
    /// Each opportunity carries `MahimahiTrace.opportunityBytes × scale` bytes (0.25 turns a 4.6 Mb/s LTE trace
    /// into the RFC 8867 media range, keeping its millisecond burstiness).
    case trace(MahimahiTrace, scale: Double)
    case unlimited
}

/// How much a drop-tail queue holds.
public enum QueueLimit: Sendable, Hashable {
    /// RFC 8868 §4.3's "queue measured as time to drain": a packet is dropped when its departure − arrival would
    /// exceed this (ns). Under a varying capacity that is exactly the rule, not bytes = seconds × rate at one rate.
    case time(Int64)
    case bytes(Int)
    case unlimited
}

/// One shared FIFO bottleneck with a drop-tail queue. Packets of every flow are admitted in time order; since the
/// queue is FIFO and the capacity is known in advance, each admitted packet's departure is computed on admission
/// (the time its last byte is served). Pure: time in, departure or drop out.
public struct Bottleneck: Sendable {
    public enum Admission: Sendable, Hashable {
        case departs(at: Int64)
        case dropped
    }

    public let capacity: LinkCapacity
    public let queueLimit: QueueLimit
    /// The time the last admitted packet finishes (schedule, unlimited).
    private var busyUntil: Int64 = 0
    // Trace state: the next opportunity not yet started, and the bytes left in the last one used (at `leftoverTime`).
    private var nextOpportunity = 0
    private var leftoverBytes = 0
    private var leftoverTime: Int64 = -1
    /// Departures of admitted packets with their sizes (for the byte limit).
    private var queued: [(departure: Int64, bytes: Int)] = []
    private var queuedHead = 0
    private var queuedBytes = 0
    /// Opportunities that passed with nothing to send (Mahimahi's `#` log lines), drained by the caller.
    public private(set) var unusedOpportunities: [Int64] = []
    /// Keep `unusedOpportunities` (off by default: a 12 Mb/s trace has 1000 a second).
    public var recordsUnusedOpportunities = false

    public init(capacity: LinkCapacity, queueLimit: QueueLimit) throws(SimulationError) {
        if case .trace(_, let scale) = capacity, !(scale > 0 && scale.isFinite) {
            throw .make(.invalidArgument, "a trace scale of \(scale); it must be more than 0")
        }
        switch queueLimit {
        case .time(let limit) where limit <= 0: throw .make(.invalidArgument, "a queue limit of \(limit) ns")
        case .bytes(let limit) where limit <= 0: throw .make(.invalidArgument, "a queue limit of \(limit) bytes")
        default: break
        }
        self.capacity = capacity
        self.queueLimit = queueLimit
    }

    /// Bytes admitted and not yet departed at `time` (valid for times ≥ the last admission).
    public mutating func backlog(at time: Int64) -> Int {
        while queuedHead < queued.count, queued[queuedHead].departure <= time {
            queuedBytes -= queued[queuedHead].bytes
            queuedHead += 1
        }
        if queuedHead > 1024 {
            queued.removeFirst(queuedHead)
            queuedHead = 0
        }
        return queuedBytes
    }

    /// Offers a packet of `bytes` arriving at `time`; calls must come in time order.
    public mutating func admit(bytes: Int, at time: Int64) -> Admission {
        if case .bytes(let limit) = queueLimit, backlog(at: time) + bytes > limit { return .dropped }
        let departure: Int64?
        var trace: (next: Int, leftover: Int, leftoverTime: Int64) = (nextOpportunity, leftoverBytes, leftoverTime)
        var unused: [Int64] = []
        switch capacity {
        case .unlimited:
            departure = max(time, busyUntil)
        case .schedule(let schedule):
            departure = schedule.finish(bytes: bytes, startingAt: max(time, busyUntil))
        case .trace(let mahimahi, let scale):
            departure = Self.serve(bytes: bytes, arriving: time, on: mahimahi, scale: scale, state: &trace,
                                   unused: &unused, record: recordsUnusedOpportunities)
        }
        guard let departure else { return .dropped }
        if case .time(let limit) = queueLimit, departure - time > limit { return .dropped }
        busyUntil = departure
        (nextOpportunity, leftoverBytes, leftoverTime) = trace
        unusedOpportunities.append(contentsOf: unused)
        if case .bytes = queueLimit {
            queued.append((departure, bytes))
            queuedBytes += bytes
        }
        return .departs(at: departure)
    }

    /// Hands over the unused opportunities recorded so far.
    public mutating func takeUnusedOpportunities() -> [Int64] {
        defer { unusedOpportunities.removeAll(keepingCapacity: true) }
        return unusedOpportunities
    }

    /// Mahimahi's byte accounting: the rest of the last opportunity serves a packet that was already waiting at it;
    /// opportunities before the packet arrived pass unused; then whole opportunities until its last byte.
    private static func serve(bytes: Int, arriving time: Int64, on trace: MahimahiTrace, scale: Double,
                              state: inout (next: Int, leftover: Int, leftoverTime: Int64), unused: inout [Int64], record: Bool) -> Int64 {
        let perOpportunity = max(1, Int((Double(MahimahiTrace.opportunityBytes) * scale).rounded()))
        var remaining = bytes
        if state.leftover > 0 && time <= state.leftoverTime {
            let used = min(state.leftover, remaining)
            remaining -= used
            state.leftover -= used
            if remaining == 0 { return state.leftoverTime }
        }
        state.leftover = 0
        var index = state.next
        // An idle link: skip (and record) the opportunities that passed before this packet came.
        let first = trace.firstOpportunity(atOrAfter: time)
        if first > index {
            if record {
                for skipped in index ..< min(first, index + 100_000) { unused.append(trace.time(ofOpportunity: skipped)) }
            }
            index = first
        }
        while true {
            let at = trace.time(ofOpportunity: index)
            index += 1
            let used = min(perOpportunity, remaining)
            remaining -= used
            if remaining == 0 {
                state = (index, perOpportunity - used, at)
                return at
            }
        }
    }
}
