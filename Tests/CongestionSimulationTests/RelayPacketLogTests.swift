import CongestionControl
import Testing
@testable import CongestionSimulation

/// `rtenc relay --packet-log` read into the analyser's records: line by line, refusals, the rate trace written for
/// the relay, and a simulation written in the relay's format and read back giving the same analysis.
struct RelayPacketLogTests {
    static let header = RelayPacketLog.header

    /// Case table: one line of the relay's log → the record it becomes.
    static let lines: [(String, PacketFate)] = [
        ("1000.000,forward,1200,17,forwarded,12.500,1062.500,media",
         PacketFate(link: 0, flow: 0, kind: .media, bytes: 1200, sequence: 17, enqueued: 1_000_000_000,
                    departed: 1_012_500_000, arrived: 1_062_500_000)),
        ("0.250,forward,279,65535,forwarded,0.002,50.252,padding",
         PacketFate(link: 0, flow: 0, kind: .padding, bytes: 279, sequence: 65535, enqueued: 250_000, departed: 252_000,
                    arrived: 50_252_000)),
        ("2.000,forward,1200,18,queue,,,media",
         PacketFate(link: 0, flow: 0, kind: .media, bytes: 1200, sequence: 18, enqueued: 2_000_000, drop: .queue)),
        ("3.000,forward,1200,19,loss,,,media",
         PacketFate(link: 0, flow: 0, kind: .media, bytes: 1200, sequence: 19, enqueued: 3_000_000, drop: .random)),
        ("4.000,back,80,,forwarded,0.001,54.001,rtcp",
         PacketFate(link: 1, flow: 0, kind: .rtcp, bytes: 80, sequence: 0, enqueued: 4_000_000, departed: 4_001_000,
                    arrived: 54_001_000)),
    ]

    @Test(arguments: lines)
    func aLineBecomesARecord(line: String, expected: PacketFate) throws {
        #expect(try RelayPacketLog.packets(csv: Self.header + "\n" + line + "\n") == [expected])
    }

    @Test(arguments: [
        ("", "header"),
        ("arrival_ms,direction,bytes,rtp_seq,fate,queue_delay_ms,delivery_ms\n", "header"),  // an older relay: no kind
        (header + "\n1.0,forward,1200,1,forwarded,1.0,51.0\n", "7 fields"),
        (header + "\n1.0,sideways,1200,1,forwarded,1.0,51.0,media\n", "direction"),
        (header + "\nsoon,forward,1200,1,forwarded,1.0,51.0,media\n", "arrival_ms"),
        (header + "\n1.0,forward,huge,1,forwarded,1.0,51.0,media\n", "bytes"),
        (header + "\n1.0,forward,1200,70000,forwarded,1.0,51.0,media\n", "rtp_seq"),
        (header + "\n1.0,forward,1200,1,lost,,,media\n", "fate"),
        (header + "\n1.0,forward,1200,1,forwarded,,51.0,media\n", "queue_delay_ms"),
        (header + "\n1.0,forward,1200,1,forwarded,10.0,5.0,media\n", "delivered before"),
        (header + "\n1.0,back,1200,1,forwarded,1.0,51.0,media\n", "kind"),
        (header + "\n1.0,forward,1200,1,forwarded,1.0,51.0,video\n", "kind"),
    ])
    func badLogsAreRefusedWithTheLine(text: String, mentions: String) {
        #expect {
            try RelayPacketLog.packets(csv: text)
        } throws: { error in
            guard let error = error as? SimulationError else { return false }
            return error.code == .invalidLog && error.reason.contains(mentions)
        }
    }

    /// Drip-feed: every line cut short is refused (a prefix of a field that still parses — "1.0" of "1.05" — is
    /// another valid line, so only cuts that remove a field are checked).
    @Test func everyLineCutShortOfItsFieldsIsRefused() {
        let line = "1000.000,forward,1200,17,forwarded,12.500,1062.500,media"
        let commas = line.indices.filter { line[$0] == "," }
        for comma in commas {
            let text = Self.header + "\n" + line[..<comma] + "\n"
            #expect(throws: SimulationError.self, "\(text)") { try RelayPacketLog.packets(csv: text) }
        }
    }

    @Test func theRateTraceIsTheSchedule() throws {
        #expect(try RelayPacketLog.rateTrace(for: RFC8867.scenario(named: "5.1")) == "time_s,kbps\n0,1000\n40,2500\n60,600\n80,1000\n")
        #expect(try RelayPacketLog.rateTrace(for: RFC8867.scenario(named: "5.1-short")) == "time_s,kbps\n0,1000\n9,2500\n16,600\n23,1000\n")
        let trace = try MahimahiTrace(parsing: "1\n2\n")
        #expect(throws: SimulationError.self) {
            try RelayPacketLog.rateTrace(for: RFC8867.traceScenario(name: "t", trace: trace))
        }
    }

    /// One analyser for both: a simulation of the short 5.1 case with GCC, written as the relay writes its log
    /// (microsecond times, RTP numbers modulo 2^16) and read back, analyses as the simulation itself does.
    @Test func aSimulationReadBackFromTheRelayFormatAnalysesTheSame() throws {
        let scenario = try RFC8867.scenario(named: "5.1-short")
        let result = try Simulation(scenario: scenario, seed: 1, policy: { _ in GoogCCPolicy() }).run()
        var csv = Self.header + "\n"
        for fate in result.packets {
            let kind = switch fate.kind {
            case .media: "media"
            case .padding: "padding"
            default: "rtcp"
            }
            let ms = { (ns: Int64) in PacketLog.milliseconds(ns) }
            let direction = fate.link == 0 ? "forward" : "back"
            let fateText = switch fate.drop {
            case .queue: "queue"
            case .random: "loss"
            case nil: "forwarded"
            }
            var line = "\(ms(fate.enqueued)),\(direction),\(fate.bytes),\(fate.sequence & 0xFFFF),\(fateText),"
            if fate.drop == nil, let departed = fate.departed, let arrived = fate.arrived {
                line += "\(ms(departed - fate.enqueued)),\(ms(arrived))"
            } else {
                line += ","
            }
            csv += line + ",\(kind)\n"
        }
        let simulated = Analysis(AnalysisInput(result))
        let real = Analysis(try RelayPacketLog.analysisInput(csv: csv, scenario: scenario, controller: "gcc-real"))
        #expect(real.mediaPacketsSent == simulated.mediaPacketsSent)
        #expect(real.queueDrops == simulated.queueDrops)
        let utilisation = try #require(simulated.utilization), readBack = try #require(real.utilization)
        #expect(abs(readBack - utilisation) < 1e-3, "\(readBack) vs \(utilisation)")
        #expect(abs(real.queueDelayP95 - simulated.queueDelayP95) < 0.01)
        #expect(abs(real.queueDelayP99 - simulated.queueDelayP99) < 0.01)
        #expect(real.frameDelayP95 == nil, "the relay sees no frames")
        // Per phase: 0–9, 9–16, 16–23, 23–30 s; the drop to 0.6 at 16 s fills the queue.
        #expect(real.phaseQueueDelayP95.map(\.start) == [0, 9, 16, 23].map { Int64($0) * 1_000_000_000 })
        for (read, simulatedPhase) in zip(real.phaseQueueDelayP95, simulated.phaseQueueDelayP95) {
            #expect(abs((read.p95 ?? -1) - (simulatedPhase.p95 ?? -2)) < 0.01)
        }
        let fullQueue = try #require(simulated.phaseQueueDelayP95[2].p95)
        #expect(fullQueue > 200 && fullQueue > (simulated.phaseQueueDelayP95[0].p95 ?? .infinity), "\(simulated.phaseQueueDelayP95)")
        #expect(real.convergence.count == simulated.convergence.count)
        // The summary has the simulator's shape.
        let json = SummaryJSON.encode([real], seed: 1)
        #expect(json.contains("\"controller\": \"gcc-real\"") && json.contains("\"queue_delay_p95_ms\""))
    }
}
