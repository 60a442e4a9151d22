import Foundation
import TestSupport
import Testing

/// `rtenc bench cc` from outside: the summary's fields, the per-case files, and one-line errors.
@Suite struct BenchCCCommandTests {
    @Test func writesSummaryAndPerCaseFiles() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        let summary = dir.appendingPathComponent("summary.json").path
        let hasGnuplot = FileManager.default.isExecutableFile(atPath: "/usr/bin/gnuplot")
        let result = try CLIRunner.rtenc(
            ["bench", "cc", "--case", "5.1", "--case", "5.2", "--controllers", "fixed:400,gcc,rtenc", "--duration", "12", "--seed", "3",
             "--json", summary, "--out", out, "--packet-log"] + (hasGnuplot ? [] : ["--no-plot"]),
            timeout: 120)
        #expect(result.status == 0, "\(result.stderrText)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [[String: Any]]
        let rows = try #require(json)
        #expect(rows.map { "\($0["case"]!)/\($0["controller"]!)" } == ["5.1/fixed-400k", "5.1/gcc", "5.1/rtenc", "5.2/fixed-400k", "5.2/gcc", "5.2/rtenc"])
        for row in rows {
            for field in ["utilization", "queue_delay_p50_ms", "queue_delay_p95_ms", "queue_delay_p99_ms", "loss_ratio", "frame_delay_p95_ms"] {
                #expect(row[field] is NSNumber, "\(field) in \(row)")
            }
            #expect(row["seed"] as? Int == 3)
        }
        // Jain's index only where there are several flows.
        #expect(rows[0]["jain_index"] is NSNull)
        #expect(rows[3]["jain_index"] is NSNumber && rows[5]["jain_index"] is NSNumber)
        for suffix in ["series.csv", "delay.csv", "markers.csv", "json", "gp", "packets.csv", "frames.csv"] {
            #expect(FileManager.default.fileExists(atPath: "\(out)/5.1-gcc.\(suffix)"), "5.1-gcc.\(suffix)")
        }
        let log = try String(contentsOfFile: "\(out)/5.1-fixed-400k.packets.csv", encoding: .utf8)
        #expect(log.hasPrefix("time_ms,event,link,flow,kind,bytes,sequence,queue_delay_ms,cause\n"))
        if hasGnuplot {
            #expect(try String(contentsOfFile: "\(out)/5.1-gcc.svg", encoding: .utf8).contains("<svg"))
            #expect(try String(contentsOfFile: "\(out)/scatter.svg", encoding: .utf8).contains("<svg"))
        }
        let scatter = try String(contentsOfFile: "\(out)/scatter.csv", encoding: .utf8).split(separator: "\n")
        #expect(scatter.count == 7 && scatter.first == "case,controller,utilization,queue_delay_p95_ms")
        #expect(result.stderrText.contains("5.1/gcc: utilisation") && result.stderrText.contains("5.1/rtenc: utilisation"))
        let frames = try String(contentsOfFile: "\(out)/5.1-rtenc.frames.csv", encoding: .utf8)
        #expect(frames.hasPrefix("captured_s,flow,bytes,keyframe,frame_delay_ms\n") && frames.split(separator: "\n").count > 300)
    }

    @Test(arguments: [
        (["--case", "5.9"], "--case 5.9: not a case"),
        (["--controllers", "gcc,bbr"], "'bbr' is not a controller"),
        (["--controllers", "fixed:0"], "expected fixed:KBPS"),
        (["--codec", "vp8"], "--codec vp8: expected synthetic or x264"),
        (["--feedback", "twcc"], "--feedback twcc: expected ground-truth, transport-cc, ccfb"),
        (["--codec", "x264", "--pattern", "smpte"], "--pattern smpte: expected bars or noise"),
        (["--case", "trace:/nonexistent/trace.up"], "cannot read trace /nonexistent/trace.up"),
    ])
    func refusesWithOneLine(arguments: [String], message: String) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLIRunner.rtenc(["bench", "cc", "--out", dir.path, "--no-plot"] + arguments)
        #expect((1 ... 125).contains(result.status))
        #expect(result.stderrText.hasPrefix("rtenc: "), "\(result.stderrText)")
        #expect(result.stderrText.contains(message), "\(result.stderrText)")
        #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
    }

    /// Real libx264 in the loop, feedback as RFC 8888 on the wire: 3 s of 5.1 at 320×180.
    @Test func runsX264InTheLoop() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let summary = dir.appendingPathComponent("summary.json").path
        let result = try CLIRunner.rtenc(
            ["bench", "cc", "--case", "5.1", "--duration", "3", "--controllers", "gcc", "--codec", "x264", "--size", "320x180",
             "--feedback", "ccfb", "--json", summary, "--out", dir.path, "--no-plot"], timeout: 120)
        #expect(result.status == 0, "\(result.stderrText)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [[String: Any]]
        let row = try #require(json?.first)
        #expect((row["frames_sent"] as? Int ?? 0) >= 85, "\(row)")  // 3 s at 30 fps, the first frames under way
        #expect((row["media_packets"] as? Int ?? 0) > 0)
    }

    @Test func badTraceNamesItsLine() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let trace = dir.appendingPathComponent("bad.up")
        try Data("1\n2\nfast\n".utf8).write(to: trace)
        let result = try CLIRunner.rtenc(["bench", "cc", "--case", "trace:\(trace.path)", "--out", dir.path, "--no-plot"])
        #expect(result.status == 1)
        #expect(result.stderrText.hasPrefix("rtenc: bench cc: trace \(trace.path): line 3:"), "\(result.stderrText)")
    }
}
