import MediaCore
import Testing

@Suite struct RealTimeScheduleTests {
    struct Step: Sendable, CustomStringConvertible {
        /// Presentation time in 1/30 s ticks, and the wall time of the call in milliseconds since the first.
        var frame: Int64, nowMs: Int64
        var expected: RealTimeSchedule.Decision
        var description: String { "frame \(frame) at \(nowMs) ms" }
    }

    static func at(_ ms: Int64) -> Instant { Instant(nanoseconds: 1_000_000_000 + ms * 1_000_000) }

    /// 30 fps from pts 90 (not 0: the anchor is the first frame, whatever its time), max lateness 500 ms.
    static let steps: [Step] = [
        Step(frame: 90, nowMs: 0, expected: .due),                                       // anchors
        Step(frame: 91, nowMs: 10, expected: .wait(until: at(33) + .nanoseconds(333_333))),
        Step(frame: 92, nowMs: 67, expected: .due),                                      // 0.3 ms late: due
        Step(frame: 93, nowMs: 600, expected: .due),                                     // exactly 500 ms behind: due
        Step(frame: 100, nowMs: 834, expected: .late(by: .nanoseconds(500_666_667))),    // due at 333.3 ms: late
        Step(frame: 120, nowMs: 1_000, expected: .due),                                  // caught up
        Step(frame: 150, nowMs: 1_000, expected: .wait(until: at(2_000))),
    ]

    @Test func decisionsAlongOneStream() {
        var schedule = RealTimeSchedule(maxLateness: .milliseconds(500))
        var decisions: [RealTimeSchedule.Decision] = []
        for step in Self.steps {
            decisions.append(schedule.decide(MediaTime(value: step.frame, timescale: 30), now: Self.at(step.nowMs)))
        }
        #expect(decisions == Self.steps.map(\.expected))
    }

    @Test func restartMakesAFrameDueNow() {
        var schedule = RealTimeSchedule(maxLateness: .milliseconds(500))
        _ = schedule.decide(MediaTime(value: 0, timescale: 1000), now: Self.at(0))
        // A pause of 10 s: frame 1 s would be 9 s late; after a restart it is due, and the next one is paced again.
        #expect(schedule.decide(MediaTime(value: 1000, timescale: 1000), now: Self.at(10_000)) == .late(by: .seconds(9)))
        schedule.restart(presentationTime: MediaTime(value: 1000, timescale: 1000), at: Self.at(10_000))
        #expect(schedule.decide(MediaTime(value: 1000, timescale: 1000), now: Self.at(10_000)) == .due)
        #expect(schedule.decide(MediaTime(value: 1040, timescale: 1000), now: Self.at(10_000)) == .wait(until: Self.at(10_040)))
        #expect(schedule.dueInstant(of: MediaTime(value: 2000, timescale: 1000)) == Self.at(11_000))
    }

    static let latenessCases: [(rate: Rational?, milliseconds: Int64)] = [
        (nil, 500), (Rational(30, 1), 500), (Rational(1, 1), 2_000), (Rational(0, 1), 500),
    ]

    @Test(arguments: latenessCases)
    func defaultLatenessIsHalfASecondOrTwoFrames(rate: Rational?, milliseconds: Int64) {
        #expect(RealTimeSchedule(frameRate: rate).maxLateness == .milliseconds(milliseconds))
    }

    @Test func noDecisionBeforeTheFirstFrame() {
        #expect(RealTimeSchedule().dueInstant(of: MediaTime(value: 0, timescale: 1)) == nil)
    }
}
