import MediaCore
import Testing

@Suite struct RecentDurationsTests {
    @Test(arguments: [
        // samples (ms, in recording order) → count, median, p90, max (ms): nearest rank, ⌈p·n⌉-th of the sorted window
        ([7], 1, 7, 7, 7),
        ([3, 1], 2, 1, 3, 3),
        ([5, 1, 4, 2, 3], 5, 3, 5, 5),
        ([10, 9, 8, 7, 6, 5, 4, 3, 2, 1], 10, 5, 9, 10),
        ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100], 11, 6, 10, 100),
    ] as [([Int64], Int, Int64, Int64, Int64)])
    func percentilesByNearestRank(samples: [Int64], count: Int, median: Int64, p90: Int64, max: Int64) throws {
        var window = RecentDurations(capacity: 64)
        for sample in samples { window.record(.milliseconds(sample)) }
        let summary = try #require(window.summary)
        #expect(summary == RecentDurations.Summary(count: count, median: .milliseconds(median), p90: .milliseconds(p90),
                                                   max: .milliseconds(max)))
        #expect(window.recorded == samples.count)
    }

    @Test func emptyHasNoSummary() {
        #expect(RecentDurations().summary == nil)
    }

    @Test func forgetsAllButTheLastCapacitySamples() throws {
        var window = RecentDurations(capacity: 4)
        // 100 ms four times, then 1…4 ms: only the last four count.
        for _ in 0 ..< 4 { window.record(.milliseconds(100)) }
        for ms in 1 ... 4 { window.record(.milliseconds(Int64(ms))) }
        let summary = try #require(window.summary)
        #expect(summary.count == 4)
        #expect(summary.max == .milliseconds(4))
        #expect(summary.median == .milliseconds(2))
        #expect(window.recorded == 8)
        // One more wraps over the oldest (1 ms).
        window.record(.milliseconds(50))
        #expect(window.summary?.max == .milliseconds(50))
        #expect(window.summary?.median == .milliseconds(3))
    }

    @Test func capacityIsAtLeastOne() {
        var window = RecentDurations(capacity: 0)
        window.record(.seconds(1))
        window.record(.seconds(2))
        #expect(window.capacity == 1)
        #expect(window.summary?.count == 1)
        #expect(window.summary?.median == .seconds(2))
    }
}
