import Bitstream
import CLibAV
import EncoderSession
import Foundation
import MediaIO
import Testing
@testable import BitrateAdaptation

/// Short real runs through libx264: the harness's plumbing and the session's promise (no cap violations).
@Suite struct HarnessTests {
    /// 600 k → 200 k → 800 k, one second each, 320×240 noise (which x264 cannot compress, so the cap is pushed).
    static func run(_ policy: some BitratePolicy) throws -> AdaptationRun {
        rtenc_av_log_set_level(AV_LOG_ERROR)  // x264's per-frame notices would bury the test output
        var policy = policy
        let scenario = try Scenario.step([600_000, 200_000, 800_000], hold: 1)
        var source = try TestPatternSource(width: 320, height: 240, content: .noise, clock: { 0 })
        return try AdaptationHarness.run(
            scenario: scenario, policy: &policy, source: &source, options: .init(preset: .ultrafast, threadCount: 1))
    }

    @Test func hardCapRunIsSaneAndNeverBreaksTheCap() throws {
        let run = try Self.run(HardCapPolicy())
        #expect(run.frames.map(\.index) == Array(0..<90))
        #expect(run.frames.allSatisfy { abs($0.time - Double($0.index) / 30) < 1e-12 })
        #expect(run.frames.first?.isKeyFrame == true)
        #expect(run.frames.allSatisfy { $0.encoderBitRate == $0.target })
        #expect(run.frames.allSatisfy { $0.isDropped == ($0.bytes == 0) })
        #expect(run.encoderName == "libx264")
        let metrics = run.metrics
        #expect(metrics.capViolations == 0)
        #expect(metrics.worstCapRatio <= 1)
        // Noise fills whatever it is given: the output must be near the targets (mean 533 kb/s), not near zero.
        #expect(metrics.meanBitRate > 0.5 * 533_333 && metrics.meanBitRate < 1.5 * 533_333)
        #expect(metrics.responses.map(\.toBitRate) == [600_000, 200_000, 800_000])
        #expect(metrics.responses.allSatisfy { $0.firstWindowRatio != nil })
    }

    /// The raw policy's session runs x264's own rate control: every frame's VBV maxrate is 1.5 × the target in
    /// force (changes passed straight through, no hold at the target as the session's controller does after a
    /// change), and nothing is dropped.
    @Test func vbvRunPassesTargetsStraightToX264() throws {
        let run = try Self.run(VBVOnlyPolicy())
        #expect(run.frames.map(\.index) == Array(0..<90))
        #expect(run.frames.allSatisfy { !$0.isDropped })
        #expect(run.frames.allSatisfy { $0.encoderMaxBitRate == $0.target * 3 / 2 })
    }

    @Test func adjusterRunGivesTheEncoderLessThanTheTarget() throws {
        let run = try Self.run(BitrateAdjusterPolicy())
        let first = try #require(run.frames.first)
        #expect(first.encoderBitRate == 600_000)  // starts at the target itself
        // After its first evaluation (1 s) the adjuster gives at most 0.95 × target, at least 0.5 × …
        // except right after a big change, when it resets to the new target.
        for frame in run.frames where frame.encoderBitRate != frame.target {
            #expect(Double(frame.encoderBitRate) <= 0.95 * Double(frame.target) + 1)
            #expect(Double(frame.encoderBitRate) >= 0.5 * Double(frame.target) - 1)
        }
    }

    @Test func sourceThatEndsEarlyIsATypedError() throws {
        var policy = HardCapPolicy()
        var source = ShortSource()
        let scenario = try Scenario.step([300_000], hold: 1)
        let error = #expect(throws: AdaptationError.self) {
            try AdaptationHarness.run(scenario: scenario, policy: &policy, source: &source)
        }
        #expect(error?.code == .sourceFailed)
    }

    @Test func reportFilesDescribeTheRun() throws {
        let run = try Self.run(HardCapPolicy())
        let csv = FrameRecord.csv(run.frames).split(separator: "\n")
        #expect(csv.count == 91)
        #expect(csv.first.map(String.init) == FrameRecord.csvHeader)
        let series = AdaptationReport.seriesCSV(run).split(separator: "\n")
        #expect(series.count == 91)
        #expect(series[1].hasPrefix("0.0,600.0,900.0,NaN,1,0"))
        #expect(AdaptationReport.binnedCSV(run).split(separator: "\n").count == 31)
        let summary = try #require(AdaptationReport.summary(of: [run], content: "testsrc:noise"))
        let json = AdaptationReport.json(summary)
        let decoded = try JSONDecoder().decode(AdaptationReport.Summary.self, from: Data(json.utf8))
        #expect(decoded.runs.first?.metrics == run.metrics)
        #expect(decoded.scenario.changes.count == 3)
        #expect(AdaptationReport.tableRows([run]).first?.hasPrefix("| step | hardcap |") == true)
        let script = AdaptationPlot.script(
            title: "t", panels: [.init(title: "a \"b\"", seriesFile: "s.csv", binnedFile: "b.csv", targetsFile: "t.csv")],
            duration: 3,
            yMaxKbps: 1000, svg: "x.svg", png: "x.png")
        #expect(script.contains("set output \"x.svg\"") && script.contains("set output \"x.png\""))
        #expect(script.contains("set title \"a \\\"b\\\"\""))
        #expect(AdaptationReport.targetsCSV(run.scenario) == """
            time_s,target_kbps,cap_kbps
            0.0,600.0,900.0
            1.0,200.0,300.0
            2.0,800.0,1200.0
            3.0,800.0,1200.0

            """)
    }
}

/// A 320×240 source that runs dry after 10 frames.
struct ShortSource: FrameSource {
    let format = PixelFormat.nv12
    let width = 320
    let height = 240
    let frameRate = Rational(30, 1)
    var produced = 0

    mutating func nextFrame(into buffer: inout PixelBuffer) throws(MediaIOError) -> MediaTime? {
        guard produced < 10 else { return nil }
        if buffer.width != width || buffer.height != height { buffer = makeBuffer() }
        produced += 1
        return MediaTime(value: Int64(produced - 1), timescale: 30)
    }
}

/// The README's example of a researcher's own policy: it plugs in without touching the harness.
struct TightCap: BitratePolicy {
    let name = "mycap"
    let summary = "average = 0.9 × target, cap 1.2 × target per 0.5 s"
    var observed = 0

    mutating func properties(forTarget target: Int, at time: Double) -> CompressionSession.LiveProperties {
        var live = CompressionSession.LiveProperties.realTimeCommunication(averageBitRate: target * 9 / 10)
        live.dataRateLimits = [DataRateLimit(bytes: Int(Double(target) * 1.2 * 0.5 / 8), seconds: 0.5)]
        return live
    }

    mutating func observe(_ frame: FrameRecord) { observed += 1 }
}

extension HarnessTests {
    @Test func ownPolicyPlugsIn() throws {
        rtenc_av_log_set_level(AV_LOG_ERROR)
        var policy = TightCap()
        let scenario = try Scenario.step([600_000, 200_000], hold: 1)
        var source = try TestPatternSource(width: 320, height: 240, content: .noise, clock: { 0 })
        let run = try AdaptationHarness.run(
            scenario: scenario, policy: &policy, source: &source, options: .init(preset: .ultrafast, threadCount: 1))
        #expect(policy.observed == 60)  // every frame reported back, delivered or dropped
        #expect(run.policyName == "mycap")
        #expect(run.frames.allSatisfy { $0.encoderBitRate == $0.target * 9 / 10 })
        // Its own 0.5 s cap of 1.2 × target holds, so the harness's 1.5 × per 1 s cap does too.
        #expect(run.metrics.capViolations == 0)
    }
}
