import CongestionControl
import EncoderSession
import Foundation
import MediaCore
import RTP
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

    // MARK: The sent-packet path

    /// What a policy heard, in order, with the times it was handed.
    struct Recording: BitrateControlPolicy {
        let name = "recording"
        let log: Calls
        mutating func observe(peerLimit bitsPerSecond: UInt64, at now: Instant) {}
        mutating func observe(sent packet: SentPacket) { log.append("sent \(packet.sequenceNumber) @\(packet.sendTime.nanoseconds)") }
        mutating func observe(feedback: TransportPacketsFeedback) {
            log.append("feedback @\(feedback.feedbackTime.nanoseconds) " + feedback.packets.map { "\($0.sent.sequenceNumber)@\($0.sent.sendTime.nanoseconds)" }.joined(separator: ","))
        }
        mutating func allocation(within bounds: BitrateBounds, at now: Instant) -> BitrateAllocation { BitrateAllocation(bitsPerSecond: 500_000) }
    }

    /// Packets and reports come on the sender's wall clock (here 1.7e9 s ahead of the controller's): the policy gets
    /// them on its own clock, every packet before the report that covers it, and the rest at the next decision.
    @Test func sentPacketsReachThePolicyOnItsClockBeforeTheirReport() throws {
        let clock = ManualClock(start: Instant(nanoseconds: 5_000_000_000))
        let wallOffset = Duration.seconds(1_700_000_000)
        let log = Calls()
        let rate = LiveBitrateController(bounds: try BitrateBounds(ceiling: 1_000_000), policy: Recording(log: log), clock: clock,
                                         transportNow: { clock.now + wallOffset })
        let wall = { (ms: Int64) in Instant(nanoseconds: 5_000_000_000) + wallOffset + .milliseconds(ms) }
        let packets = (0 ..< 4).map { SentPacket(sequenceNumber: Int64($0), sendTime: wall(Int64($0)), size: 1_200) }
        clock.advance(by: .milliseconds(4))
        rate.packetsSentHandler(Array(packets[0 ..< 2]))
        rate.packetsSentHandler(Array(packets[2 ..< 3]))
        #expect(log.all.isEmpty, "held until a report or a decision")
        clock.advance(by: .milliseconds(46))
        rate.transportFeedbackHandler(TransportPacketsFeedback(
            feedbackTime: wall(50), packets: packets[0 ..< 2].map { PacketResult(sent: $0, arrival: .zero) }, bytesInFlight: 1_200))
        rate.packetsSentHandler(Array(packets[3...]))
        _ = try rate.apply(toEncoder: FakeEncoder(calls: Calls()), pacer: FakePacer(calls: Calls()))
        #expect(log.all == ["sent 0 @5000000000", "sent 1 @5001000000", "sent 2 @5002000000",
                            "feedback @5050000000 0@5000000000,1@5001000000", "sent 3 @5003000000"])
    }

    /// rtenc's controller live: frames add to its estimate of what waits in the pacer, packets that left take from
    /// it, and the pacer is given enough to drain it within two frames. 3 s at 30 fps of frames at the 300 kb/s start
    /// (1,250 bytes, one packet each), no feedback: with the sent packets reported, the pacing share stays at
    /// 1.25 × 300 kb/s ÷ 2.5 = 150 kb/s; without them (the sent-packet path missing, as before) the backlog grows by
    /// every frame and the pacing with it — the 29 Mb/s of the loopback check.
    @Test(arguments: [(true, 150_000 ... 150_000), (false, 1_000_000 ... 100_000_000)] as [(Bool, ClosedRange<UInt64>)])
    func rtencPacingNeedsTheSentPackets(reportSent: Bool, pacing: ClosedRange<UInt64>) throws {
        let clock = ManualClock()
        let rate = LiveBitrateController(bounds: try BitrateBounds(ceiling: 1_500_000, floor: 150_000), policy: RtencCongestionPolicy(),
                                         clock: clock, transportNow: { clock.now }, processInterval: .milliseconds(25))
        let pacer = FakePacer(calls: Calls()), encoder = FakeEncoder(calls: Calls())
        for frame in 0 ..< 90 {
            _ = try rate.apply(toEncoder: encoder, pacer: pacer)
            #expect(rate.frameByteLimit == nil, "no report, no queue: no budget")
            rate.handle(.encodedFrame(bytes: 1_250, isKeyframe: false))
            clock.advance(by: .milliseconds(5))
            if reportSent { rate.packetsSentHandler([SentPacket(sequenceNumber: Int64(frame), sendTime: clock.now, size: 1_250 + 26)]) }
            clock.advance(by: .microseconds(28_333))
        }
        _ = try rate.apply(toEncoder: encoder, pacer: pacer)
        #expect(rate.allocation.encoderBitRate == 300_000)
        #expect(pacing.contains(rate.allocation.pacingBitRate), "\(rate.allocation)")
    }

    /// GCC's ALR detector live: with the sent packets reported, a sender using a sixth of its 300 kb/s target is
    /// application-limited, and with periodic ALR probing the probe controller sends a cluster at 2 × the estimate
    /// 5 s into ALR (after the start probes, given up on after 1 s without a result). Without them the detector
    /// hears nothing, and no ALR probe comes.
    @Test(arguments: [true, false])
    func gccSeesTheApplicationLimitedRegion(reportSent: Bool) throws {
        let clock = ManualClock()
        let policy = GoogCCPolicy(configuration: .init(periodicALRProbing: true))
        let rate = LiveBitrateController(bounds: try BitrateBounds(ceiling: 1_500_000, floor: 150_000), policy: policy,
                                         clock: clock, transportNow: { clock.now }, processInterval: .milliseconds(25))
        let calls = Calls()
        let pacer = FakePacer(calls: calls), encoder = FakeEncoder(calls: calls)
        for frame in 0 ..< 240 {  // 8 s at 30 fps, 200-byte frames: 48 kb/s
            _ = try rate.apply(toEncoder: encoder, pacer: pacer)
            rate.handle(.encodedFrame(bytes: 200, isKeyframe: false))
            if reportSent { rate.packetsSentHandler([SentPacket(sequenceNumber: Int64(frame), sendTime: clock.now, size: 200 + 26)]) }
            clock.advance(by: .nanoseconds(33_333_333))
        }
        let probes = calls.all.filter { $0.hasPrefix("probe") }
        #expect(Array(probes.prefix(2)) == ["probe 1 900000", "probe 2 1500000"], "the start probes")
        if reportSent {
            #expect(probes.count == 3 && probes.last == "probe 3 600000", "one ALR probe at 2 × 300 kb/s: \(probes)")
        } else {
            #expect(probes.count == 2, "\(probes)")
        }
    }
}
