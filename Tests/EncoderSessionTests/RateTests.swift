import Bitstream
import Testing

@testable import EncoderSession

/// Sliding-window sums over delivered frames, by presentation time: the window (end − length, end] for every frame
/// as `end` — every window of that length holds a subset of one of these.
func windowTotals(_ frames: [(time: Double, bytes: Int)], length: Double) -> [(end: Double, bytes: Int)] {
    var result: [(Double, Int)] = []
    var start = 0
    var sum = 0
    for (index, frame) in frames.enumerated() {
        sum += frame.bytes
        while frames[start].time <= frame.time - length + 1e-7 {
            sum -= frames[start].bytes
            start += 1
        }
        _ = index
        result.append((frame.time, sum))
    }
    return result
}

/// The 1 s windows of a bitrate step, from `from` to `to` b/s at `change` seconds: each window wholly after the change
/// as (start − change, bytes as a multiple of the new target); and every window against the cap in force (1.5 × the
/// new target after the change, 1.5 × the larger before, since a window reaching back may hold either).
func stepWindows(
    _ outputs: [EncoderOutput], change: Double, from: Int, to: Int
) -> (after: [(start: Double, ratio: Double)], overCap: [(end: Double, bytes: Int, limit: Double)]) {
    let frames = outputs.map { (time: $0.presentationTime.seconds, bytes: $0.stats.bytes) }
    let windows = windowTotals(frames, length: 1)
    let target = Double(to)
    let after = windows.filter { $0.end - 1 >= change - 1e-9 }
        .map { (start: $0.end - 1 - change, ratio: Double($0.bytes * 8) / target) }
    let overCap = windows.compactMap { window -> (Double, Int, Double)? in
        let limit = window.end - 1 >= change - 1e-9 ? 1.5 * target / 8 : 1.5 * Double(max(from, to)) / 8
        return Double(window.bytes) > limit ? (window.end, window.bytes, limit) : nil
    }
    return (after, overCap)
}

@Suite(.serialized) struct RateTests {
    static let width = 1280, height = 720

    /// Average bitrate over 10 s of 720p30 testsrc2 with the real-time configuration at 2 Mb/s.
    @Test func averageBitRateWithinFivePercent() throws {
        _ = TestMedia.quiet
        let target = 2_000_000
        let collector = OutputCollector()
        var configuration = Configuration.realTimeCommunication(
            width: Self.width, height: Self.height, averageBitRate: target, encoder: .software)
        configuration.preset = .ultrafast
        let session = try CompressionSession(configuration: configuration, outputHandler: collector.handler)
        let source = try FFmpegFrameSource(
            graph: "testsrc2=size=\(Self.width)x\(Self.height):rate=30", width: Self.width, height: Self.height,
            frames: 300)
        var index = 0
        while let frame = source.next() {
            try session.encode(frame, presentationTime: TestMedia.time(index), context: index)
            index += 1
        }
        #expect(index == 300)
        let outputs = collector.outputs
        #expect(outputs.count == 300)
        let bytes = outputs.reduce(0) { $0 + $1.stats.bytes }
        let measured = Double(bytes * 8) / 10.0
        print("first frames (bytes/QP): \(outputs.prefix(8).map { "\($0.stats.bytes)/\($0.stats.qp ?? -1)" })")
        print(
            "average bitrate: \(measured) b/s = \(measured / Double(target)) × target; drops: \(outputs.filter { $0.frame == nil }.count)"
        )
        #expect(abs(measured - Double(target)) <= 0.05 * Double(target))
        let worst =
            windowTotals(outputs.map { ($0.presentationTime.seconds, $0.stats.bytes) }, length: 1).map(\.bytes).max()
            ?? 0
        print("worst 1 s window: \(worst) bytes = \(Double(worst) / (1.5 * Double(target) / 8)) × cap")
        #expect(worst <= Int(1.5 * Double(target) / 8))
        // For the record (not asserted: timings belong to the benchmarks): the session's own per-frame time.
        let overhead = outputs.map(\.stats.overheadMicroseconds).sorted()
        let total = outputs.map(\.stats.encodeMicroseconds).sorted()
        print(
            "720p ultrafast, this build: overhead p50 \(overhead[150]) µs p99 \(overhead[296]) µs; whole encode p50 \(total[150]) µs"
        )
        #expect(outputs.allSatisfy { $0.stats.overheadMicroseconds <= $0.stats.encodeMicroseconds })
    }

    /// x264 keeps the ABR target it was opened with, so a rise beyond what its headroom covers (4× the opening
    /// target) reopens the encoder: the next frame is an IDR and says so; smaller changes stay live.
    @Test func largeStepUpReopensTheEncoderSmallOnesDoNot() throws {
        let outputs = try runSession(
            smallRealTime(averageBitRate: 100_000), count: 40,
            beforeFrame: { index, session in
                // WebRTC-style: the cap moves with the bitrate (a cap left at 1.5 × 100 kb/s would keep the effective
                // target at 127.5 kb/s whatever the average says).
                if index == 10 { try session.update { $0 = .realTimeCommunication(averageBitRate: 350_000) } }
                if index == 20 { try session.update { $0 = .realTimeCommunication(averageBitRate: 100_000) } }
                if index == 30 { try session.update { $0 = .realTimeCommunication(averageBitRate: 900_000) } }
            })
        let reopened = outputs.filter(\.stats.reopenedEncoder).compactMap { $0.context as? Int }
        let keyFrames = outputs.filter { $0.frame?.isKeyFrame == true }.compactMap { $0.context as? Int }
        #expect(reopened == [0, 30])
        #expect(keyFrames == [0, 30])
        #expect(outputs[30].stats.targetBitRate == 900_000)
    }

    /// A bitrate step at frame 150 of 720p30 testsrc2: how long until every 1 s window is within ±10% of the new
    /// target (the step response: the smallest s such that every window starting at ≥ change + s is within it);
    /// the data-rate limit (1.5 × target / 8 per 1 s, changed with the bitrate) holds throughout — the old limit for
    /// windows that start before the change, the new one for windows wholly after it.
    /// Goal from the issue: ≤ 1.0 s for 2 Mb/s → 500 kb/s. The step up is measured too (≤ 1.5 s asserted).
    @Test(arguments: [
        (Preset.ultrafast, 2_000_000, 500_000, 1.0), (.veryfast, 2_000_000, 500_000, 1.0),
        (.ultrafast, 500_000, 2_000_000, 1.5),
    ])
    func stepResponse(preset: Preset, from: Int, to: Int, goal: Double) throws {
        _ = TestMedia.quiet
        let collector = OutputCollector()
        var configuration = Configuration.realTimeCommunication(
            width: Self.width, height: Self.height, averageBitRate: from, encoder: .software)
        configuration.preset = preset
        let session = try CompressionSession(configuration: configuration, outputHandler: collector.handler)
        let total = 450
        let stepFrame = 150
        let source = try FFmpegFrameSource(
            graph: "testsrc2=size=\(Self.width)x\(Self.height):rate=30", width: Self.width, height: Self.height,
            frames: total)
        var index = 0
        while let frame = source.next() {
            if index == stepFrame {
                try session.update { $0 = .realTimeCommunication(averageBitRate: to) }
            }
            try session.encode(frame, presentationTime: TestMedia.time(index), context: index)
            index += 1
        }
        let outputs = collector.outputs
        #expect(outputs.count == total)
        #expect(outputs.allSatisfy { $0.frame != nil })
        // Windows wholly after the change (they start at end − 1), as multiples of the new target.
        let (after, overCap) = stepWindows(outputs, change: TestMedia.time(stepFrame).seconds, from: from, to: to)
        var settle = 0.0
        for window in after where abs(window.ratio - 1) > 0.10 { settle = window.start + 1.0 / 30 }
        let worst = after.filter { $0.start >= settle - 1e-9 }.map { abs($0.ratio - 1) }.max() ?? 0
        let first = after.prefix(45).map { String(format: "%.2f", $0.ratio) }.joined(separator: " ")
        print(
            "step \(from) → \(to) (\(preset)): step response \(settle) s; worst deviation after it \(worst); first 1.5 s of windows: \(first)"
        )
        #expect(settle <= goal)
        #expect(overCap.isEmpty, "windows over the cap (end, bytes, limit): \(overCap)")
    }
}
