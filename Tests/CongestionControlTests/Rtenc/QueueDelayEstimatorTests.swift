import CongestionControl
import MediaCore
import Testing

/// The queue estimate from hand-made one-way delays: base = the smallest delay seen, standing = the smallest queue
/// among the last 40 ms of arrivals, latest = the newest packet's.
@Suite struct QueueDelayEstimatorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// One-way delays (ms) of packets sent every 10 ms.
        let delays: [Double?]
        let standing: Double
        let latest: Double
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "constant delay: no queue", delays: Array(repeating: 50, count: 10), standing: 0, latest: 0),
        Case(name: "a queue that grows 2 ms a packet", delays: (0 ..< 10).map { 50 + 2 * Double($0) }, standing: 12, latest: 18),
        // The last 40 ms hold 5 packets (arrivals 140…180 ms after their sends); one burst packet at +30 ms does not
        // move the standing queue, which is their minimum.
        Case(name: "a single late packet is not a standing queue", delays: [50, 50, 50, 50, 50, 50, 50, 50, 50, 80], standing: 0, latest: 30),
        Case(name: "losses are ignored", delays: [50, nil, 60, nil, 60, 60], standing: 10, latest: 10),
        Case(name: "a standing queue of 25 ms", delays: [50, 75, 75, 75, 75, 75, 75, 75], standing: 25, latest: 25),
    ]

    @Test(arguments: cases)
    func estimate(_ c: Case) throws {
        var estimator = QueueDelayEstimator()
        let packets = c.delays.enumerated().map { i, delay in RtencTestPackets.packet(Int64(i), sent: Double(i) * 10, delay: delay) }
        let updated = estimator.update(packets)
        #expect(updated)
        let standing = try #require(estimator.standing)
        let latest = try #require(estimator.latest)
        #expect(abs(Double(standing.nanoseconds) / 1e6 - c.standing) < 1e-6, "standing \(standing)")
        #expect(abs(Double(latest.nanoseconds) / 1e6 - c.latest) < 1e-6, "latest \(latest)")
    }

    @Test func aReportWithoutArrivalsChangesNothing() {
        var estimator = QueueDelayEstimator()
        let updated = estimator.update([RtencTestPackets.packet(0, sent: 0, delay: nil)])
        #expect(!updated)
        #expect(estimator.standing == nil && estimator.baseDelay == nil)
    }

    /// The base is remembered for 30 s, then forgotten: a path that became 20 ms longer reads as 20 ms of queue
    /// until its old minimum has aged out, then as none.
    @Test func theBaseAgesOutAfterThirtySeconds() throws {
        var estimator = QueueDelayEstimator()
        estimator.update([RtencTestPackets.packet(0, sent: 0, delay: 50)])
        var sequence: Int64 = 1
        var standingAt: [Int: Double] = [:]
        for second in 1 ... 35 {
            let packets = RtencTestPackets.series(from: Double(second) * 1000, count: 5, spacing: 10, firstSequence: sequence) { _ in 70 }
            sequence += 5
            estimator.update(packets)
            standingAt[second] = Double(try #require(estimator.standing).nanoseconds) / 1e6
        }
        #expect(abs(standingAt[10]! - 20) < 1e-6)
        #expect(abs(standingAt[29]! - 20) < 1e-6)
        #expect(standingAt[35]! == 0)
    }
}
