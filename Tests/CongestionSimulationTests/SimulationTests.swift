import CongestionControl
import RTP
import Testing
@testable import CongestionSimulation

struct SimulationTests {
    static let s: Int64 = 1_000_000_000

    static func run(_ scenario: Scenario, seed: UInt64 = 1, rate: Int = 500_000) throws -> SimulationResult {
        try Simulation(scenario: scenario, seed: seed, policy: { _ in FixedRatePolicy(bitsPerSecond: rate) }).run()
    }

    /// The same scenario, policy and seed give the same run, bit for bit; another seed another run.
    @Test func sameSeedSameDigest() throws {
        var scenario = try RFC8867.scenario(named: "5.1")
        scenario.duration = 10 * Self.s
        scenario.codec.keyframeInterval = 60
        let first = try Self.run(scenario, seed: 11)
        let second = try Self.run(scenario, seed: 11)
        let other = try Self.run(scenario, seed: 12)
        #expect(first.packets.count > 500)
        #expect(first.digest == second.digest)
        #expect(first.packets == second.packets && first.frames == second.frames)
        #expect(other.digest != first.digest)
    }

    /// RFC 8867 §5.1 with the rate fixed at 500 kb/s: never above any phase's capacity (0.6 Mb/s at least), so
    /// nothing is dropped and the queue holds at most about a frame's packets. Arithmetic for the utilisation:
    /// static seconds 5–40 (1 Mb/s), 45–60 (R_max 1.5 Mb/s binds), 65–80 (0.6 Mb/s), 85–100 (1 Mb/s) weigh
    /// 35·0.5 + 15·(1/3) + 15·(5/6) + 15·0.5 = 42.5 of 80 = 0.531 of the payload rate, plus the packets' headers
    /// (RTP 12, FU-A 2, IP/UDP 28 bytes on ~1040-byte packets: +4 %).
    @Test func fixedRateOn5_1MatchesArithmetic() throws {
        let scenario = try RFC8867.scenario(named: "5.1")
        let result = try Self.run(scenario)
        let analysis = Analysis(AnalysisInput(result))
        print("SimulationTests 5.1 fixed 500 kb/s: \(SummaryJSON.encode([analysis], seed: 1))")
        let utilization = try #require(analysis.utilization)
        #expect(utilization > 0.531 * 1.02 && utilization < 0.531 * 1.08, "\(utilization)")
        #expect(analysis.lossRatio == 0)
        // A 2083-byte frame (+10 % variation) is two packets of at most ~1190 bytes on the wire; at 0.6 Mb/s each
        // takes 15.9 ms, so a frame's second packet, sent right behind the first, leaves at most 31.7 ms after it
        // came. Only the first frame, a keyframe of five times the size, waits longer.
        #expect(analysis.queueDelayP99 <= 31.8)
        #expect(analysis.queueDelayMax < 50)
        #expect(analysis.queueDelayP50 > 3.4)  // at least one packet's serialisation at 2.5 Mb/s
        // Frame delay = 50 ms propagation + the queue (+ the pacer's 7 ms for the second packet).
        let frameP95 = try #require(analysis.frameDelayP95)
        #expect(frameP95 > 50 && frameP95 < 90)
        #expect(analysis.framesDelivered >= analysis.framesSent - 3)  // the last frames are still on their way at 100 s
        #expect(analysis.convergence.count == 3)
    }

    /// The same fixed rate above a phase's capacity: 1.2 Mb/s into 0.6 Mb/s at 60–80 s fills the 300 ms queue and
    /// drops; the queue delay never exceeds the limit.
    @Test func overloadFillsTheQueueToItsLimitAndDrops() throws {
        let result = try Self.run(try RFC8867.scenario(named: "5.1"), rate: 1_200_000)
        let analysis = Analysis(AnalysisInput(result))
        #expect(analysis.queueDrops > 0)
        #expect(analysis.queueDelayMax <= 300.0 + 1e-6)
        #expect(analysis.queueDelayMax > 290)
        #expect(analysis.secondsAbove200ms > 15)  // most of the 20 s at 0.6 Mb/s
    }
}

/// The TCP NewReno model alone and in pairs on RFC 8867 §5.6's link (2 Mb/s, 50 ms, 300 ms queue).
struct TCPModelTests {
    static let s: Int64 = 1_000_000_000

    static func tcpOnly(flows: Int, queue: Int64 = 300_000_000, duration: Int64 = 60 * s,
                        algorithm: TCPSender.Algorithm = .newReno) throws -> SimulationResult {
        let cross = try (0 ..< flows).map { _ in
            CrossTrafficSpec(kind: .longTCP(algorithm), path: try PathImpairment(propagation: 50_000_000), start: 0, end: duration)
        }
        let scenario = Scenario(name: "tcp", duration: duration,
                                forward: .init(capacity: .schedule(try .constant(2e6)), queueLimit: .time(queue)),
                                media: [], crossTraffic: cross)
        return try Simulation(scenario: scenario, seed: 3, policy: { _ in FixedRatePolicy(bitsPerSecond: 0) }).run()
    }

    static func throughput(_ result: SimulationResult, flow: Int, from start: Int64, to end: Int64) -> Double {
        let bytes = result.packets.filter { $0.flow == flow && $0.kind == .tcpData && ($0.arrived.map { $0 >= start && $0 < end } ?? false) }
            .reduce(0) { $0 + $1.bytes }
        return Double(bytes * 8) / (Double(end - start) / 1e9)
    }

    @Test(arguments: [TCPSender.Algorithm.newReno, .cubic])
    func oneFlowFillsTheLink(algorithm: TCPSender.Algorithm) throws {
        let result = try Self.tcpOnly(flows: 1, algorithm: algorithm)
        let rate = Self.throughput(result, flow: 0, from: 10 * Self.s, to: 60 * Self.s)
        print("TCPModelTests: one \(algorithm) flow on 2 Mb/s, 300 ms: \(rate / 1e6) Mb/s, \(result.packets.count { $0.drop == .queue }) drops")
        #expect(rate >= 0.9 * 2e6)
        #expect(result.packets.contains { $0.drop == .queue }, "NewReno probes until the queue overflows")
    }

    @Test(arguments: [TCPSender.Algorithm.newReno, .cubic])
    func twoFlowsShareFairly(algorithm: TCPSender.Algorithm) throws {
        let result = try Self.tcpOnly(flows: 2, duration: 120 * Self.s, algorithm: algorithm)
        let rates = (0 ..< 2).map { Self.throughput(result, flow: $0, from: 20 * Self.s, to: 120 * Self.s) }
        let jain = (rates[0] + rates[1]) * (rates[0] + rates[1]) / (2 * (rates[0] * rates[0] + rates[1] * rates[1]))
        print("TCPModelTests: two \(algorithm) flows: \(rates.map { $0 / 1e6 }) Mb/s, Jain \(jain)")
        #expect(jain >= 0.9)
        #expect(rates[0] + rates[1] >= 0.9 * 2e6)
    }

    /// Unit level: three duplicate ACKs halve the window and retransmit; a partial ACK retransmits the next hole;
    /// the timer resets the window to one segment.
    @Test func fastRetransmitAndTimeout() {
        var sender = TCPSender()
        #expect(sender.poll(at: 0) == Array(0 ..< 10))
        for _ in 0 ..< 3 { sender.receiveACK(next: 0, at: 1_000_000) }
        #expect(sender.slowStartThreshold == 5 && sender.congestionWindow == 8)
        #expect(sender.poll(at: 1_000_000) == [0])
        sender.receiveACK(next: 4, at: 2_000_000)  // partial: 4 is missing too
        #expect(sender.poll(at: 2_000_000).first == 4)
        sender.receiveACK(next: 10, at: 3_000_000)  // full ACK: recovery ends at ssthresh
        #expect(sender.congestionWindow == 5)
        _ = sender.poll(at: 3_000_000)
        let deadline = try! #require(sender.timerDeadline)
        sender.timerExpired(at: deadline)
        #expect(sender.congestionWindow == 1 && sender.timeouts == 1)
        #expect(sender.poll(at: deadline) == [10])
    }

    /// CUBIC backs off to 0.7 × the window (not half) and regrows along the cubic towards the old maximum.
    @Test func cubicBacksOffLessAndRegrows() {
        var sender = TCPSender(algorithm: .cubic)
        _ = sender.poll(at: 0)
        for _ in 0 ..< 3 { sender.receiveACK(next: 0, at: 1_000_000) }
        #expect(abs(sender.slowStartThreshold - 7) < 1e-9)
        #expect(abs(TCPSender.cubeRoot(27) - 3) < 1e-12 && TCPSender.cubeRoot(0) == 0)
    }
}

/// The `FeedbackSource` seam: whatever source a flow is given is the only way its policy hears of its packets.
struct FeedbackSourceSeamTests {
    /// Ground truth, with every report withheld: the policy never gets feedback.
    struct Silent: FeedbackSource {
        var inner = GroundTruthFeedback(epoch: 0)
        mutating func sent(_ packet: SentPacket) { inner.sent(packet) }
        mutating func arrived(sequence: Int64, at time: Int64) { inner.arrived(sequence: sequence, at: time) }
        mutating func report(at time: Int64) -> (bytes: Int, feedback: TransportPacketsFeedback)? { nil }
        mutating func delivered(_ feedback: TransportPacketsFeedback, at time: Int64) -> TransportPacketsFeedback { feedback }
    }

    @Test func aSilentSourceLeavesGCCAtItsStartRate() throws {
        var scenario = try RFC8867.scenario(named: "5.1")
        scenario.duration = 10_000_000_000
        let config = GoogCCPolicy.Configuration(startBitrate: 300_000, probing: false)
        let silent = try Simulation(scenario: scenario, seed: 1, policy: { _ in GoogCCPolicy(configuration: config) },
                                    feedback: { _ in Silent() }).run()
        #expect(!silent.packets.contains { $0.kind == .feedback })
        #expect(Set(silent.targets[0].map(\.bitsPerSecond)).count == 1, "no feedback, no change: \(silent.targets[0])")
        let heard = try Simulation(scenario: scenario, seed: 1, policy: { _ in GoogCCPolicy(configuration: config) }).run()
        #expect(heard.packets.contains { $0.kind == .feedback })
        #expect(heard.targets[0].count > 5, "with feedback the rate moves")
    }

    @Test func runsOnce() throws {
        var scenario = try RFC8867.scenario(named: "5.1")
        scenario.duration = 1_000_000_000
        let simulation = try Simulation(scenario: scenario, seed: 1, policy: { _ in FixedRatePolicy(bitsPerSecond: 100_000) })
        _ = try simulation.run()
        #expect(throws: SimulationError.self) { try simulation.run() }
    }
}
