#if canImport(Glibc)
import Glibc
#endif
import MediaCore
import Testing

@Suite struct InstantTests {
    @Test(arguments: [
        // instant ns, duration ns → sum ns
        (Int64(0), Int64(1), Int64(1)),
        (1_000_000_000, -1_500_000_000, -500_000_000),
        (-7, 7, 0),
        (9_000_000_000_000_000_000, 200_000_000_000_000_000, 9_200_000_000_000_000_000),
    ])
    func addsAndSubtractsDurations(instant: Int64, duration: Int64, sum: Int64) {
        let start = Instant(nanoseconds: instant)
        let step = Duration.nanoseconds(duration)
        #expect((start + step).nanoseconds == sum)
        #expect((start + step) - step == start)
        #expect((start + step) - start == step)
        #expect(start.duration(to: start + step) == step)
        var moved = start
        moved += step
        #expect(moved == start + step)
    }

    @Test func ordersByTime() {
        let instants = [Instant(nanoseconds: 5), .zero, Instant(nanoseconds: -3), Instant(nanoseconds: 1_000_000_000)]
        #expect(instants.sorted().map(\.nanoseconds) == [-3, 0, 5, 1_000_000_000])
        #expect(Instant(nanoseconds: 1_500_000_000).description == "1.5s")
    }

    /// Duration → whole nanoseconds, truncated toward zero.
    static let nanosecondCases: [(Duration, Int64)] = [
        (.seconds(2), 2_000_000_000),
        (.milliseconds(-1500), -1_500_000_000),
        (.nanoseconds(1), 1),
        (.microseconds(3), 3_000),
        (Duration(secondsComponent: 0, attosecondsComponent: 999_999_999), 0),  // below a nanosecond
        (Duration(secondsComponent: 1, attosecondsComponent: 1_999_999_999), 1_000_000_001),
    ]

    @Test(arguments: nanosecondCases)
    func durationInNanoseconds(duration: Duration, expected: Int64) {
        #expect(Instant.zero + duration == Instant(nanoseconds: expected))
    }
}

@Suite struct ManualClockTests {
    @Test func movesOnlyWhenTold() {
        let clock = ManualClock(start: Instant(nanoseconds: 100))
        #expect(clock.now == Instant(nanoseconds: 100))
        #expect(clock.now == Instant(nanoseconds: 100))
        clock.advance(by: .milliseconds(20))
        #expect(clock.now == Instant(nanoseconds: 20_000_100))
        clock.advance(by: .zero)
        #expect(clock.now == Instant(nanoseconds: 20_000_100))
    }

    @Test func advancesToALaterInstantOnly() {
        let clock = ManualClock()
        #expect(clock.advance(to: Instant(nanoseconds: 50)))
        #expect(clock.now.nanoseconds == 50)
        #expect(!clock.advance(to: Instant(nanoseconds: 10)))   // never back
        #expect(!clock.advance(to: Instant(nanoseconds: 50)))   // already there
        #expect(clock.now.nanoseconds == 50)
    }

    @Test func isSharedBetweenTheTestAndTheCodeUnderTest() {
        /// What sans-IO code does: hold some clock and ask it for now.
        struct Deadline<C: MediaClock> {
            let clock: C
            let due: Instant
            var expired: Bool { clock.now >= due }
        }
        let clock = ManualClock()
        let deadline = Deadline(clock: clock, due: clock.now + .seconds(2))
        #expect(!deadline.expired)
        clock.advance(by: .milliseconds(1999))
        #expect(!deadline.expired)
        clock.advance(by: .milliseconds(1))
        #expect(deadline.expired)
    }

    @Test func concurrentAdvancesAllCount() async {
        let clock = ManualClock()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<1000 { clock.advance(by: .nanoseconds(1)) } }
            }
        }
        #expect(clock.now.nanoseconds == 8000)
    }
}

@Suite struct MonotonicMediaClockTests {
    #if canImport(Glibc)
    /// The clock reads CLOCK_MONOTONIC (through the standard library), so its value lies between two direct reads.
    @Test func readsCLOCK_MONOTONIC() {
        func monotonicNanoseconds() -> Int64 {
            var spec = timespec()
            clock_gettime(CLOCK_MONOTONIC, &spec)
            return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
        }
        let before = monotonicNanoseconds()
        let now = MonotonicMediaClock().now.nanoseconds
        let after = monotonicNanoseconds()
        #expect(before <= now && now <= after)
    }
    #endif

    @Test func neverGoesBackAndFollowsRealTime() async throws {
        let clock = MonotonicMediaClock()
        var previous = clock.now
        var wentBack = false
        for _ in 0..<10_000 {
            let now = clock.now
            wentBack = wentBack || now < previous
            previous = now
        }
        #expect(!wentBack)
        // At least the time slept (no upper bound: a loaded machine may wake the task late).
        let start = clock.now
        try await Task.sleep(for: .milliseconds(20))
        #expect(clock.now - start >= .milliseconds(20))
    }
}
