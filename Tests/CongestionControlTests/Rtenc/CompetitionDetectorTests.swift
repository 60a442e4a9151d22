import CongestionControl
import MediaCore
import Testing

/// Competing mode: entered when the standing queue stays above 60 ms for 5 s, left when it stays below 10 ms for 1 s.
@Suite struct CompetitionDetectorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// Standing queue (ms) of a report every 100 ms.
        let queue: [Double]
        /// The report (index) after which the detector is competing, or nil.
        let entersAt: Int?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a 50 ms queue never", queue: Array(repeating: 50, count: 80), entersAt: nil),
        Case(name: "a 3 s transient of 300 ms never", queue: Array(repeating: 5, count: 10) + Array(repeating: 300, count: 30) + Array(repeating: 5, count: 40), entersAt: nil),
        // 5 s above 60 ms from report 0 (time 0): the report at 5.0 s switches.
        Case(name: "a standing 100 ms queue after 5 s", queue: Array(repeating: 100, count: 60), entersAt: 50),
        Case(name: "one dip below restarts the wait", queue: Array(repeating: 100, count: 30) + [30] + Array(repeating: 100, count: 60), entersAt: 81),
    ]

    @Test(arguments: cases)
    func entry(_ c: Case) {
        var detector = CompetitionDetector()
        var entered: Int?
        for (i, queue) in c.queue.enumerated() {
            detector.update(standing: .nanoseconds(Int64(queue * 1e6)), at: RtencTestPackets.instant(ms: Double(i) * 100))
            if detector.competing, entered == nil { entered = i }
        }
        #expect(entered == c.entersAt)
    }

    @Test func leavesAfterASecondOfEmptyQueue() {
        var detector = CompetitionDetector()
        var t = 0.0
        func report(_ ms: Double) -> Bool {
            defer { t += 100 }
            return detector.update(standing: .nanoseconds(Int64(ms * 1e6)), at: RtencTestPackets.instant(ms: t))
        }
        for _ in 0 ... 50 { _ = report(150) }
        #expect(detector.competing)
        // A competitor's queue dips below 10 ms for half a second: still competing.
        for _ in 0 ..< 5 {
            let changed = report(2)
            #expect(!changed)
        }
        for _ in 0 ..< 5 { _ = report(60) }
        #expect(detector.competing)
        // Empty for a second: back to delay mode, reported as a change once.
        var changes = 0
        for _ in 0 ... 10 where report(2) { changes += 1 }
        #expect(changes == 1 && !detector.competing)
    }
}
