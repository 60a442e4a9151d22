import CongestionControl
import MediaCore
import Testing

/// The rate rule, one report at a time: (standing queue, delivery rates, loss, mode) → action and target. Defaults
/// at 1 Mb/s: target 15 ms, empty below 6 ms, back-off 0.92 × delivered, +150 kb/s per s, ramp 30 %/s after 1 s of empty queue
/// capped at 1.3 × the long-term delivery rate, loss above 10 % → × (1 − ½ loss); competing: +60 kb/s per s, × 0.85
/// on loss.
@Suite struct RtencRateControlTests {
    struct Report: Sendable {
        var queue: Double
        var short: Double? = 1_000_000
        var long: Double? = 1_000_000
        var loss = 0.0
        var competing = false
        /// Newest send time in the report, ms (default: 100 ms before the report).
        var newestSent: Double?
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let start: Double
        /// One report every 100 ms from t = 100 ms.
        let reports: [Report]
        let action: RtencRateControl.Action
        let target: Double
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // The first report has no elapsed time: it sets the clock. The second acts on 100 ms.
        Case(name: "above the target: back to 0.92 × the delivery rate", start: 1_000_000,
             reports: [Report(queue: 30, short: 800_000)], action: .delayBackoff, target: 736_000),
        Case(name: "the back-off never raises the target", start: 1_000_000,
             reports: [Report(queue: 30, short: 1_200_000)], action: .delayBackoff, target: 920_000),
        Case(name: "in the band: +150 kb/s per s", start: 1_000_000,
             reports: [Report(queue: 15), Report(queue: 15)], action: .additiveIncrease, target: 1_015_000),
        Case(name: "an empty queue ramps only after a second", start: 1_000_000,
             reports: Array(repeating: Report(queue: 2), count: 10), action: .additiveIncrease, target: 1_135_000),
        Case(name: "then 30 %/s", start: 1_000_000,
             reports: Array(repeating: Report(queue: 2, long: 2_000_000), count: 11), action: .ramp, target: 1_135_000 * 1.03),
        Case(name: "never above 1.3 × what was delivered", start: 1_000_000,
             reports: [Report(queue: 2, long: 500_000), Report(queue: 2, long: 500_000)], action: .hold, target: 1_000_000),
        Case(name: "20 % loss: × 0.9", start: 1_000_000, reports: [Report(queue: 2, loss: 0.2)], action: .lossBackoff, target: 900_000),
        Case(name: "5 % loss alone is ignored", start: 1_000_000,
             reports: [Report(queue: 15, loss: 0.05), Report(queue: 15, loss: 0.05)], action: .additiveIncrease, target: 1_015_000),
        Case(name: "competing: the queue is ignored, +60 kb/s per s", start: 500_000,
             reports: [Report(queue: 250, competing: true), Report(queue: 250, competing: true)], action: .additiveIncrease, target: 506_000),
        Case(name: "competing: any loss × 0.85", start: 500_000,
             reports: [Report(queue: 250, loss: 0.02, competing: true)], action: .lossBackoff, target: 425_000),
        // The second report covers only packets sent before the first back-off (at 100 ms): no second cut.
        Case(name: "one back-off per round trip", start: 1_000_000,
             reports: [Report(queue: 30, short: 800_000), Report(queue: 40, short: 700_000, newestSent: 90)], action: .hold, target: 736_000),
        Case(name: "a report of packets sent after the cut may cut again", start: 1_000_000,
             reports: [Report(queue: 30, short: 800_000), Report(queue: 40, short: 700_000, newestSent: 150)],
             action: .delayBackoff, target: 644_000),
    ]

    /// The delay target scales with √(1 Mb/s ÷ target), within ½…3 ×: smaller flows tolerate a longer queue.
    @Test(arguments: [(1_000_000.0, 15.0, 6.0), (250_000, 30, 12), (4_000_000, 7.5, 3), (10_000_000, 7.5, 3), (10_000, 45, 18)])
    func delayTargetScalesWithTheRate(target: Double, delayTarget: Double, emptyQueue: Double) {
        let control = RtencRateControl(target: target)
        #expect(abs(Double(control.effectiveDelayTarget.nanoseconds) / 1e6 - delayTarget) < 1e-6)
        #expect(abs(Double(control.effectiveEmptyQueue.nanoseconds) / 1e6 - emptyQueue) < 1e-6)
    }

    @Test(arguments: cases)
    func rule(_ c: Case) {
        var control = RtencRateControl(target: c.start)
        for (i, report) in c.reports.enumerated() {
            let now = 100.0 * Double(i + 1)
            let signal = RtencRateControl.Signal(
                standingQueue: .nanoseconds(Int64(report.queue * 1e6)), deliveredShort: report.short, deliveredLong: report.long,
                lossFraction: report.loss, newestSent: RtencTestPackets.instant(ms: report.newestSent ?? now - 100),
                competing: report.competing)
            control.update(signal, at: RtencTestPackets.instant(ms: now))
        }
        #expect(control.lastAction == c.action)
        #expect(abs(control.target - c.target) < 1e-6 * c.target, "\(control.target)")
    }
}
