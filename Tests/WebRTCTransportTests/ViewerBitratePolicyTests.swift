import MediaCore
import Testing
import WebRTCTransport

/// Issue 16's phase-1 rule, one row per situation: REMB is a cap that only congestion turns into a lower target, and
/// the target climbs back by at most 8 % a second. Each step is one REMB update, a quarter of a second after the one
/// before (Chromium sent REMB about every 230 ms).
@Suite struct ViewerBitratePolicyTests {
    struct Row: Sendable, CustomStringConvertible {
        var description: String
        var steps: [[ViewerBitratePolicy.Viewer]]
        var target: UInt64
    }

    static func viewer(_ remb: UInt64?, sending rate: UInt64) -> ViewerBitratePolicy.Viewer { .init(peerLimit: remb, sendRate: rate) }

    static let interval: Duration = .milliseconds(250)

    static let rows: [Row] = [
        Row(description: "no viewers: the ceiling", steps: [[]], target: 2_000_000),
        Row(description: "no REMB yet: the ceiling", steps: [[viewer(nil, sending: 1_900_000)]], target: 2_000_000),
        // REMB follows what arrives (an easy picture: 250 kb/s sent, 260 kb/s REMB): no congestion, no ratchet.
        Row(description: "REMB at the send rate keeps the target", steps: [[viewer(260_000, sending: 250_000)]], target: 2_000_000),
        // A bottleneck: 700 kb/s REMB while 2 Mb/s leave → 0.85 × 700 at once.
        Row(description: "congestion: 0.85 × REMB", steps: [[viewer(700_000, sending: 2_000_000)]], target: 595_000),
        Row(description: "the most congested viewer decides",
            steps: [[viewer(1_500_000, sending: 2_000_000), viewer(600_000, sending: 2_000_000), viewer(3_000_000, sending: 2_000_000)]],
            target: 510_000),
        // 595 kb/s, then REMB at 900 kb/s: + 8 %/s × 0.25 s = + 2 % → 606.9 kb/s, not 900 at once.
        Row(description: "after a decrease, REMB rising lifts the target by 8 % a second",
            steps: [[viewer(700_000, sending: 2_000_000)], [viewer(900_000, sending: 600_000)]], target: 606_900),
        // Eight quarter-seconds of REMB at 900 kb/s: 595 × 1.02^8 = 697.1 kb/s (the steps compound, each truncated).
        Row(description: "two seconds of room: about + 17 %",
            steps: [[viewer(700_000, sending: 2_000_000)]] + Array(repeating: [viewer(900_000, sending: 600_000)], count: 8), target: 697_134),
        // aiortc's REMB leapt from ~500 kb/s to 7.6 Mb/s in one report behind an 800 kb/s link (measured): one step of
        // the climb, not back to the ceiling into a full queue.
        Row(description: "a REMB that leaps moves the target one step",
            steps: [[viewer(500_000, sending: 2_000_000)], [viewer(7_629_600, sending: 500_000)]], target: 433_500),
        Row(description: "the climb stops at the lowest REMB",
            steps: [[viewer(600_000, sending: 2_000_000)]] + Array(repeating: [viewer(530_000, sending: 510_000)], count: 12), target: 530_000),
        Row(description: "never above the ceiling",
            steps: [[viewer(1_990_000, sending: 2_400_000)]] + Array(repeating: [viewer(5_000_000, sending: 1_700_000)], count: 12),
            target: 2_000_000),
        Row(description: "never below the floor", steps: [[viewer(50_000, sending: 2_000_000)]], target: 150_000),
        Row(description: "a decrease only lowers", steps: [[viewer(700_000, sending: 2_000_000)], [viewer(800_000, sending: 1_000_000)]],
            target: 595_000),
        // Congestion again while climbing: the decrease wins.
        Row(description: "congestion interrupts the climb",
            steps: [[viewer(700_000, sending: 2_000_000)], [viewer(900_000, sending: 600_000)], [viewer(400_000, sending: 600_000)]],
            target: 340_000),
    ]

    @Test(arguments: rows) func target(_ row: Row) {
        var policy = ViewerBitratePolicy(ceiling: 2_000_000, floor: 150_000)
        var now = Instant(nanoseconds: 5_000_000_000)
        for step in row.steps {
            policy.update(step, at: now)
            now += Self.interval
        }
        #expect(policy.target == row.target)
        #expect(policy.atFloor == (row.target == 150_000))
    }

    /// A long silence between updates counts as one second of climb at most: after 30 s without REMB the target does
    /// not leap by 30 seconds' worth.
    @Test func aSilenceIsOneSecondOfClimb() {
        var policy = ViewerBitratePolicy(ceiling: 2_000_000)
        policy.update([Self.viewer(500_000, sending: 2_000_000)], at: Instant(nanoseconds: 0))
        #expect(policy.target == 425_000)
        policy.update([Self.viewer(2_000_000, sending: 400_000)], at: Instant(nanoseconds: 30_000_000_000))
        #expect(policy.target == 459_000, "425 kb/s × 1.08")
    }

    /// The climb is paced by time, not by the number of reports: four reports in one second climb as far as one.
    @Test func theClimbFollowsTimeNotReportCount() {
        var fast = ViewerBitratePolicy(ceiling: 2_000_000), slow = fast
        let start = Instant(nanoseconds: 0)
        fast.update([Self.viewer(500_000, sending: 2_000_000)], at: start)
        slow.update([Self.viewer(500_000, sending: 2_000_000)], at: start)
        for quarter in 1 ... 4 { fast.update([Self.viewer(900_000, sending: 400_000)], at: start + .milliseconds(250 * quarter)) }
        slow.update([Self.viewer(900_000, sending: 400_000)], at: start + .seconds(1))
        #expect(slow.target == 459_000)
        #expect(fast.target >= 459_000 && fast.target <= 461_000, "compounded quarter steps: \(fast.target)")
    }
}
