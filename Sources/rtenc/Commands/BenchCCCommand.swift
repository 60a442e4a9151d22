import ArgumentParser
import CongestionControl
import CongestionSimulation
import CongestionSimulationEncoder
import EncoderSession
import FoundationEssentials
import MediaIO

/// `rtenc bench cc`: congestion controllers in the deterministic closed-loop simulator (CongestionSimulation) on
/// RFC 8867's test cases and Mahimahi traces; per case and controller a rate series, per-packet delays, markers,
/// a gnuplot plot, and one summary (README "Congestion control in simulation").
struct BenchCCCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cc",
        abstract: "Congestion control in simulated time: RFC 8867 cases × controllers → CSV, JSON summary, plots.",
        discussion: """
            Cases: \(RFC8867.names.joined(separator: ", ")), or trace:FILE (a Mahimahi trace, one delivery \
            opportunity of 1504 bytes per line in ms; scaled by --trace-scale). Controllers: gcc (GoogCCPolicy), \
            rtenc (RtencCongestionPolicy: encoder-coupled, per-frame budget, delay target, competing mode), \
            peer-limit (rtenc's REMB/TMMBR policy: with no REMB it runs at R_max), fixed or fixed:KBPS (500 kb/s \
            by default). For each case and controller writes, in --out: <case>-<controller>.series.csv (200 ms \
            bins), .delay.csv, .markers.csv, .json, .gp and .svg (gnuplot), and with --packet-log the per-packet \
            log (Mahimahi-style + - d # events) and .frames.csv (every frame's size and delay); scatter.csv/.gp/.svg \
            put every case and controller on one utilisation-against-p95-delay plot. Feedback crosses the return link \
            as the receive session's real transport-cc or RFC 8888 RTCP (--feedback; ground-truth skips the wire). \
            --codec x264 puts real libx264 in the loop (the built-in test pattern at --size, encoded on the simulated \
            clock): slower than the synthetic codec, and what make bench runs.

            A real-time run is analysed the same way: --write-rate-trace FILE writes the case's capacity schedule \
            for `rtenc relay --rate-trace`; after `rtenc stream --cc gcc` through `rtenc relay --queue-ms 300 \
            --delay 50 --packet-log LOG` to `rtenc receive --feedback transport-cc` (scripts/cc-real.sh runs all \
            three), --relay-log LOG reads the relay's per-packet log into the analyser beside a simulation of the same \
            case and controller, and the summary holds both (the real one as <controller>-real).
            """
    )

    @Option(name: .customLong("case"), help: "An RFC 8867 case or trace:FILE (repeatable; default 5.1).")
    var cases: [String] = []

    @Option(help: "Comma-separated controllers: \(CongestionControllers.names), fixed[:KBPS].")
    var controllers = "gcc,fixed"

    @Option(parsing: .unconditional, help: ArgumentHelp("The simulation's seed.", default: 1),
            transform: OptionNumber.integer(0 ... UInt64.max))
    var seed: UInt64 = 1

    @Option(help: "synthetic (RFC 8593-style frame sizes) or x264 (real libx264 on the simulated clock).")
    var codec = "synthetic"

    @Option(help: "How packet results reach the controller: transport-cc (RTPFB 15), ccfb (RFC 8888) or ground-truth.")
    var feedback = FeedbackPath.transportCC.rawValue

    @Option(parsing: .unconditional,
            help: ArgumentHelp("--codec x264: the test pattern's size WxH, even sides of 16…8192.",
                               default: FrameSize(width: 640, height: 360), valueName: "WxH"),
            transform: FrameSize.parse)
    var size = FrameSize(width: 640, height: 360)

    @Option(help: "--codec x264: the libx264 preset.")
    var preset = CompressionSession.Preset.veryfast

    @Option(help: "--codec x264: the test pattern, bars (colour bars, a moving box) or noise (incompressible).")
    var pattern = TestPatternSource.Content.bars.rawValue

    @Option(parsing: .unconditional, help: ArgumentHelp("Cut every case to this many seconds.", valueName: "seconds"),
            transform: OptionNumber.decimal(expected: "1…86400 seconds") { $0 >= 1 && $0 <= 86_400 })
    var duration: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Scale of a trace case's delivery opportunities.", default: 1),
            transform: OptionNumber.decimal(expected: "a scale above 0 and at most 100") { $0 > 0 && $0 <= 100 })
    var traceScale = 1.0

    @Option(help: "Write the summary of every case and controller here (a JSON list).")
    var json: String?

    @Option(help: "Directory for the per-case files (created if missing).")
    var out = "cc-out"

    @Flag(help: "Also write the per-packet log (<case>-<controller>.packets.csv).")
    var packetLog = false

    @Flag(inversion: .prefixedNo, help: "Draw the plots with gnuplot.")
    var plot = true

    @Option(help: ArgumentHelp("Write the --case's capacity schedule as an `rtenc relay --rate-trace` file, print the case's length in seconds, and stop.", valueName: "file"))
    var writeRateTrace: String?

    @Option(help: ArgumentHelp(
        "Analyse a real-time run of the --case: `rtenc relay --packet-log` of a stream under the one --controllers, beside its simulation.",
        valueName: "file"))
    var relayLog: String?

    struct Controller {
        var name: String
        var make: @Sendable () -> any BitrateControlPolicy
    }

    func validate() throws {
        guard codec == "synthetic" || codec == "x264" else {
            throw ValidationError("--codec \(codec): expected synthetic or x264")
        }
        guard FeedbackPath(rawValue: feedback) != nil else {
            throw ValidationError("--feedback \(feedback): expected \(FeedbackPath.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard TestPatternSource.Content(rawValue: pattern) != nil else {
            throw ValidationError("--pattern \(pattern): expected \(TestPatternSource.Content.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        let controllers = try parsedControllers()
        if writeRateTrace != nil || relayLog != nil {
            guard cases.count == 1, let name = cases.first, !name.hasPrefix("trace:") else {
                throw ValidationError("--write-rate-trace and --relay-log need one --case from the catalogue (a capacity schedule)")
            }
        }
        if relayLog != nil, controllers.count != 1 {
            throw ValidationError("--relay-log: give the one controller the real run used (--controllers gcc)")
        }
        for name in cases where !name.hasPrefix("trace:") && !RFC8867.names.contains(name) {
            throw ValidationError("--case \(name): not a case; expected \(RFC8867.names.joined(separator: ", ")) or trace:FILE")
        }
    }

    func parsedControllers() throws(ValidationError) -> [Controller] {
        var out: [Controller] = []
        for name in controllers.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            if let entry = CongestionControllers.named(name) {
                out.append(Controller(name: name) { entry.make(nil) })
                continue
            }
            switch name {
            case "fixed":
                out.append(Controller(name: "fixed") { FixedRatePolicy(bitsPerSecond: 500_000) })
            case _ where name.hasPrefix("fixed:"):
                guard let kbps = Int(name.dropFirst("fixed:".count)), (1 ... 1_000_000).contains(kbps) else {
                    throw ValidationError("--controllers: \(name): expected fixed:KBPS with 1…1000000 kb/s")
                }
                out.append(Controller(name: "fixed-\(kbps)k") { FixedRatePolicy(bitsPerSecond: kbps * 1000) })
            default:
                throw ValidationError("--controllers: '\(name)' is not a controller; expected \(CongestionControllers.names), fixed or fixed:KBPS")
            }
        }
        return out
    }

    func run() throws {
        if let writeRateTrace {
            let scenario = try loadScenario(cases[0])
            let trace: String
            do { trace = try RelayPacketLog.rateTrace(for: scenario) } catch {
                throw CLIError("bench cc: --write-rate-trace: \(error.reason)")
            }
            try write(trace, to: URL(fileURLWithPath: writeRateTrace))
            // The length, for a script that runs the case in real time (scripts/cc-real.sh).
            Console.standardOutput.write(SummaryJSON.number(Double(scenario.duration) / 1e9) + "\n")
            return
        }
        let directory = try OutputFiles.directory(out, option: "--out", command: "bench cc")
        let controllers = try parsedControllers()
        var analyses: [Analysis] = []
        for caseName in cases.isEmpty ? ["5.1"] : cases {
            var scenario = try loadScenario(caseName)
            if let duration { scenario.duration = min(scenario.duration, Int64(duration * 1e9)) }
            for controller in controllers {
                let x264 = X264Codecs()
                let clock = ContinuousClock()
                let started = clock.now
                let result: SimulationResult
                do {
                    result = try Simulation(scenario: scenario, seed: seed, policy: { _ in controller.make() },
                                            feedbackPath: FeedbackPath(rawValue: feedback) ?? .transportCC,
                                            codec: codecFactory(scenario, keeping: x264), logUnusedOpportunities: packetLog).run()
                } catch {
                    throw CLIError("bench cc: case \(caseName), \(controller.name): \(error)")
                }
                let wall = clock.now - started
                var input = AnalysisInput(result)
                input.controller = controller.name
                let analysis = Analysis(input)
                analyses.append(analysis)
                try writeFiles(result, input: input, analysis: analysis, directory: directory)
                let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
                let speed = Double(scenario.duration) / 1e9 / max(wallSeconds, 1e-9)
                let delays = "\(ms(analysis.queueDelayP50))/\(ms(analysis.queueDelayP95))/\(ms(analysis.queueDelayP99))"
                let frameDelay = analysis.frameDelayP95.map(ms) ?? "n/a"
                let jain = analysis.jainIndex.map { ", Jain \(SummaryJSON.number($0))" } ?? ""
                var line = "\(scenario.name)/\(controller.name): utilisation \(percent(analysis.utilization)), "
                line += "queuing delay p50/p95/p99 \(delays) ms, loss \(percent(analysis.lossRatio)), "
                line += "frame delay p95 \(frameDelay) ms\(jain); "
                line += x264.budgetSummary
                line += "\(result.eventsProcessed) events in \(ms(wallSeconds * 1000)) ms (\(speed < 10 ? SummaryJSON.number((speed * 10).rounded() / 10) : "\(Int(speed))") × real time)\n"
                Console.standardError.write(line)
            }
            if let relayLog, let controller = controllers.first {
                let real = try analyseRelayLog(relayLog, scenario: scenario, controller: controller.name, directory: directory)
                if let simulated = analyses.last { Console.standardError.write(Self.comparison(simulated: simulated, real: real)) }
                analyses.append(real)
            }
        }
        let summary = SummaryJSON.encode(analyses, seed: seed)
        if let json { try write(summary, to: URL(fileURLWithPath: json)) }
        // Every case and controller of this run on one throughput-vs-delay scatter.
        try write(CaseReport.scatterCSV(analyses), to: directory.appendingPathComponent("scatter.csv"))
        try write(CaseReport.scatterScript(stem: "scatter", analyses: analyses), to: directory.appendingPathComponent("scatter.gp"))
        if plot { try gnuplot("scatter.gp", in: directory) }
    }

    /// nil: the scenario's synthetic codec; x264: libx264 on the test pattern at the scenario's frame rate and
    /// keyframe interval, opened at each flow's start rate.
    private func codecFactory(_ scenario: Scenario, keeping made: X264Codecs) -> ((Int, MediaFlowSpec) throws(SimulationError) -> any SimulatedCodec)? {
        guard codec == "x264" else { return nil }
        let configuration = X264Codec.Configuration(
            width: size.width, height: size.height, framesPerSecond: scenario.codec.framesPerSecond,
            keyframeInterval: scenario.codec.keyframeInterval, preset: preset,
            content: TestPatternSource.Content(rawValue: pattern) ?? .bars)
        return { (_: Int, flow: MediaFlowSpec) throws(SimulationError) -> any SimulatedCodec in
            let codec = try X264Codec(configuration: configuration, target: flow.startBitrate)
            made.codecs.append(codec)
            return codec
        }
    }

    /// The real run: the relay's log through the same analyser, its files beside the simulation's (no plot: the
    /// relay does not see the sender's targets or frames).
    private func analyseRelayLog(_ path: String, scenario: Scenario, controller: String, directory: URL) throws -> Analysis {
        let text: String
        do {
            text = try String(decoding: Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        } catch {
            throw CLIError("bench cc: cannot read --relay-log \(path): \(fileErrorText(error))")
        }
        let input: AnalysisInput
        do {
            input = try RelayPacketLog.analysisInput(csv: text, scenario: scenario, controller: controller + "-real")
        } catch {
            throw CLIError("bench cc: --relay-log \(path): \(error.reason)")
        }
        let analysis = Analysis(input)
        let stem = "\(scenario.name)-\(input.controller)".filter { $0 != "/" }
        try write(CaseReport.seriesCSV(input, packets: input.packets), to: directory.appendingPathComponent("\(stem).series.csv"))
        try write(CaseReport.delayCSV(input.packets, mediaFlows: 1), to: directory.appendingPathComponent("\(stem).delay.csv"))
        try write(SummaryJSON.encode([analysis], seed: seed), to: directory.appendingPathComponent("\(stem).json"))
        let delays = "\(ms(analysis.queueDelayP50))/\(ms(analysis.queueDelayP95))/\(ms(analysis.queueDelayP99))"
        Console.standardError.write("\(scenario.name)/\(input.controller): utilisation \(percent(analysis.utilization)), "
            + "queuing delay p50/p95/p99 \(delays) ms, loss \(percent(analysis.lossRatio)) "
            + "(\(analysis.mediaPacketsSent) media packets in the relay log)\n")
        return analysis
    }

    /// "sim vs real: utilisation 93.1 % vs 88.0 % (−5.1 points), p95 queuing delay 40.2 vs 55.0 ms (+14.8 ms)".
    static func comparison(simulated: Analysis, real: Analysis) -> String {
        func percent(_ value: Double?) -> String { value.map { SummaryJSON.number(($0 * 1000).rounded() / 10) + " %" } ?? "n/a" }
        func signed(_ value: Double) -> String { (value >= 0 ? "+" : "−") + SummaryJSON.number((abs(value) * 10).rounded() / 10) }
        let utilisation = zip2(simulated.utilization, real.utilization).map { pair in " (\(signed((pair.1 - pair.0) * 100)) points)" } ?? ""
        let delay = real.queueDelayP95 - simulated.queueDelayP95
        func ms(_ value: Double?) -> String { value.map { SummaryJSON.number(($0 * 10).rounded() / 10) } ?? "–" }
        let phases = zip(simulated.phaseQueueDelayP95, real.phaseQueueDelayP95).map { sim, real in
            "\(SummaryJSON.number(Double(sim.start) / 1e9))–\(SummaryJSON.number(Double(sim.end) / 1e9)) s \(ms(sim.p95))/\(ms(real.p95))"
        }
        return "\(real.caseName) sim vs real: utilisation \(percent(simulated.utilization)) vs \(percent(real.utilization))\(utilisation), "
            + "p95 queuing delay \(ms(simulated.queueDelayP95)) vs \(ms(real.queueDelayP95)) ms (\(signed(delay)) ms); "
            + "p95 per phase, sim/real ms: \(phases.joined(separator: ", "))\n"
    }

    private static func zip2(_ a: Double?, _ b: Double?) -> (Double, Double)? {
        guard let a, let b else { return nil }
        return (a, b)
    }

    private func loadScenario(_ name: String) throws -> Scenario {
        guard name.hasPrefix("trace:") else {
            do { return try RFC8867.scenario(named: name) } catch { throw CLIError("bench cc: \(error.reason)") }
        }
        let path = String(name.dropFirst("trace:".count))
        let text: String
        do {
            text = try String(decoding: Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        } catch {
            throw CLIError("bench cc: cannot read trace \(path): \(fileErrorText(error))")
        }
        do {
            let trace = try MahimahiTrace(parsing: text)
            let stem = URL(fileURLWithPath: path).lastPathComponent
            return try RFC8867.traceScenario(name: traceScale == 1 ? stem : "\(stem)-x\(SummaryJSON.number(traceScale))",
                                             trace: trace, scale: traceScale)
        } catch {
            throw CLIError("bench cc: trace \(path): \(error.reason)")
        }
    }

    private func writeFiles(_ result: SimulationResult, input: AnalysisInput, analysis: Analysis, directory: URL) throws {
        let stem = "\(result.scenario.name)-\(input.controller)".filter { $0 != "/" }
        let flows = result.scenario.media.count
        try write(CaseReport.seriesCSV(input, packets: result.packets), to: directory.appendingPathComponent("\(stem).series.csv"))
        try write(CaseReport.delayCSV(result.packets, mediaFlows: flows), to: directory.appendingPathComponent("\(stem).delay.csv"))
        try write(CaseReport.markersCSV(result), to: directory.appendingPathComponent("\(stem).markers.csv"))
        try write(SummaryJSON.encode([analysis], seed: seed), to: directory.appendingPathComponent("\(stem).json"))
        if packetLog {
            try write(PacketLog.csv(result.packets, unusedOpportunities: result.unusedOpportunities),
                      to: directory.appendingPathComponent("\(stem).packets.csv"))
            try write(framesCSV(result.frames), to: directory.appendingPathComponent("\(stem).frames.csv"))
        }
        var limit: Double?
        if case .time(let ns) = result.scenario.forward.queueLimit { limit = Double(ns) / 1e6 }
        let title = "\(result.scenario.name), \(input.controller), seed \(seed): utilisation \(percent(analysis.utilization)), "
            + "queuing delay p95 \(ms(analysis.queueDelayP95)) ms, loss \(percent(analysis.lossRatio))"
        let script = CaseReport.gnuplotScript(stem: stem, title: title, analysis: analysis, mediaFlows: flows,
                                              duration: result.scenario.duration, queueLimitMilliseconds: limit)
        let scriptFile = directory.appendingPathComponent("\(stem).gp")
        try write(script, to: scriptFile)
        if plot { try gnuplot(scriptFile.lastPathComponent, in: directory) }
    }

    /// Every frame the codec produced: capture time, flow, size, keyframe, and its frame delay (empty: never
    /// delivered) — where a tail of frame delays comes from.
    private func framesCSV(_ frames: [FrameFate]) -> String {
        var text = "captured_s,flow,bytes,keyframe,frame_delay_ms\n"
        for frame in frames {
            let delay = frame.delivered.map { ms(Double($0 - frame.captured) / 1e6) } ?? ""
            text += "\(SummaryJSON.number(Double(frame.captured) / 1e9)),\(frame.flow),\(frame.bytes),\(frame.isKeyframe ? 1 : 0),\(delay)\n"
        }
        return text
    }

    /// Runs gnuplot on `script` in `directory` (the scripts name their data files relative to it).
    private func gnuplot(_ script: String, in directory: URL) throws {
        let status: Int32
        do {
            status = try BenchAdaptCommand.runProgram(["/usr/bin/env", "-C", directory.path, "gnuplot", script])
        } catch {
            throw CLIError("bench cc: cannot run gnuplot (make deps installs gnuplot-nox): \(error.message)")
        }
        guard status == 0 else { throw CLIError("bench cc: gnuplot failed on \(directory.path)/\(script) (status \(status))") }
    }

    private func write(_ text: String, to url: URL) throws {
        try OutputFiles.write(text, to: url, command: "bench cc")
    }

    private func percent(_ value: Double?) -> String {
        value.map { SummaryJSON.number(($0 * 1000).rounded() / 10) + " %" } ?? "n/a"
    }

    private func ms(_ value: Double) -> String { SummaryJSON.number((value * 10).rounded() / 10) }
}

/// The x264 codecs of one run, kept for what the summary line says about their frame budgets.
private final class X264Codecs {
    var codecs: [X264Codec] = []

    /// "N frames budgeted, M over (mean ×m, largest ×r); " or "" when no frame had a positive budget.
    var budgetSummary: String {
        let budgeted = codecs.reduce(0) { $0 + $1.budgetedFrames }
        guard budgeted > 0 else { return "" }
        let over = codecs.reduce(0) { $0 + $1.budgetOverruns }
        let largest = codecs.map(\.largestBudgetRatio).max() ?? 0
        let mean = codecs.reduce(0) { $0 + $1.budgetRatioSum } / Double(budgeted)
        return "x264: \(budgeted) frames budgeted, \(over) over their budget (mean \(SummaryJSON.number((mean * 100).rounded() / 100)) ×, "
            + "largest \(SummaryJSON.number((largest * 100).rounded() / 100)) ×); "
    }
}
