import Testing
import WebRTCTransport

/// Issue 16's phase-1 rule, one row per situation: REMB is a cap that only congestion turns into a lower target.
@Suite struct ViewerBitratePolicyTests {
    struct Row: Sendable, CustomStringConvertible {
        var description: String
        var steps: [[ViewerBitratePolicy.Viewer]]
        var target: UInt64
    }

    static func viewer(_ remb: UInt64?, sending rate: UInt64) -> ViewerBitratePolicy.Viewer { .init(peerLimit: remb, sendRate: rate) }

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
        Row(description: "after a decrease, REMB rising lifts the target towards it",
            steps: [[viewer(700_000, sending: 2_000_000)], [viewer(900_000, sending: 600_000)]], target: 900_000),
        Row(description: "never above the ceiling", steps: [[viewer(700_000, sending: 2_000_000)], [viewer(5_000_000, sending: 600_000)]],
            target: 2_000_000),
        Row(description: "never below the floor", steps: [[viewer(50_000, sending: 2_000_000)]], target: 150_000),
        Row(description: "a decrease only lowers", steps: [[viewer(700_000, sending: 2_000_000)], [viewer(800_000, sending: 1_000_000)]],
            target: 595_000),
    ]

    @Test(arguments: rows) func target(_ row: Row) {
        var policy = ViewerBitratePolicy(ceiling: 2_000_000, floor: 150_000)
        for step in row.steps { policy.update(step) }
        #expect(policy.target == row.target)
        #expect(policy.atFloor == (row.target == 150_000))
    }
}
