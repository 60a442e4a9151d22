import CongestionControl
import MediaCore
import Testing

/// The per-frame budget: a report's excess becomes a debt that frames repay by leaving bytes out; what they left out
/// after the report's newest packet was sent is not asked for twice.
@Suite struct FrameBudgetTests {
    static let rate = 960_000.0  // 4000 B a frame at 30 fps

    static func frame(_ budget: inout FrameBudget, _ bytes: Int, at ms: Double) {
        budget.frameEncoded(bytes: bytes, at: RtencTestPackets.instant(ms: ms), bitsPerSecond: rate)
    }

    @Test func noDebtNoBudget() {
        let budget = FrameBudget()
        #expect(budget.budget(at: Self.rate) == nil)
        #expect(abs(budget.nominalFrameBytes(at: Self.rate) - 4000) < 1)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let excess: Double
        /// Sizes the encoder then produced (0 = skipped), one frame each 33.3 ms.
        let frames: [Int]
        /// The budget offered before each frame (nil = none).
        let budgets: [Int?]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // 10,000 B over: two frames skipped (4000 each), the third gets 4000 − 2000.
        Case(name: "an excess of 2.5 frames", excess: 10_000, frames: [0, 0, 2000, 4000], budgets: [0, 0, 2000, nil]),
        Case(name: "an excess below a frame", excess: 1000, frames: [3000, 4000], budgets: [3000, nil]),
        // An encoder that produced less than asked repays only what it really left out.
        Case(name: "a frame above its budget repays less", excess: 6000, frames: [1000, 3000, 4000], budgets: [0, 1000, 2000]),
    ]

    @Test(arguments: cases)
    func repayment(_ c: Case) {
        var budget = FrameBudget()
        budget.setExcess(c.excess, reportedUpTo: RtencTestPackets.instant(ms: 0))
        for (i, bytes) in c.frames.enumerated() {
            // Within 2 bytes: the learned frame interval is whole nanoseconds.
            let offered = budget.budget(at: Self.rate)
            #expect((offered == nil) == (c.budgets[i] == nil), "frame \(i): \(String(describing: offered))")
            if let offered, let expected = c.budgets[i] { #expect(abs(offered - expected) <= 2, "frame \(i): \(offered)") }
            Self.frame(&budget, bytes, at: 33.333 * Double(i + 1))
        }
    }

    /// Bytes owed for a frame (`owe`, loss recovery) are debt at once; a report whose newest packet was sent before
    /// that frame keeps them owed on top of its excess, one that covers the frame replaces them.
    @Test func owedBytesOutliveAReportThatDoesNotCoverTheirFrame() {
        var budget = FrameBudget()
        budget.owe(6000, at: RtencTestPackets.instant(ms: 100))
        #expect(budget.debt == 6000)
        budget.owe(-500, at: RtencTestPackets.instant(ms: 110))  // a frame under nominal owes nothing
        #expect(budget.debt == 6000)
        budget.setExcess(1000, reportedUpTo: RtencTestPackets.instant(ms: 90))
        #expect(budget.debt == 7000)
        budget.setExcess(1000, reportedUpTo: RtencTestPackets.instant(ms: 120))
        #expect(budget.debt == 1000)
        budget.owe(2000, at: RtencTestPackets.instant(ms: 130))
        budget.clear()
        budget.setExcess(0, reportedUpTo: RtencTestPackets.instant(ms: 120))
        #expect(budget.debt == 0)
    }

    /// Savings made after the report's newest packet was sent are on their way: a new report of the same excess asks
    /// only for the rest.
    @Test func savingsInFlightAreNotAskedTwice() {
        var budget = FrameBudget()
        budget.setExcess(8000, reportedUpTo: RtencTestPackets.instant(ms: 0))
        Self.frame(&budget, 0, at: 33.3)   // saves 4000
        Self.frame(&budget, 0, at: 66.7)   // saves 4000: debt repaid
        #expect(budget.debt == 0)
        // The next report covers packets sent up to 40 ms: the first saving shows in it, the second does not.
        budget.setExcess(6000, reportedUpTo: RtencTestPackets.instant(ms: 40))
        #expect(abs(budget.debt - 2000) < 2)
        budget.clear()
        #expect(budget.debt == 0 && budget.budget(at: Self.rate) == nil)
    }

    @Test func theFrameIntervalIsLearned() {
        var budget = FrameBudget()
        for i in 0 ..< 60 { Self.frame(&budget, 2000, at: 66.667 * Double(i)) }  // 15 fps
        #expect(abs(budget.frameInterval.nanoseconds - 66_667_000) < 200_000)
        #expect(abs(budget.nominalFrameBytes(at: Self.rate) - 8000) < 30)
    }
}
