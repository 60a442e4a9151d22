import Testing
@testable import RTP
@testable import RTPOut

/// RFC 3550 §6.2/§6.3.1 report timing, with a seeded generator so every run draws the same intervals.
struct RTCPReportScheduleTests {
    @Test func firstReportHalfAnIntervalAfterMediaStarts() {
        var schedule = RTCPReportSchedule(nominalInterval: .seconds(1), random: SeededGenerator(state: 1))
        #expect(schedule.takeIfDue(now: t0) == false)  // no media yet: nothing to report
        schedule.start(now: t0)
        schedule.start(now: t0 + .milliseconds(300))  // later packets do not move it
        #expect(schedule.nextReportTime == t0 + .milliseconds(500))
        #expect(schedule.takeIfDue(now: t0 + .milliseconds(499)) == false)
        #expect(schedule.takeIfDue(now: t0 + .milliseconds(500)) == true)
    }

    @Test(arguments: [Duration.seconds(1), .milliseconds(100), .seconds(5)])
    func intervalsStayInHalfToThreeHalvesAndAverageTheNominal(nominal: Duration) throws {
        var schedule = RTCPReportSchedule(nominalInterval: nominal, random: SeededGenerator(state: 42))
        var now = t0
        schedule.start(now: now)
        var intervals: [Double] = []
        for _ in 0 ..< 10_000 {
            now = try #require(schedule.nextReportTime)
            #expect(schedule.takeIfDue(now: now) == true)
            intervals.append((try #require(schedule.nextReportTime) - now).seconds / nominal.seconds)
        }
        #expect(intervals.allSatisfy { (0.5 ... 1.5).contains($0) })
        let mean = intervals.reduce(0, +) / Double(intervals.count)
        #expect(abs(mean - 1) < 0.01, "mean \(mean) × nominal")
        // Uniform, not clustered: both ends of the range are used (a quarter of the draws in each outer fifth…).
        let low = intervals.filter { $0 < 0.7 }.count, high = intervals.filter { $0 > 1.3 }.count
        #expect(low > 1500 && high > 1500, "\(low) below 0.7, \(high) above 1.3")
    }

    /// The point of randomizing: two senders started at the same instant drift apart instead of reporting in step.
    @Test func differentSeedsDesynchronize() {
        var a = RTCPReportSchedule(nominalInterval: .seconds(1), random: SeededGenerator(state: 1))
        var b = RTCPReportSchedule(nominalInterval: .seconds(1), random: SeededGenerator(state: 2))
        let first = (0 ..< 5).map { _ in a.nextInterval() }, second = (0 ..< 5).map { _ in b.nextInterval() }
        #expect(first != second)
    }

    @Test func wallClockSteppingBackReschedules() throws {
        var schedule = RTCPReportSchedule(nominalInterval: .seconds(1), random: SeededGenerator(state: 7))
        schedule.start(now: t0)
        #expect(schedule.takeIfDue(now: t0 + .milliseconds(500)) == true)
        // Within the longest interval (1.5 s) a step back is just waiting; beyond it, a report goes out now.
        #expect(schedule.takeIfDue(now: t0) == false)
        #expect(schedule.takeIfDue(now: t0 - .seconds(60)) == true)
        let next = try #require(schedule.nextReportTime)
        #expect(next >= t0 - .seconds(60) + .milliseconds(500) && next <= t0 - .seconds(60) + .milliseconds(1500))
    }

    @Test func senderSessionUsesTheInjectedGenerator() throws {
        func reportTimes(seed: UInt64) throws -> [RTPInstant] {
            var session = RTCPSenderSession(configuration: .init(ssrc: 1, cname: "c"), random: SeededGenerator(state: seed))
            session.rtpSent(payloadBytes: 100, rtpTimestamp: 0, captureTime: t0, now: t0)
            var times: [RTPInstant] = []
            for _ in 0 ..< 4 {
                let due = try #require(session.nextReportTime)
                #expect(session.makeReportIfDue(now: due) != nil)
                times.append(due)
            }
            return times
        }
        #expect(try reportTimes(seed: 9) == reportTimes(seed: 9))
        #expect(try reportTimes(seed: 9) != reportTimes(seed: 10))
    }
}
