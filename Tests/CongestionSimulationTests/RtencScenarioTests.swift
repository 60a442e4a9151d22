import CongestionControl
import Foundation
import Testing
@testable import CongestionSimulation

/// rtenc's controller against GCC in the simulator, same cases and seed (issue 17's goals table), with the margins
/// the seeds used leave. Each case runs in about a second (debug build). Measured with seed 1 (BENCHMARKS.md has
/// the full table, on the wire): 5.1 on the wire 97.5 % (GCC 87.6 %), p95/p99 30.6/41.0 ms (GCC 70.0/297); ground
/// truth, before the pacer burst went (the rest): 5.2 Jain 0.976;
/// 5.4 Jain 0.994; 5.6 66 % utilisation of R_max against NewReno (50 % of the link; GCC 12.8 %); ATT-LTE p95 frame
/// delay 289 ms (GCC 4447 ms).
struct RtencScenarioTests {
    static func run(_ scenario: Scenario, _ controller: String, seed: UInt64 = 1,
                    feedbackPath: FeedbackPath = .groundTruth) throws -> (SimulationResult, Analysis) {
        let make = try CongestionControllers.factory(named: controller)
        let result = try Simulation(scenario: scenario, seed: seed, policy: { _ in make() }, feedbackPath: feedbackPath).run()
        var input = AnalysisInput(result)
        input.controller = controller
        return (result, Analysis(input))
    }

    /// 5.1: utilisation ≥ 90 % and ≥ 0.95 × GCC; p95 ≤ 50 ms and ≤ 0.5 × GCC's; p99 ≤ 150 ms; each rise
    /// converged within 3 s; the queue under 50 ms within 1 s of the drop at 60 s. With transport-cc on the wire, as
    /// BENCHMARKS measures the goals (ground truth, seed 2: 31.3 ms against GCC's 62.6, 0.501 ×).
    @Test(arguments: [UInt64(1), 2])
    func rfc8867Case5_1(seed: UInt64) throws {
        let scenario = try RFC8867.scenario(named: "5.1")
        let (_, gcc) = try Self.run(scenario, "gcc", seed: seed, feedbackPath: .transportCC)
        let (result, rtenc) = try Self.run(scenario, "rtenc", seed: seed, feedbackPath: .transportCC)
        print("RtencScenarioTests 5.1 seed \(seed): \(SummaryJSON.encode([gcc, rtenc], seed: seed))")
        let utilization = try #require(rtenc.utilization)
        #expect(utilization >= 0.9 && utilization >= 0.95 * (gcc.utilization ?? 1))
        // Seed 1: 30.6 ms against GCC's 70.0 (0.44 ×); seed 2: 31.5 against 81.5 (0.39 ×). With the default 5 ms
        // pacer burst (two packets of a frame back to back) it was 38.3 / 38.5 ms, 0.55 × / 0.47 ×.
        #expect(rtenc.queueDelayP95 <= 35 && rtenc.queueDelayP95 <= 0.5 * gcc.queueDelayP95)
        #expect(rtenc.queueDelayP99 <= 60)
        #expect(rtenc.lossRatio <= 0.01)
        for change in rtenc.convergence where change.change == 40_000_000_000 || change.change == 80_000_000_000 {
            #expect((change.seconds ?? .infinity) <= 3, "rise at \(change.change / 1_000_000_000) s")
        }
        #expect(Self.worstQueueInTheSecondAfter61s(result) < 50_000_000)
    }

    /// The simulator gives the send session the policy's pacer burst (`BitrateControlPolicy.pacingBurst`), as `stream
    /// --cc` does live: under rtenc's (none) no two media packets enter the bottleneck at the same instant; under
    /// GCC's (the session's 5 ms, at least 1500 bytes) a frame's first two do.
    @Test func rtencSpacesEveryMediaPacketAndGCCBurstsTwo() throws {
        var scenario = try RFC8867.scenario(named: "5.1")
        scenario.duration = 20_000_000_000
        func backToBack(_ controller: String) throws -> Int {
            let media = try Self.run(scenario, controller).0.packets.filter { $0.kind == .media && $0.link == 0 }
            return zip(media, media.dropFirst()).count { $0.enqueued == $1.enqueued }
        }
        #expect(try backToBack("rtenc") == 0)
        #expect(try backToBack("gcc") > 100)
    }

    /// Back under 50 ms within 1 s of the drop at 60 s, and held there for the next second: the longest wait of a
    /// media packet leaving the queue between 61 and 62 s (ns; .max when none left).
    static func worstQueueInTheSecondAfter61s(_ result: SimulationResult) -> Int64 {
        let afterDrop = result.packets.filter { $0.kind == .media && ($0.departed ?? 0) >= 61_000_000_000 && ($0.departed ?? 0) < 62_000_000_000 }
        return afterDrop.compactMap(\.queueDelay).max() ?? .max
    }

    /// The same goal with transport-cc on the wire (how BENCHMARKS measures it): the loss at the drop brings a PLI,
    /// and the keyframe it asks for is budgeted in loss recovery (2.5 × a frame at the cut rate). Unbudgeted (8.2 KB,
    /// seed 1) it kept the queue at 62–69 ms until ~61.1 s; seed 2 107 ms at 61.2 s. Budgeted: 39 ms and 49.9 ms.
    @Test(arguments: [UInt64(1), 2])
    func rfc8867Case5_1DropOnTheWire(seed: UInt64) throws {
        let make = try CongestionControllers.factory(named: "rtenc")
        let result = try Simulation(scenario: try RFC8867.scenario(named: "5.1"), seed: seed, policy: { _ in make() },
                                    feedbackPath: .transportCC).run()
        let worst = Self.worstQueueInTheSecondAfter61s(result)
        #expect(worst < 50_000_000, "\(Double(worst) / 1e6) ms in the second after 61 s")
    }

    /// 5.2: two flows through four capacity changes: Jain ≥ 0.95 over 5 s windows (0.976 with seed 1, 0.981 with 2).
    @Test(arguments: [UInt64(1), 2])
    func rfc8867Case5_2(seed: UInt64) throws {
        let (_, analysis) = try Self.run(try RFC8867.scenario(named: "5.2"), "rtenc", seed: seed)
        #expect((analysis.jainIndex ?? 0) >= 0.95, "Jain \(String(describing: analysis.jainIndex))")
        #expect((analysis.utilization ?? 0) >= 0.9)
    }

    /// 5.4: three flows joining at 0, 20, 40 s: Jain ≥ 0.95; the newcomer at 80 % of its share (3.5 Mb/s / 3) within
    /// 15 s.
    @Test func rfc8867Case5_4() throws {
        let (result, analysis) = try Self.run(try RFC8867.scenario(named: "5.4"), "rtenc")
        #expect((analysis.jainIndex ?? 0) >= 0.95)
        let share = 3_500_000.0 / 3
        let goodput = Analysis.goodputBins(AnalysisInput(result), width: Analysis.second / 5)
        let reached = stride(from: Int64(40), to: 110, by: 1).first { t in
            Analysis.rate(goodput, flow: 2, from: t * Analysis.second, to: (t + 1) * Analysis.second) >= 0.8 * share
        }
        #expect((reached ?? .max) - 40 <= 15, "the newcomer reached 80 % of its share at \(String(describing: reached)) s")
    }

    /// 5.6 against one NewReno flow, 300 and 1000 ms queues: at least 25 % / 40 % of the 2 Mb/s link (utilisation
    /// counts against R_max, 1.5 Mb/s: 33 % / 53 %).
    @Test(arguments: [("5.6", 0.25), ("5.6-1000", 0.40)])
    func rfc8867Case5_6(name: String, share: Double) throws {
        let (_, analysis) = try Self.run(try RFC8867.scenario(named: name), "rtenc")
        let ofLink = (analysis.utilization ?? 0) * 1.5 / 2
        #expect(ofLink >= share, "\(name): \(ofLink) of the link")
    }

    /// The ATT-LTE-driving-2016 uplink (read from ../shared/traces when present, not part of the repository): p95
    /// frame delay ≤ 500 ms and ≤ 0.5 × GCC's.
    @Test func attLTETrace() throws {
        let path = "../shared/traces/mahimahi/ATT-LTE-driving-2016.up"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            print("RtencScenarioTests: \(path) not found, the trace case is skipped")
            return
        }
        let scenario = try RFC8867.traceScenario(name: "ATT-LTE-driving-2016.up", trace: try MahimahiTrace(parsing: text))
        let (_, gcc) = try Self.run(scenario, "gcc")
        let (_, rtenc) = try Self.run(scenario, "rtenc")
        let delay = try #require(rtenc.frameDelayP95)
        #expect(delay <= 500 && delay <= 0.5 * (gcc.frameDelayP95 ?? 0), "p95 frame delay \(delay) ms, GCC \(String(describing: gcc.frameDelayP95))")
    }
}
