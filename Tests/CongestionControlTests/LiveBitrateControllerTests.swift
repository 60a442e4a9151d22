import CongestionControl
import EncoderSession
import Foundation
import MediaCore
import StreamControl
import Synchronization
import Testing

/// The live wrapper: the sender's handlers record, `apply` sets the encoder and the pacer in one step.
@Suite struct LiveBitrateControllerTests {
    /// Records every call, in order, across both fakes.
    final class Calls: Sendable {
        let log = Mutex<[String]>([])
        func append(_ call: String) { log.withLock { $0.append(call) } }
        var all: [String] { log.withLock { $0 } }
    }

    struct FakeEncoder: EncoderBitRateSetting {
        let calls: Calls
        var failure: EncoderSessionError?
        func setAverageBitRate(_ bitsPerSecond: Int) throws(EncoderSessionError) {
            if let failure { throw failure }
            calls.append("encoder \(bitsPerSecond)")
        }
    }

    struct FakePacer: PacingRateSetting {
        let calls: Calls
        func setTargetBitrate(_ bitsPerSecond: UInt64) { calls.append("pacer \(bitsPerSecond)") }
        func startProbe(_ cluster: ProbeClusterConfig) -> Bool {
            calls.append("probe \(cluster.id) \(cluster.bitrate)")
            return true
        }
    }

    @Test func eachDecisionSetsEncoderAndPacerTogether() throws {
        let clock = ManualClock()
        let rate = LiveBitrateController(bounds: try BitrateBounds(ceiling: 1_000_000), clock: clock)
        let calls = Calls()
        let encoder = FakeEncoder(calls: calls), pacer = FakePacer(calls: calls)
        #expect(try rate.apply(toEncoder: encoder, pacer: pacer) == nil)
        #expect(calls.all.isEmpty)

        rate.bitrateLimitHandler(400_000)
        clock.advance(by: .milliseconds(33))
        let down = try #require(try rate.apply(toEncoder: encoder, pacer: pacer))
        #expect(down.changesRate && !down.forceKeyframe)
        #expect(calls.all == ["encoder 400000", "pacer 400000"])
        #expect(rate.allocation == BitrateAllocation(bitsPerSecond: 400_000))

        // A REMB above the ceiling: the old early return left the pacer at the raw REMB; now both get the ceiling.
        rate.bitrateLimitHandler(8_000_000)
        let up = try #require(try rate.apply(toEncoder: encoder, pacer: pacer))
        #expect(up.allocation == BitrateAllocation(bitsPerSecond: 1_000_000) && up.changesRate)
        rate.bitrateLimitHandler(8_000_000)
        let again = try #require(try rate.apply(toEncoder: encoder, pacer: pacer))
        #expect(!again.changesRate)
        #expect(calls.all == ["encoder 400000", "pacer 400000", "encoder 1000000", "pacer 1000000",
                              "encoder 1000000", "pacer 1000000"])

        // A keyframe request alone touches neither rate.
        rate.keyframeRequestHandler()
        rate.keyframeRequestHandler()
        let keyframe = try #require(try rate.apply(toEncoder: encoder, pacer: pacer))
        #expect(keyframe.forceKeyframe && keyframe.allocation == nil)
        #expect(try rate.apply(toEncoder: encoder, pacer: pacer) == nil)
        #expect(calls.all.count == 6)
    }

    @Test func anEncoderFailureLeavesThePacerAlone() throws {
        let rate = LiveBitrateController(bounds: try BitrateBounds(ceiling: 1_000_000), clock: ManualClock())
        let calls = Calls()
        let failing = FakeEncoder(calls: calls, failure: EncoderSessionError(code: .invalidated, reason: "the session was invalidated"))
        rate.handle(.peerLimit(bitsPerSecond: 300_000))
        #expect(throws: EncoderSessionError.self) { try rate.apply(toEncoder: failing, pacer: FakePacer(calls: calls)) }
        #expect(calls.all.isEmpty)
    }

    /// Limits from another thread (as the sender's I/O thread calls the handler) while the encode loop applies:
    /// every decision is the tightest limit since the one before, encoder and pacer always in step.
    @Test func handlersFromAnotherThread() throws {
        let rate = LiveBitrateController(bounds: try BitrateBounds(ceiling: 2_000_000))
        let calls = Calls()
        let encoder = FakeEncoder(calls: calls), pacer = FakePacer(calls: calls)
        let feeder = Thread {
            for bps in stride(from: 1_900_000 as UInt64, through: 100_000, by: -100_000) {
                rate.bitrateLimitHandler(bps)
                usleep(100)
            }
        }
        feeder.start()
        var decisions: [BitrateDecision] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while decisions.last?.allocation?.encoderBitRate != 100_000, ContinuousClock.now < deadline {
            if let decision = try rate.apply(toEncoder: encoder, pacer: pacer) { decisions.append(decision) }
            usleep(50)
        }
        // Falling limits: each decision lower than the one before, down to the last limit sent.
        let rates = decisions.compactMap { $0.allocation?.encoderBitRate }
        #expect(rates.last == 100_000)
        #expect(rates == rates.sorted(by: >) && Set(rates).count == rates.count, "\(rates)")
        let log = calls.all
        #expect(log.count == 2 * rates.count)
        for (index, bps) in rates.enumerated() where 2 * index + 1 < log.count {
            #expect(log[2 * index] == "encoder \(bps)" && log[2 * index + 1] == "pacer \(bps)")
        }
    }

    /// Through a real session: the average and the hard cap (1.5 × per second) move together, from the next frame.
    @Test func aRealSessionGetsTargetAndCap() throws {
        let session = try CompressionSession(
            configuration: .realTimeCommunication(width: 160, height: 120, averageBitRate: 1_000_000))
        defer { session.invalidate() }
        let rate = LiveBitrateController(bounds: try BitrateBounds(ceiling: 1_000_000), clock: ManualClock())
        let calls = Calls()
        rate.handle(.peerLimit(bitsPerSecond: 500_000))
        try rate.apply(toEncoder: session, pacer: FakePacer(calls: calls))
        #expect(session.configuration.live.averageBitRate == 500_000)
        #expect(session.configuration.live.dataRateLimits == [DataRateLimit(bytes: 500_000 * 3 / 2 / 8, seconds: 1)])
        #expect(calls.all == ["pacer 500000"])
        var buffer = PixelBuffer(format: .nv12, width: 160, height: 120)
        buffer.planes[0].bytes = [UInt8](repeating: 128, count: buffer.planes[0].bytes.count)
        try session.encode(buffer, presentationTime: MediaTime(value: 0, timescale: 30))
        #expect(session.configuration.live.averageBitRate == 500_000)
    }

    /// GoogCC live: its start probes (3× and 6× the 300 kb/s start, the second capped at the ceiling) reach the
    /// sender at the first `apply`, though the rate did not change; with a process interval the policy is asked
    /// again without feedback, and nothing else is sent twice.
    @Test func startProbesReachTheSenderOnce() throws {
        let clock = ManualClock()
        let rate = LiveBitrateController(bounds: try BitrateBounds(ceiling: 1_500_000, floor: 150_000), policy: GoogCCPolicy(),
                                         clock: clock, processInterval: .milliseconds(25))
        #expect(rate.allocation.encoderBitRate == 300_000 && rate.estimate == 300_000)
        #expect(rate.policyName == "gcc")
        let calls = Calls()
        let encoder = FakeEncoder(calls: calls), pacer = FakePacer(calls: calls)
        #expect(try rate.apply(toEncoder: encoder, pacer: pacer) == nil)
        #expect(calls.all == ["probe 1 900000", "probe 2 1500000"])
        #expect(rate.probeClusters.started == 2 && rate.probeClusters.refused == 0)
        for _ in 0 ..< 10 {
            clock.advance(by: .milliseconds(33))
            _ = try rate.apply(toEncoder: encoder, pacer: pacer)
        }
        #expect(calls.all.filter { $0.hasPrefix("probe") }.count == 2, "\(calls.all)")
        // Without any feedback for a second the estimate holds: no rate change either.
        #expect(!calls.all.contains { $0.hasPrefix("encoder") }, "\(calls.all)")
    }
}
