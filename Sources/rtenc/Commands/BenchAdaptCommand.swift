import ArgumentParser
import BitrateAdaptation
import Bitstream
import EncoderSession
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MediaIO

/// `rtenc bench`: measurements of rtenc itself: `adapt` and `cc`.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure rtenc: bitrate adaptation (adapt), congestion control in simulation (cc).",
        subcommands: [BenchAdaptCommand.self, BenchCCCommand.self]
    )
}

/// `rtenc bench adapt`: drives the encoder through bitrate scenarios under each policy and reports how closely and
/// how fast the output followed (BitrateAdaptation module; README "Bitrate adaptation").
struct BenchAdaptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adapt",
        abstract: "Bitrate-adaptation harness: scenarios × policies → per-frame CSV, JSON summary, plots, table.",
        discussion: """
            Frames are stamped i/fps and encoded as fast as possible (a simulated clock) unless --real-time is given.
            For each scenario writes, in --output-dir: <scenario>-<policy>.csv (per frame), <scenario>.json (metrics
            of every policy), <scenario>.gp and adapt-<scenario>.svg/.png (gnuplot), and adapt.md (the table).
            Trace CSV: `time_s,target_kbps` rows, times from 0 strictly increasing (see README).
            """
    )

    @Option(name: .customLong("scenario"), help: "step, ramp, square, or trace:FILE (repeatable; default step).",
            transform: Self.scenarioName)
    var scenarios: [String] = []

    @Option(name: .customLong("policy"), help: "vbv (raw x264), nocap, hardcap, adjuster (repeatable; default vbv, hardcap, adjuster).",
            transform: Self.policyName)
    var policies: [String] = []

    @Option(help: "testsrc (bars), testsrc:noise, or a video file (looped).")
    var input = "testsrc"

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Frame size WxH, even sides of 16…8192.", default: FrameSize(width: 640, height: 360),
                               valueName: "WxH"),
            transform: FrameSize.parse)
    var size = FrameSize(width: 640, height: 360)

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Frames per second of the harness clock, 1…240.", default: 30),
            transform: OptionNumber.integer(1...240, unit: "frames per second"))
    var fps = 30

    @Option(help: "libx264 preset.")
    var preset = CompressionSession.Preset.veryfast

    // 1 by default: with 2 sliced threads x264's rate control sees slices finish in varying order, and frame sizes
    // (so every metric) differ slightly from run to run.
    @Option(parsing: .unconditional,
            help: ArgumentHelp("Encoder threads, 1…16 (1 makes runs repeatable).", default: 1),
            transform: OptionNumber.integer(1...16))
    var threads = 1

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Force an IDR every this many seconds (as a receiver's PLI would).", valueName: "seconds"),
            transform: OptionNumber.decimal(expected: "0.1 seconds or more") { $0 >= 0.1 })
    var keyframeEvery: Double?

    @Flag(help: "Pace frames on the real clock instead of the simulated one.")
    var realTime = false

    @Option(help: "Directory for the results (created if missing).")
    var outputDir = "adapt-out"

    @Option(help: "Appended to scenario names in file names and tables (e.g. noise → step-noise).")
    var tag: String?

    @Flag(inversion: .prefixedNo, help: "Draw the plots with gnuplot.")
    var plot = true

    func validate() throws {
        if let tag, tag.isEmpty || !tag.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            throw ValidationError("--tag '\(tag)': not a tag; expected letters, digits, '-' or '_', like noise")
        }
    }

    /// `--scenario`: a built-in name or trace:FILE (the file is read when the scenario runs).
    static let scenarioName: @Sendable (String) throws(OptionValueError) -> String = { name throws(OptionValueError) in
        let builtIn = ["step", "ramp", "square"]
        guard builtIn.contains(name) || (name.hasPrefix("trace:") && name.count > "trace:".count) else {
            throw OptionValueError("not a scenario", expected: "expected \(builtIn.joined(separator: ", ")) or trace:FILE")
        }
        return name
    }

    /// `--policy`: one of the harness's policies.
    static let policyName: @Sendable (String) throws(OptionValueError) -> String = { name throws(OptionValueError) in
        guard BitratePolicies.names.contains(name) else {
            throw OptionValueError("not a policy", expected: "expected one of \(BitratePolicies.names.joined(separator: ", "))")
        }
        return name
    }

    func run() throws {
        let directory = try OutputFiles.directory(outputDir, option: "--output-dir", command: "bench adapt")
        let options = AdaptationHarness.Options(
            frameRate: Rational(fps, 1), realTime: realTime, preset: preset, encoder: .software, threadCount: threads,
            forcedKeyFrameInterval: keyframeEvery)
        var tableRows: [String] = []
        for scenarioName in scenarios.isEmpty ? ["step"] : scenarios {
            let scenario = try loadScenario(scenarioName)
            var runs: [AdaptationRun] = []
            for policyName in policies.isEmpty ? BitratePolicies.defaults : policies {
                var policy = try BitratePolicies.named(policyName)
                var source = try openSource()
                let run: AdaptationRun
                do {
                    run = try AdaptationHarness.run(scenario: scenario, policy: &policy, source: &source, options: options)
                } catch {
                    throw CLIError("bench adapt: \(scenario.name)/\(policyName): \(error)")
                }
                let stem = "\(scenario.name)-\(run.policyName)"
                try write(FrameRecord.csv(run.frames), to: directory.appendingPathComponent("\(stem).csv"))
                try write(AdaptationReport.seriesCSV(run), to: directory.appendingPathComponent("\(stem).series.csv"))
                try write(AdaptationReport.binnedCSV(run), to: directory.appendingPathComponent("\(stem).bins.csv"))
                printLine(run)
                runs.append(run)
            }
            if let summary = AdaptationReport.summary(of: runs, content: input) {
                try write(AdaptationReport.json(summary), to: directory.appendingPathComponent("\(scenario.name).json"))
            }
            tableRows += AdaptationReport.tableRows(runs)
            try writePlot(scenario: scenario, runs: runs, in: directory)
        }
        let table = AdaptationReport.tableHeader + "\n" + tableRows.joined(separator: "\n") + "\n"
        try write(table, to: directory.appendingPathComponent("adapt.md"))
        print(table, terminator: "")
    }

    private func loadScenario(_ name: String) throws -> Scenario {
        let scenario = try loadUntaggedScenario(name)
        guard let tag else { return scenario }
        do {
            return try Scenario(name: "\(scenario.name)-\(tag)", changes: scenario.changes, duration: scenario.duration)
        } catch {
            throw CLIError("bench adapt: scenario \(name): \(error)")
        }
    }

    private func loadUntaggedScenario(_ name: String) throws -> Scenario {
        do {
            if name.hasPrefix("trace:") {
                let path = String(name.dropFirst("trace:".count))
                let text: String
                do {
                    text = try String(contentsOfFile: path, encoding: .utf8)
                } catch {
                    throw CLIError("bench adapt: cannot read trace \(path): \(fileErrorText(error))")
                }
                return try TraceCSV.parse(text, name: "trace")
            }
            return try Scenario.named(name)
        } catch let error as AdaptationError {
            throw CLIError("bench adapt: scenario \(name): \(error)")
        }
    }

    /// A fresh source per run, so every policy sees the same frames. The test pattern's clock overlay is frozen
    /// for the same reason.
    private func openSource() throws -> any FrameSource {
        let isPattern = input.hasPrefix("testsrc")
        let options = FrameSourceOptions(
            width: size.width, height: size.height, frameRate: Rational(fps, 1), format: .nv12, loop: !isPattern,
            clock: { 0 })
        do {
            return try FrameSources.open(input, options: options)
        } catch {
            throw CLIError("bench adapt: cannot open input \(input): \(error)")
        }
    }

    private func writePlot(scenario: Scenario, runs: [AdaptationRun], in directory: URL) throws {
        let peak1s = runs.flatMap { run in
            RateSeries.sliding(run.frames, window: 1, frameInterval: 1 / Double(fps)).compactMap(\.bitsPerSecond)
        }.max() ?? 0
        let maxTarget = Double(scenario.changes.map(\.bitRate).max() ?? 0)
        let yMax = (max(peak1s, maxTarget * 1.5) * 1.15 / 1000).rounded(.up)
        let panels = runs.map { run in
            let metrics = run.metrics
            let step = metrics.worstStepResponseSeconds.map {
                $0.isFinite ? String(cFormat: "worst step %.2f s", $0) : "a step never settled"
            } ?? "no step judged"
            let title = "\(run.policyName): MAE \(String(cFormat: "%.1f%%", metrics.meanAbsoluteError * 100)), \(step), "
                + "cap violations \(metrics.capViolations), dropped \(metrics.droppedFrames), "
                + "keyframes \(metrics.keyFrames)"
            let stem = "\(scenario.name)-\(run.policyName)"
            return AdaptationPlot.Panel(
                title: title, seriesFile: "\(stem).series.csv", binnedFile: "\(stem).bins.csv",
                targetsFile: "\(scenario.name).targets.csv")
        }
        let first = runs.first
        let inputName = URL(fileURLWithPath: input).lastPathComponent
        let title = "\(scenario.name): \(inputName) \(first?.width ?? 0)x\(first?.height ?? 0) \(fps) fps, "
            + "\(first?.encoderName ?? "") \(preset.rawValue)"
        let script = AdaptationPlot.script(
            title: title, panels: panels, duration: scenario.duration, yMaxKbps: yMax,
            svg: "adapt-\(scenario.name).svg", png: "adapt-\(scenario.name).png")
        try write(AdaptationReport.targetsCSV(scenario), to: directory.appendingPathComponent("\(scenario.name).targets.csv"))
        let scriptFile = directory.appendingPathComponent("\(scenario.name).gp")
        try write(script, to: scriptFile)
        guard plot else { return }
        // env -C (GNU coreutils ≥ 8.28) runs gnuplot in the output directory: the script names its data files
        // relative to it.
        let status: Int32
        do {
            status = try Self.runProgram(["/usr/bin/env", "-C", directory.path, "gnuplot", scriptFile.lastPathComponent])
        } catch {
            throw CLIError("bench adapt: cannot run gnuplot (make deps installs gnuplot-nox): \(error.message)")
        }
        guard status == 0 else {
            throw CLIError("bench adapt: gnuplot failed on \(scriptFile.path) (status \(status))")
        }
    }

    /// Runs a program (posix_spawn) and waits for it: its exit status, or the number of the signal that ended it.
    static func runProgram(_ arguments: [String]) throws(CLIError) -> Int32 {
        let argv = arguments.map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, arguments[0], nil, nil, argv + [nil], environ)
        guard spawned == 0 else { throw CLIError(String(cString: strerror(spawned))) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw CLIError(String(cString: strerror(errno))) }
        }
        // WIFSIGNALED/WTERMSIG and WEXITSTATUS, which Swift cannot import (macros).
        return status & 0x7f != 0 ? status & 0x7f : (status >> 8) & 0xff
    }

    private func write(_ text: String, to url: URL) throws {
        try OutputFiles.write(text, to: url, command: "bench adapt")
    }

    private func printLine(_ run: AdaptationRun) {
        let metrics = run.metrics
        let step = metrics.worstStepResponseSeconds.map { String(cFormat: "%.2f s", $0) } ?? "n/a"
        let line = "\(run.scenario.name)/\(run.policyName): \(metrics.frames) frames in "
            + String(cFormat: "%.2f s", run.wallSeconds) + ", MAE "
            + String(cFormat: "%.1f%%", metrics.meanAbsoluteError * 100)
            + ", worst step \(step), cap violations \(metrics.capViolations), dropped \(metrics.droppedFrames)\n"
        Console.standardError.write(line)
    }
}
