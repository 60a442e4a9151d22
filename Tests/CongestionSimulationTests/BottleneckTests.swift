import Testing
@testable import CongestionSimulation

struct BottleneckTests {
    static let ms: Int64 = 1_000_000

    /// Service times at given capacities: (capacity steps, packets (arrival ms, bytes)) → departures in ns.
    @Test(arguments: [
        // 1 Mb/s: 1250 bytes take 10 ms; back to back they queue.
        ([(0.0, 1e6)], [(0.0, 1250), (0.0, 1250), (25.0, 125)], [10 * ms, 20 * ms, 26 * ms]),
        // 2.5 Mb/s: 1250 bytes in 4 ms.
        ([(0.0, 2.5e6)], [(1.0, 1250)], [5 * ms]),
        // The rate drops from 1 Mb/s to 0.5 Mb/s at 5 ms: 625 bytes at 1 Mb/s, then 625 at 0.5 Mb/s (10 ms).
        ([(0.0, 1e6), (0.005, 0.5e6)], [(0.0, 1250)], [15 * ms]),
        // No capacity until 100 ms, then 1 Mb/s.
        ([(0.0, 0.0), (0.1, 1e6)], [(0.0, 1250)], [110 * ms]),
    ] as [([(Double, Double)], [(Double, Int)], [Int64])])
    func serviceTimesOnASchedule(steps: [(Double, Double)], packets: [(Double, Int)], departures: [Int64]) throws {
        let schedule = try CapacitySchedule(steps.map { .init(start: Int64(($0.0 * 1e9).rounded()), bitsPerSecond: $0.1) })
        var bottleneck = try Bottleneck(capacity: .schedule(schedule), queueLimit: .unlimited)
        let out = packets.map { bottleneck.admit(bytes: $0.1, at: Int64($0.0 * 1e6)) }
        #expect(out == departures.map { .departs(at: $0) })
    }

    /// RFC 8868's queue measured as time to drain: at 1 Mb/s a 300 ms queue takes thirty 1250-byte packets that
    /// arrive together; the 31st would leave after 310 ms and is dropped, without taking a slot; later ones fit again
    /// once the queue drained.
    @Test func dropsByTimeToDrain() throws {
        var bottleneck = try Bottleneck(capacity: .schedule(.constant(1e6)), queueLimit: .time(300 * Self.ms))
        let burst = (0 ..< 32).map { _ in bottleneck.admit(bytes: 1250, at: 0) }
        #expect(burst.prefix(30) == ArraySlice((1 ... 30).map { .departs(at: Int64($0) * 10 * Self.ms) }))
        #expect(burst.suffix(2) == [.dropped, .dropped])
        #expect(bottleneck.admit(bytes: 1250, at: 5 * Self.ms) == .dropped, "it would leave 305 ms after it came")
        #expect(bottleneck.admit(bytes: 1250, at: 10 * Self.ms) == .departs(at: 310 * Self.ms), "exactly 300 ms: kept")
    }

    /// The same limit after the capacity halves: what fitted at the old rate is now too much (time, not bytes).
    @Test func timeLimitFollowsTheCapacity() throws {
        let schedule = try CapacitySchedule.ratios(reference: 1e6, [(0, 1.0), (0.1, 0.5)])
        var bottleneck = try Bottleneck(capacity: .schedule(schedule), queueLimit: .time(300 * Self.ms))
        let admitted = (0 ..< 40).map { _ in bottleneck.admit(bytes: 1250, at: 0) }.count { $0 != .dropped }
        // 10 packets in the first 100 ms at 1 Mb/s, then 20 ms each: 10 more by 300 ms.
        #expect(admitted == 20)
    }

    @Test func dropsByBytes() throws {
        var bottleneck = try Bottleneck(capacity: .schedule(.constant(1e6)), queueLimit: .bytes(3000))
        #expect(bottleneck.admit(bytes: 1250, at: 0) == .departs(at: 10 * Self.ms))
        #expect(bottleneck.admit(bytes: 1250, at: 0) == .departs(at: 20 * Self.ms))
        #expect(bottleneck.admit(bytes: 1250, at: 0) == .dropped)
        #expect(bottleneck.admit(bytes: 1250, at: 10 * Self.ms) == .departs(at: 30 * Self.ms))
    }

    /// Mahimahi's delivery opportunities: a trace of `1` is 1504 bytes every millisecond; small packets share an
    /// opportunity they were waiting for, a large one spans several, idle opportunities go unused.
    @Test func traceDeliveryOpportunities() throws {
        var bottleneck = try Bottleneck(capacity: .trace(try MahimahiTrace(parsing: "1\n"), scale: 1), queueLimit: .unlimited)
        bottleneck.recordsUnusedOpportunities = true
        #expect(bottleneck.admit(bytes: 500, at: 0) == .departs(at: 1 * Self.ms))
        #expect(bottleneck.admit(bytes: 500, at: 500_000) == .departs(at: 1 * Self.ms), "shares the first opportunity")
        #expect(bottleneck.admit(bytes: 1000, at: 600_000) == .departs(at: 2 * Self.ms), "504 bytes left, the rest next ms")
        #expect(bottleneck.admit(bytes: 3008, at: 10 * Self.ms) == .departs(at: 11 * Self.ms), "spans the 10 and 11 ms ones")
        #expect(bottleneck.takeUnusedOpportunities() == (3 ... 9).map { Int64($0) * Self.ms })
        // A packet arriving after the partly used opportunity cannot use its rest.
        #expect(bottleneck.admit(bytes: 100, at: 11 * Self.ms + 1) == .departs(at: 12 * Self.ms))
    }

    /// A trace with repeated and wrapping timestamps: "0 0 5" delivers two opportunities at 0, one at 5, then wraps
    /// to 5, 5, 10, 10, 10, 15 …; scale 0.5 halves each opportunity.
    @Test func traceWrapsAndScales() throws {
        let trace = try MahimahiTrace(parsing: "0\n0\n5\n")
        #expect((0 ..< 7).map { trace.time(ofOpportunity: $0) / Self.ms } == [0, 0, 5, 5, 5, 10, 10])
        #expect(trace.firstOpportunity(atOrAfter: 6 * Self.ms) == 5)
        #expect(trace.meanBitsPerSecond() == 3 * 1504 * 8 / 0.005)
        var bottleneck = try Bottleneck(capacity: .trace(trace, scale: 0.5), queueLimit: .unlimited)
        #expect(bottleneck.admit(bytes: 1504, at: 0) == .departs(at: 0), "two half opportunities at 0 ms")
        #expect(bottleneck.admit(bytes: 1504, at: 0) == .departs(at: 5 * Self.ms))
    }

    @Test(arguments: ["", "abc\n", "5\n3\n", "0\n", "-1\n", "10000000000000\n", "1\n9223372036854775807\n"])
    func refusesBadTraces(text: String) {
        #expect(throws: SimulationError.self) { try MahimahiTrace(parsing: text) }
    }

    /// RFC 8868's jitter: |N(0, σ²)| cut at 3σ, and no packet overtakes another, even when departures are close.
    @Test func jitterNeverReordersAndStaysWithinThreeSigma() throws {
        var path = ImpairedPath(try PathImpairment(propagation: 50 * Self.ms, jitterStandardDeviation: 5 * Self.ms))
        var random = SimulationRandom(seed: 3)
        var last: Int64 = 0
        var maxExtra: Int64 = 0
        var someJitter = false
        for i in 0 ..< 20_000 {
            let departure = Int64(i) * 500_000  // every 0.5 ms: far closer than the jitter
            let arrival = try #require(path.arrival(departure: departure, random: &random))
            #expect(arrival >= last)
            #expect(arrival >= departure + 50 * Self.ms)
            maxExtra = max(maxExtra, arrival - departure - 50 * Self.ms)
            someJitter = someJitter || arrival - departure - 50 * Self.ms > Self.ms
            last = arrival
        }
        #expect(someJitter)
        // Held back behind an earlier packet it can exceed 3σ only by the spacing of the departures it waited for.
        #expect(maxExtra <= 15 * Self.ms)
    }

    @Test func randomLossHasItsRate() throws {
        var path = ImpairedPath(try PathImpairment(propagation: 0, lossRate: 0.1))
        var random = SimulationRandom(seed: 8)
        let lost = (0 ..< 100_000).count { path.arrival(departure: Int64($0), random: &random) == nil }
        #expect((9_700 ... 10_300).contains(lost))
    }
}
