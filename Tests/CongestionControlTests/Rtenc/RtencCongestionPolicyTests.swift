import CongestionControl
import MediaCore
import RTP
import Testing

/// The composed policy on hand-made reports: what it hands the encoder and the pacer.
@Suite struct RtencCongestionPolicyTests {
    static let bounds = try! BitrateBounds(ceiling: 1_500_000, floor: 150_000)

    /// 1 Mb/s of 1250-byte packets (one each 10 ms), queued `queue(i)` ms above a 50 ms path, reported every 100 ms.
    static func feed(_ policy: inout RtencCongestionPolicy, reports: Int, from start: Int = 0, queue: (Int) -> Double?) {
        for r in start ..< start + reports {
            let packets = RtencTestPackets.series(from: Double(r) * 100, count: 10, spacing: 10, firstSequence: Int64(r * 10),
                                                  bytes: 1250) { i in queue(r * 10 + i).map { 50 + $0 } }
            policy.observe(feedback: RtencTestPackets.report(packets, at: Double(r) * 100 + 160))
        }
    }

    @Test func startsAtTheStartRateWithGentlePacing() {
        var policy = RtencCongestionPolicy()
        let allocation = policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 0))
        #expect(allocation.encoderBitRate == 300_000)
        // The sender's pacer multiplies by 2.5: 1.25 × 300 kb/s reaches it as 150 kb/s.
        #expect(allocation.pacingBitRate == 150_000)
        #expect(allocation.frameBudgetBytes == nil && !allocation.skipNextFrame)
    }

    @Test func aKeyframeLeavesAtTheBurstRate() {
        var policy = RtencCongestionPolicy()
        _ = policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 0))
        // 6250 bytes at 2.5 × 300 kb/s take 66.7 ms.
        policy.observe(encodedFrameSize: 6250, isKeyframe: true, at: RtencTestPackets.instant(ms: 10))
        // Its six packets (6250 bytes + 14 bytes of headers each) leave: no backlog speeds the pacer up.
        for i in 0 ..< 6 {
            policy.observe(sent: SentPacket(sequenceNumber: Int64(i), sendTime: RtencTestPackets.instant(ms: 11), size: 1056))
        }
        #expect(policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 20)).pacingBitRate == 300_000)
        #expect(policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 80)).pacingBitRate == 150_000)
    }

    /// A standing queue of 60 ms, ~52 ms above half the delay target: 52 ms of the 1 Mb/s delivered = 6.5 KB of debt,
    /// more than a frame, so the next frame is skipped; the rate backs off to 0.92 × the delivery rate.
    @Test func aQueueAboveTheTargetSkipsFrames() throws {
        var policy = RtencCongestionPolicy(configuration: .init(startBitrate: 1_000_000))
        _ = policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 0))
        Self.feed(&policy, reports: 5) { _ in 0 }
        Self.feed(&policy, reports: 1, from: 5) { _ in 60 }
        let allocation = policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 700))
        #expect(allocation.skipNextFrame && allocation.frameBudgetBytes == 0)
        #expect(abs(Double(allocation.encoderBitRate) - 920_000) < 5_000, "\(allocation.encoderBitRate)")
        #expect(policy.rateControl.lastAction == .delayBackoff)
        // The debt is the queue above half the delay target at the new rate (15 ms × √(1 Mb/s ÷ 920 kb/s)).
        let half = Double(policy.rateControl.effectiveDelayTarget.nanoseconds) / 2e9
        #expect(abs(half - 0.015 * (1 / 0.92).squareRoot() / 2) < 1e-5)
        #expect(abs(policy.budget.debt - (0.060 - half) * 1_000_000 / 8) < 1, "\(policy.budget.debt)")
    }

    /// No report for longer than the timeout: an outage. Frames are skipped but one per timeout, which finds out
    /// when the link is back; a report ends it.
    @Test func silenceSkipsFramesButOnePerTimeout() {
        var policy = RtencCongestionPolicy()
        _ = policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 0))
        Self.feed(&policy, reports: 5) { _ in 0 }  // reports every 100 ms, the last at 560 ms
        policy.observe(encodedFrameSize: 1000, isKeyframe: false, at: RtencTestPackets.instant(ms: 600))
        #expect(policy.silenceTimeout == .milliseconds(250))
        #expect(!policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 800)).skipNextFrame)
        #expect(policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 820)).skipNextFrame)
        // A timeout after the last frame sent, one frame may go.
        #expect(!policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 860)).skipNextFrame)
        policy.observe(encodedFrameSize: 1000, isKeyframe: false, at: RtencTestPackets.instant(ms: 860))
        #expect(policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 900)).skipNextFrame)
        Self.feed(&policy, reports: 1, from: 9) { _ in 0 }  // the report at 1060 ms
        #expect(!policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 1070)).skipNextFrame)
    }

    /// After a report with loss, for the recovery burst (2 s), no frame may take more than 2.5 × a nominal frame (the
    /// keyframe pace), so the keyframe the loss's PLI brings is budgeted; a debt still budgets below that; after
    /// the recovery, no budget again.
    struct LossCase: Sendable, CustomTestStringConvertible {
        let name: String
        /// Queue of each packet of the report at 500 ms (nil: lost), ms; the five before it saw no queue.
        let queue: [Double?]
        /// When the allocation is asked, ms.
        let at: Double
        /// The expected budget as a multiple of a nominal frame at the target (nil: none).
        let nominalFrames: Double?
        var testDescription: String { name }
    }

    static let lossCases: [LossCase] = [
        LossCase(name: "no loss, no queue: no budget", queue: Array(repeating: 0, count: 10), at: 600, nominalFrames: nil),
        LossCase(name: "a lost packet: capped at 2.5 frames", queue: [0, 0, nil, 0, 0, 0, 0, 0, 0, 0], at: 600, nominalFrames: 2.5),
        LossCase(name: "loss and a queue: the debt's budget is lower", queue: [40, 40, nil, 40, 40, 40, 40, 40, 40, 40], at: 600,
                 nominalFrames: 0),
        LossCase(name: "2 s after the loss: no cap", queue: [0, 0, nil, 0, 0, 0, 0, 0, 0, 0], at: 2700, nominalFrames: nil),
    ]

    @Test(arguments: lossCases)
    func lossRecoveryCapsEveryFrame(_ c: LossCase) throws {
        var policy = RtencCongestionPolicy(configuration: .init(startBitrate: 1_000_000))
        _ = policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 0))
        Self.feed(&policy, reports: 5) { _ in 0 }
        Self.feed(&policy, reports: 1, from: 5) { c.queue[$0 - 50] }
        let allocation = policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: c.at))
        guard let frames = c.nominalFrames else {
            #expect(allocation.frameBudgetBytes == nil)
            return
        }
        let budget = try #require(allocation.frameBudgetBytes)
        let nominal = policy.budget.nominalFrameBytes(at: Double(allocation.encoderBitRate))
        if frames == 0 {
            #expect(Double(budget) < nominal, "\(budget) of a nominal \(nominal)")
        } else {
            #expect(abs(Double(budget) - frames * nominal) <= 1, "\(budget) of a nominal \(nominal)")
        }
    }

    /// In loss recovery a frame's bytes beyond a nominal frame are owed by the frames after it, before any report
    /// shows them in the queue; outside it the encoder's own variation is left alone.
    struct OweCase: Sendable, CustomTestStringConvertible {
        let name: String
        /// A packet of the report at 500 ms was lost.
        let loss: Bool
        /// Sizes encoded from 600 ms, one every 33.3 ms, in nominal frames (0: skipped).
        let frames: [Double]
        /// The budget offered before each frame, in nominal frames (nil: none).
        let budgets: [Double?]
        var testDescription: String { name }
    }

    static let oweCases: [OweCase] = [
        OweCase(name: "no loss: a large frame owes nothing", loss: false, frames: [2.5, 1, 1], budgets: [nil, nil, nil]),
        // 1.5 frames owed: the next is skipped (repays 1), the one after takes half; then only the recovery cap.
        OweCase(name: "loss: a keyframe of 2.5 frames", loss: true, frames: [2.5, 0, 0.5, 1], budgets: [2.5, 0, 0.5, 2.5]),
        OweCase(name: "loss: a P frame of 1.5 frames", loss: true, frames: [1.5, 0.5, 1], budgets: [2.5, 0.5, 2.5]),
        OweCase(name: "loss: frames under nominal owe nothing", loss: true, frames: [0.8, 1, 1], budgets: [2.5, 2.5, 2.5]),
    ]

    @Test(arguments: oweCases)
    func lossRecoveryOwesAFramesExcess(_ c: OweCase) throws {
        var policy = RtencCongestionPolicy(configuration: .init(startBitrate: 1_000_000))
        _ = policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 0))
        Self.feed(&policy, reports: 5) { _ in 0 }
        Self.feed(&policy, reports: 1, from: 5) { c.loss && $0 == 52 ? nil : 0 }
        for (i, size) in c.frames.enumerated() {
            let at = 600 + 33.333 * Double(i)
            let allocation = policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: at - 5))
            let nominal = policy.budget.nominalFrameBytes(at: Double(allocation.encoderBitRate))
            if let expected = c.budgets[i] {
                let budget = try #require(allocation.frameBudgetBytes, "frame \(i)")
                #expect(abs(Double(budget) - expected * nominal) <= 2, "frame \(i): \(budget) of a nominal \(nominal)")
                #expect(allocation.skipNextFrame == (expected == 0))
            } else {
                #expect(allocation.frameBudgetBytes == nil, "frame \(i)")
            }
            policy.observe(encodedFrameSize: Int((size * nominal).rounded()), isKeyframe: i == 0 && size > 1,
                           at: RtencTestPackets.instant(ms: at))
        }
    }

    /// Against a competitor (a standing queue of 100 ms for 6 s after an empty one) a loss brings no cap: the queue
    /// is not ours.
    @Test func noLossCapWhileCompeting() {
        var policy = RtencCongestionPolicy(configuration: .init(startBitrate: 1_000_000))
        _ = policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 0))
        Self.feed(&policy, reports: 5) { _ in 0 }
        Self.feed(&policy, reports: 60, from: 5) { _ in 100 }
        #expect(policy.isCompeting)
        Self.feed(&policy, reports: 1, from: 65) { $0 == 652 ? nil : 100 }
        #expect(policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 6600)).frameBudgetBytes == nil)
    }

    @Test func aPeerLimitCapsTheTarget() {
        var policy = RtencCongestionPolicy(configuration: .init(startBitrate: 1_000_000))
        policy.observe(peerLimit: 400_000, at: RtencTestPackets.instant(ms: 0))
        #expect(policy.allocation(within: Self.bounds, at: RtencTestPackets.instant(ms: 0)).encoderBitRate == 400_000)
    }

    @Test func theRegistryKnowsItsNames() throws {
        #expect(try CongestionControllers.policy(named: "rtenc").name == "rtenc")
        #expect(try CongestionControllers.policy(named: "gcc").name == "gcc")
        #expect(try CongestionControllers.policy(named: "peer-limit").name == "peer-limit")
        #expect(throws: CongestionControlError.self) { try CongestionControllers.policy(named: "bbr") }
    }
}
