import MediaCore
import MediaIO
import Testing

/// The sleeping driver of `RealTimeSchedule`, on a manual clock: the test moves time inside `shouldStop`, which the
/// pacer polls while it waits, so no test time is spent sleeping beyond a few 50 ms slices.
@Suite struct RealTimeFramePacerTests {
    static func time(_ frame: Int64) -> MediaTime { MediaTime(value: frame, timescale: 30) }

    @Test func waitsForEachFrameAndSkipsLateOnes() {
        let clock = ManualClock(start: Instant(nanoseconds: 5_000_000_000))
        var pacer = RealTimeFramePacer(frameRate: Rational(30, 1), clock: clock)
        let turn1 = pacer.waitForTurn(of: Self.time(0))
        #expect(turn1)  // the first frame is due at once
        // Frame 1 is due 33.3 ms later: the pacer waits while the clock moves 10 ms per poll.
        var polls = 0
        let waited = pacer.waitForTurn(of: Self.time(1)) {
            polls += 1
            clock.advance(by: .milliseconds(10))
            return false
        }
        #expect(waited)
        #expect(polls == 4)
        #expect(clock.now >= Instant(nanoseconds: 5_033_333_333))
        // One second later frame 2 is ~0.97 s behind (more than 0.5 s): skipped and counted.
        clock.advance(by: .seconds(1))
        let turn2 = pacer.waitForTurn(of: Self.time(2))
        #expect(!turn2)
        #expect(pacer.lateFrames == 1)
        // Caught up with frame 32 (due at 1.067 s): encoded.
        clock.advance(to: Instant(nanoseconds: 6_100_000_000))
        let turn3 = pacer.waitForTurn(of: Self.time(32))
        #expect(turn3)
        #expect(pacer.lateFrames == 1)
    }

    @Test func stopEndsAWait() {
        let clock = ManualClock()
        var pacer = RealTimeFramePacer(clock: clock)
        let turn4 = pacer.waitForTurn(of: Self.time(0))
        #expect(turn4)
        // Frame 300 is due in 10 s; the stop request comes first.
        let stopped = !pacer.waitForTurn(of: Self.time(300)) { true }
        #expect(stopped)
        #expect(pacer.lateFrames == 0)
    }

    @Test func restartAfterAPause() {
        let clock = ManualClock()
        var pacer = RealTimeFramePacer(clock: clock)
        let turn5 = pacer.waitForTurn(of: Self.time(0))
        #expect(turn5)
        clock.advance(by: .seconds(5))
        pacer.restart(presentationTime: Self.time(30))
        let turn6 = pacer.waitForTurn(of: Self.time(30))
        #expect(turn6)
        #expect(pacer.lateFrames == 0)
    }
}
