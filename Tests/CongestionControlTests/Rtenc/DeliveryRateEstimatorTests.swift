import CongestionControl
import Testing

/// Delivery rates of hand-made arrival series: bytes after the window's first arrival over its span.
@Suite struct DeliveryRateEstimatorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// Arrival spacing (ms) of 1000-byte packets, for 1.5 s.
        let spacing: Double
        let bitsPerSecond: Double
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "1000 B every 8 ms: 1 Mb/s", spacing: 8, bitsPerSecond: 1_000_000),
        Case(name: "1000 B every 16 ms: 500 kb/s", spacing: 16, bitsPerSecond: 500_000),
        Case(name: "1000 B every 4 ms: 2 Mb/s", spacing: 4, bitsPerSecond: 2_000_000),
    ]

    @Test(arguments: cases)
    func steadyArrivals(_ c: Case) throws {
        var estimator = DeliveryRateEstimator()
        let count = Int(1500 / c.spacing)
        estimator.update(RtencTestPackets.series(from: 0, count: count, spacing: c.spacing, bytes: 1000) { _ in 50 })
        let short = try #require(estimator.shortTerm)
        let long = try #require(estimator.longTerm)
        #expect(abs(short - c.bitsPerSecond) / c.bitsPerSecond < 1e-6)
        #expect(abs(long - c.bitsPerSecond) / c.bitsPerSecond < 1e-6)
    }

    /// A capacity drop: 1 s at 1 Mb/s then 300 ms at 500 kb/s. The short window has seen only the new rate; the long
    /// one mixes both.
    @Test func theShortWindowFollowsADrop() throws {
        var estimator = DeliveryRateEstimator()
        var packets = RtencTestPackets.series(from: 0, count: 125, spacing: 8, bytes: 1000) { _ in 50 }
        packets += RtencTestPackets.series(from: 1000, count: 19, spacing: 16, firstSequence: 125, bytes: 1000) { _ in 50 }
        estimator.update(packets)
        let short = try #require(estimator.shortTerm)
        let long = try #require(estimator.longTerm)
        #expect(abs(short - 500_000) < 1)
        #expect(long > 600_000 && long < 900_000, "\(long)")
    }

    @Test func lostPacketsAndTooShortSpansGiveNothing() {
        var estimator = DeliveryRateEstimator()
        estimator.update(RtencTestPackets.series(from: 0, count: 5, spacing: 10) { _ in nil })
        #expect(estimator.shortTerm == nil && estimator.longTerm == nil)
        estimator.update(RtencTestPackets.series(from: 0, count: 5, spacing: 10, firstSequence: 5) { _ in 50 })
        #expect(estimator.shortTerm == nil, "40 ms is less than half of the short window")
    }
}
