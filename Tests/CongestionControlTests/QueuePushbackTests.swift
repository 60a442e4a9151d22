import Testing
import CongestionControl

/// The encoder's pushback on the viewers' pacer queue, one row per situation: each step is one frame with the worst
/// queue time given; the rows check the skips and the target (goog_cc's congestion-window pushback factors on a
/// 100 ms bound, never below 30 kb/s unless the policy's own target is).
@Suite struct QueuePushbackTests {
    struct Row: Sendable, CustomStringConvertible {
        var description: String
        /// Queue time per frame, ms (nil: no viewer sends yet).
        var queueMs: [Int?]
        var target: UInt64 = 1_000_000
        var skips: [Bool]
        var finalTarget: UInt64
    }

    static let rows: [Row] = [
        Row(description: "no viewer: encode at the target", queueMs: [nil], skips: [false], finalTarget: 1_000_000),
        Row(description: "a short queue: encode at the target", queueMs: [5, 9], skips: [false, false], finalTarget: 1_000_000),
        // 0.1 ≤ fill ≤ 1 with the ratio at 1: × 1.05, capped at 1.
        Row(description: "a queue under the bound changes nothing", queueMs: [60, 100], skips: [false, false], finalTarget: 1_000_000),
        Row(description: "over the bound: skip, × 0.95", queueMs: [120], skips: [true], finalTarget: 950_000),
        Row(description: "over 1.5 × the bound: skip, × 0.9", queueMs: [151], skips: [true], finalTarget: 900_000),
        // 0.9 × 0.9 × 0.95 = 0.7695, then 0.5 (× 1.05 → 0.807975).
        Row(description: "a long queue compounds, then recovers by 5 % a frame", queueMs: [400, 200, 120, 50],
            skips: [true, true, true, false], finalTarget: 807_975),
        Row(description: "a drained queue restores the target at once", queueMs: [400, 300, 5], skips: [true, true, false],
            finalTarget: 1_000_000),
        // 40 kb/s × 0.9 = 36, × 0.9 = 32.4, × 0.9 = 29.16 → held at 30 kb/s.
        Row(description: "never pushed under 30 kb/s", queueMs: [400, 400, 400], target: 40_000, skips: [true, true, true],
            finalTarget: 30_000),
        Row(description: "a policy target under 30 kb/s is obeyed", queueMs: [400], target: 20_000, skips: [true], finalTarget: 20_000),
    ]

    @Test(arguments: rows) func row(_ row: Row) {
        var pushback = QueuePushback()
        var decisions: [QueuePushback.Decision] = []
        for ms in row.queueMs {
            decisions.append(pushback.decide(queueTime: ms.map { .milliseconds($0) }, target: row.target))
        }
        #expect(decisions.map(\.skip) == row.skips)
        #expect(decisions.last?.target == row.finalTarget)
        #expect(pushback.framesSkipped == row.skips.count { $0 })
    }
}
