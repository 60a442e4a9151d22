/// What happens to one flow's packets after the shared queue: random loss, then the flow's own propagation delay
/// plus RFC 8868 §4.4's no-reordering jitter. Per flow, because RFC 8867 §5.5 gives each flow its own delay.
public struct PathImpairment: Sendable, Hashable {
    /// One-way propagation delay, ns.
    public var propagation: Int64
    /// Standard deviation of the jitter, ns (RFC 8868: 5 ms); 0: none. Each packet's extra delay is |N(0, σ²)|
    /// truncated at 3σ.
    public var jitterStandardDeviation: Int64
    /// Independent random loss after the queue, 0…1.
    public var lossRate: Double

    public init(propagation: Int64, jitterStandardDeviation: Int64 = 0, lossRate: Double = 0) throws(SimulationError) {
        guard propagation >= 0 else { throw .make(.invalidArgument, "a propagation delay of \(propagation) ns") }
        guard jitterStandardDeviation >= 0 else { throw .make(.invalidArgument, "a jitter of \(jitterStandardDeviation) ns") }
        guard (0 ... 1).contains(lossRate) else { throw .make(.invalidArgument, "a loss rate of \(lossRate); it must be within 0…1") }
        self.propagation = propagation
        self.jitterStandardDeviation = jitterStandardDeviation
        self.lossRate = lossRate
    }
}

/// The running state of a `PathImpairment`: the last arrival, so that no packet overtakes another (RFC 8868 §4.4:
/// if j(n) < j(n−1) + serialisation then j(n) := j(n−1) + serialisation; with departures from a FIFO that is the
/// same as never arriving before the previous packet).
public struct ImpairedPath: Sendable {
    public let impairment: PathImpairment
    private var lastArrival: Int64 = .min

    public init(_ impairment: PathImpairment) { self.impairment = impairment }

    /// The arrival of a packet that left the queue at `departure`, or nil when it is lost on the way.
    public mutating func arrival(departure: Int64, random: inout SimulationRandom) -> Int64? {
        if random.chance(impairment.lossRate) { return nil }
        var jitter: Int64 = 0
        if impairment.jitterStandardDeviation > 0 {
            var z = random.standardNormal()
            while abs(z) > 3 { z = random.standardNormal() }
            jitter = Int64((abs(z) * Double(impairment.jitterStandardDeviation)).rounded())
        }
        let arrival = max(departure + impairment.propagation + jitter, lastArrival)
        lastArrival = arrival
        return arrival
    }
}
