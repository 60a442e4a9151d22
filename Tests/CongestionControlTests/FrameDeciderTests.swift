import CongestionControl
import MediaCore
import Testing

/// The one per-frame decision of both live encode loops, one row per situation: each step is a frame 33 ms after the
/// last, with the worst queue time, the controller's word for it and whether a keyframe was asked for; the rows check
/// every decision and what the statistics came to.
@Suite struct FrameDeciderTests {
    typealias Decision = FrameDecider.Decision

    struct Step: Sendable {
        /// The worst queue, ms (nil: nothing paced yet).
        var queueMs: Int?
        /// The controller's `frameByteLimit`: nil no budget, 0 skip.
        var limit: Int? = nil
        var keyframeRequested = false
        var mustEncode = false
        /// The encoded frame's size when it is encoded (for overruns).
        var bytes = 1000
        var expect: Decision
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var target: UInt64 = 1_000_000
        var steps: [Step]
        var skippedByController = 0
        var skippedByQueue = 0
        var flushes = 0
        var budgeted = 0
        var overruns = 0
        /// The longest freeze, in frame intervals (33 ms each).
        var longestSkipRun = 0
    }

    static func encode(_ target: UInt64 = 1_000_000, bytes: Int? = nil, keyframe: Bool = false) -> Decision {
        .encode(target: target, maxFrameBytes: bytes, keyframe: keyframe)
    }

    static let rows: [Row] = [
        Row(testDescription: "nothing paced, no budget: encode at the target",
            steps: [Step(queueMs: nil, expect: encode()), Step(queueMs: 5, expect: encode())]),
        Row(testDescription: "the controller's budget reaches the encoder; a frame above it is an overrun",
            steps: [Step(queueMs: 10, limit: 4000, bytes: 3900, expect: encode(bytes: 4000)),
                    Step(queueMs: 10, limit: 3000, bytes: 3500, expect: encode(bytes: 3000)),
                    Step(queueMs: 10, expect: encode())],
            budgeted: 2, overruns: 1),
        Row(testDescription: "the controller's skip: nothing encoded, the PLI waits for the next encoded frame",
            steps: [Step(queueMs: 10, expect: encode()),
                    Step(queueMs: 10, limit: 0, keyframeRequested: true, expect: .skip(.controller)),
                    Step(queueMs: 10, limit: 0, expect: .skip(.controller)),
                    Step(queueMs: 10, limit: 2000, expect: encode(bytes: 2000, keyframe: true)),
                    Step(queueMs: 10, expect: encode())],
            skippedByController: 2, budgeted: 1, longestSkipRun: 3),
        // libwebrtc's pushback factors on a 100 ms bound: × 0.95 over it, × 0.9 over 1.5 ×, × 1.05 back up to 1.
        Row(testDescription: "a queue over 100 ms skips and pushes the target back; it recovers by 5 % a frame",
            steps: [Step(queueMs: 10, expect: encode()),
                    Step(queueMs: 120, expect: .skip(.queue)),
                    Step(queueMs: 160, keyframeRequested: true, expect: .skip(.queue)),
                    Step(queueMs: 50, expect: encode(897_750, keyframe: true)),
                    Step(queueMs: 50, expect: encode(942_638))],
            skippedByQueue: 2, longestSkipRun: 3),
        Row(testDescription: "both: the controller's skip is the reason given",
            steps: [Step(queueMs: 300, limit: 0, expect: .skip(.controller))], skippedByController: 1),
        Row(testDescription: "a forced IDR is never skipped, by either, and keeps the budget",
            steps: [Step(queueMs: 300, limit: 0, mustEncode: true, expect: encode(900_000, keyframe: true)),
                    Step(queueMs: 120, limit: 1500, mustEncode: true, bytes: 1400, expect: encode(855_000, bytes: 1500, keyframe: true))],
            budgeted: 1),
        Row(testDescription: "a queue over 2 s is flushed for an IDR at the full target, the budget kept, the skip not",
            steps: [Step(queueMs: 10, expect: encode()),
                    Step(queueMs: 400, expect: .skip(.queue)),
                    Step(queueMs: 2100, limit: 0, expect: .flushAndKeyframe(target: 1_000_000, maxFrameBytes: nil)),
                    Step(queueMs: 2500, limit: 6000, bytes: 7000, expect: .flushAndKeyframe(target: 1_000_000, maxFrameBytes: 6000)),
                    Step(queueMs: 0, expect: encode())],
            skippedByQueue: 1, flushes: 2, budgeted: 1, overruns: 1, longestSkipRun: 2),
        Row(testDescription: "a low target is pushed no lower than 30 kb/s", target: 40_000,
            steps: [Step(queueMs: 20, expect: encode()),
                    Step(queueMs: 400, expect: .skip(.queue)), Step(queueMs: 400, expect: .skip(.queue)),
                    Step(queueMs: 400, expect: .skip(.queue)), Step(queueMs: 20, expect: encode(30_618))],
            skippedByQueue: 3, longestSkipRun: 4),
    ]

    @Test(arguments: rows) func row(_ row: Row) {
        var decider = FrameDecider()
        let frame = Duration.nanoseconds(33_000_000)
        var now = Instant(nanoseconds: 1_000_000_000)
        for (index, step) in row.steps.enumerated() {
            var expected = step.expect
            if case .encode(let target, let bytes, let keyframe) = expected, target == 1_000_000, row.target != 1_000_000 {
                expected = .encode(target: row.target, maxFrameBytes: bytes, keyframe: keyframe)
            }
            let decision = decider.decide(at: now, queueTime: step.queueMs.map { .milliseconds($0) }, target: row.target,
                                          frameByteLimit: step.limit, keyframeRequested: step.keyframeRequested,
                                          mustEncode: step.mustEncode)
            #expect(decision == expected, "frame \(index)")
            if decision.encodes { decider.encoded(bytes: step.bytes) }
            now += frame
        }
        let s = decider.statistics
        #expect(s.skippedByController == row.skippedByController)
        #expect(s.skippedByQueue == row.skippedByQueue)
        #expect(s.skipped == row.skippedByController + row.skippedByQueue)
        #expect(s.flushes == row.flushes)
        #expect(s.budgeted == row.budgeted)
        #expect(s.budgetOverruns == row.overruns)
        #expect(s.encoded == row.steps.count - s.skipped)
        #expect(s.longestSkipRun == frame * row.longestSkipRun)
    }
}
