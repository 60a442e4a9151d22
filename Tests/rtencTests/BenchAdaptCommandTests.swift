import Foundation
import TestSupport
import Testing

/// `rtenc bench adapt` from outside: the files it promises, and one-line errors for bad traces.
@Suite struct BenchAdaptCommandTests {
    @Test func writesCSVJSONScriptAndTable() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let trace = dir.appendingPathComponent("t.csv")
        try Data("time_s,target_kbps\n0,300\n1,150\n".utf8).write(to: trace)
        let out = dir.appendingPathComponent("out").path
        let hasGnuplot = FileManager.default.isExecutableFile(atPath: "/usr/bin/gnuplot")
        let result = try CLIRunner.rtenc(
            ["bench", "adapt", "--scenario", "trace:\(trace.path)", "--policy", "hardcap", "--policy", "adjuster",
             "--input", "testsrc:noise", "--size", "160x120", "--output-dir", out] + (hasGnuplot ? [] : ["--no-plot"]),
            timeout: 60)
        #expect(result.status == 0, "\(result.stderrText)")
        let csv = try String(contentsOfFile: "\(out)/trace-hardcap.csv", encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 1 + 60)  // 2 s at 30 fps
        #expect(csv.first?.hasPrefix("index,time_s,target_bps") == true)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(out)/trace.json")))
        let runs = (json as? [String: Any])?["runs"] as? [[String: Any]]
        #expect(runs?.compactMap { $0["policy"] as? String } == ["hardcap", "adjuster"])
        #expect(FileManager.default.fileExists(atPath: "\(out)/trace.gp"))
        if hasGnuplot {
            let svg = try String(contentsOfFile: "\(out)/adapt-trace.svg", encoding: .utf8)
            #expect(svg.contains("<svg"))
            #expect(FileManager.default.fileExists(atPath: "\(out)/adapt-trace.png"))
        }
        // The table on stdout and in adapt.md: header, rule, one row per policy.
        #expect(result.stdoutText.split(separator: "\n").count == 4)
        #expect(result.stdoutText.contains("| trace | hardcap |"))
    }

    @Test func badTraceIsOneLineWithItsLineNumber() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let trace = dir.appendingPathComponent("bad.csv")
        try Data("0,300\n0.5,fast\n".utf8).write(to: trace)
        let result = try CLIRunner.rtenc(
            ["bench", "adapt", "--scenario", "trace:\(trace.path)", "--output-dir", dir.path, "--no-plot"])
        #expect(result.status == 1)
        #expect(result.stderrText.hasPrefix("rtenc: bench adapt: scenario trace:"))
        #expect(result.stderrText.contains("line 2: target \"fast\" is not a number"))
    }
}
