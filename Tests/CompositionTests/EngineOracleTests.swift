import Foundation
import MediaIO
import Testing
import TestSupport
@testable import Composition
@testable import Timeline

/// The engine against ffmpeg: the exact source frame of every output frame for cuts, speeds and frame-rate changes
/// (clips carry their frame number as a barcode), and the transitions against `xfade` by PSNR.
@Suite(.serialized) struct EngineOracleTests {
    /// (clip rate, canvas rate, in (s), source seconds, speed)
    static let timingCases: [(Int, Int, String, String, String)] = [
        (30, 30, "1/2", "1", "1"),
        (30, 30, "0", "2", "2"),
        (30, 30, "0", "1", "1/2"),
        (30, 30, "1/3", "3/2", "3/2"),
        (30, 25, "0", "2", "1"),
        (25, 30, "0", "2", "1"),
    ]

    @Test(arguments: timingCases)
    func everyFrameIsTheSourceFrameFfmpegPicks(_ testCase: (Int, Int, String, String, String)) throws {
        let (clipRate, canvasRate, start, seconds, speed) = testCase
        let directory = try makeTemporaryDirectory(prefix: "composition")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("bars\(clipRate).mp4").path
        try CompositionMedia.barcodeClip(clip, rate: clipRate, frames: 4 * clipRate)
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 16, "frame_rate": \(canvasRate)},
             "items": [{"type": "clip", "source": "bars\(clipRate).mp4", "in": "\(start)", "duration": "\(seconds)",
                        "speed": "\(speed)", "fit": "stretch"}]}
            """)
        let ours = try CompositionMedia.render(timeline, baseDirectory: directory.path).map(\.barcode)
        // ffmpeg: the same part, sped up, on the canvas's grid keeping the last frame at or before each tick.
        let item = timeline.items[0]
        let graph = "[0:v]trim=start=\(Self.decimal(item.content.start)):duration=\(Self.decimal(item.duration)),"
            + "setpts=(PTS-STARTPTS)*\(item.speed.denominator)/\(item.speed.numerator),fps=\(canvasRate):round=up"
        let theirs = try CompositionMedia.ffmpegFrames(inputs: [clip], graph: graph, width: 64, height: 16)
            .map { CompositionMedia.barcode(luma: $0[...], stride: 64) }
        #expect(try ours.count == CompositionPlan(timeline).frameCount)
        // ffmpeg's fps filter may add or drop the frame at the very end of the range.
        #expect(abs(ours.count - theirs.count) <= 1, "ours \(ours.count), ffmpeg \(theirs.count)")
        let common = min(ours.count, theirs.count)
        #expect(Array(ours[..<common]) == Array(theirs[..<common]))
    }

    static func decimal(_ value: Fraction) -> String { String(format: "%.9f", value.doubleValue) }

    @Test func cutsJoinTheSegmentsFrameExactly() throws {
        let directory = try makeTemporaryDirectory(prefix: "composition")
        defer { try? FileManager.default.removeItem(at: directory) }
        try CompositionMedia.barcodeClip(directory.appendingPathComponent("a.mp4").path, rate: 30, frames: 90)
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 16, "frame_rate": 30},
             "items": [{"type": "clip", "source": "a.mp4", "in": 2, "duration": 0.5},
                       {"type": "clip", "source": "a.mp4", "in": 0.1, "duration": 1, "speed": 2},
                       {"type": "clip", "source": "a.mp4", "duration": 0.2}]}
            """)
        var source = try CompositionSource(plan: CompositionPlan(timeline), baseDirectory: directory.path)
        var buffer = source.makeBuffer()
        var frames: [Int] = []
        while try source.nextFrame(into: &buffer) != nil { frames.append(buffer.barcode) }
        let expected = Array(60..<75) + stride(from: 3, to: 33, by: 2) + Array(0..<6)
        #expect(frames == expected)
        // The first clip starts 2 s in: reached by a seek to the keyframe at 60 (GOP 15), not by decoding 60 frames.
        // Each reader decodes its first frame (the origin), then from the keyframe on, one frame ahead: 17 + 33 + 7
        // (decoding up to 2 s would have cost 76 for the first clip alone).
        #expect(source.statistics.framesDecoded == 57)
    }

    /// xfade (FFmpeg 5.1) takes 4:4:4 only: nearest-neighbour chroma up and down around it makes the round trip
    /// lossless, so what remains is the blend itself.
    static let into444 = "scale=flags=neighbor,format=yuv444p"
    static let back420 = "scale=flags=neighbor,format=yuv420p"

    /// (transition, the ffmpeg graph doing the same over inputs A and B)
    static let transitionCases: [(String, String)] = [
        ("dissolve", "[0:v]\(into444)[a];[1:v]\(into444)[b];[a][b]xfade=transition=fade:duration=0.5:offset=0.5,\(back420)"),
        // xfade's black is Y′ 0; ours is the canvas's black, Y′ 16: shift luma by 16 around xfade (the blend is
        // affine, so this is the same blend through Y′ 16).
        ("fadeblack", "[0:v]\(into444),lutyuv=y=val-16[a];[1:v]\(into444),lutyuv=y=val-16[b];"
            + "[a][b]xfade=transition=fadeblack:duration=0.5:offset=0.5,lutyuv=y=val+16,\(back420)"),
    ]

    @Test(arguments: transitionCases)
    func transitionsMatchXfade(_ testCase: (String, String)) throws {
        let (kind, graph) = testCase
        let directory = try makeTemporaryDirectory(prefix: "composition")
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = directory.appendingPathComponent("a.y4m").path, b = directory.appendingPathComponent("b.y4m").path
        try LavfiMedia.testsrc2(a, size: "128x96", frames: 30, arguments: ["-pix_fmt", "yuv420p"])
        try LavfiMedia.testsrc2(b, size: "128x96", frames: 30, arguments: ["-vf", "hflip,hue=h=120", "-pix_fmt", "yuv420p"])
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 128, "height": 96, "frame_rate": 30},
             "items": [{"type": "clip", "source": "a.y4m", "duration": 1,
                        "transition": {"type": "\(kind)", "duration": 0.5}},
                       {"type": "clip", "source": "b.y4m", "duration": 1}]}
            """)
        let ours = try CompositionMedia.render(timeline, baseDirectory: directory.path).map(\.packed)
        let theirs = try CompositionMedia.ffmpegFrames(inputs: [a, b], graph: graph, width: 128, height: 96)
        #expect(ours.count == 45)
        #expect(theirs.count == 45)
        for index in 0..<min(ours.count, theirs.count) {
            let psnr = CompositionMedia.psnr(ours[index], theirs[index])
            #expect(psnr >= 40, "frame \(index): \(psnr) dB")
        }
    }
}

extension Timeline.Item.Content {
    var start: Fraction {
        if case let .clip(_, start) = self { return start }
        return .zero
    }
}

@Suite struct EngineResourceTests {
    @Test func fifteenClipLoopKeepsAtMostThreeReadersOpen() throws {
        let directory = try makeTemporaryDirectory(prefix: "composition")
        defer { try? FileManager.default.removeItem(at: directory) }
        try CompositionMedia.barcodeClip(directory.appendingPathComponent("a.mp4").path, rate: 30, frames: 60)
        let items = (0..<15).map { index in
            #"{"type": "clip", "source": "a.mp4", "in": "\#(index)/10", "duration": 0.2}"#
        }
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 16, "frame_rate": 30}, "loop": true,
             "items": [\(items.joined(separator: ","))]}
            """)
        var source = try CompositionSource(plan: CompositionPlan(timeline), baseDirectory: directory.path, passes: 2)
        var buffer = source.makeBuffer()
        var frames: [Int] = []
        var times: [MediaTime] = []
        while let time = try source.nextFrame(into: &buffer) {
            frames.append(buffer.barcode)
            times.append(time)
        }
        #expect(frames.count == 180)
        #expect(source.statistics.maximumOpenReaders <= CompositionPlan.maximumSequenceReaders)
        #expect(source.statistics.readersOpened == 30)
        // Three readers at most, each with two decoded frames and one placed: 9 buffers, reused by the other 27.
        #expect(source.statistics.buffersAllocated <= 9)
        // Item i shows source frames 3i … 3i + 5, and the second pass repeats the first with later timestamps.
        let pass = (0..<15).flatMap { index in (3 * index)..<(3 * index + 6) }
        #expect(frames == pass + pass)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }

    /// (GOP of the clip, in, source seconds, speed): reverse against ffmpeg's trim + reverse (+ setpts, fps).
    static let reverseCases: [(Int, String, String, String)] = [
        (15, "1/2", "3/2", "1"),
        (15, "1/2", "3/2", "2"),
        (1000, "0", "3", "1"), // one GOP: every chunk decodes from the first frame
        (15, "1/3", "2", "1/2"),
    ]

    @Test(arguments: reverseCases)
    func reverseIsFfmpegsReverseInBoundedMemory(_ testCase: (Int, String, String, String)) throws {
        let (gop, start, seconds, speed) = testCase
        let directory = try makeTemporaryDirectory(prefix: "composition")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("a.mp4").path
        try CompositionMedia.barcodeClip(clip, rate: 30, frames: 90, gop: gop)
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 16, "frame_rate": 30},
             "items": [{"type": "clip", "source": "a.mp4", "in": "\(start)", "duration": "\(seconds)", "speed": "\(speed)",
                        "reverse": true}]}
            """)
        var source = try CompositionSource(plan: CompositionPlan(timeline), baseDirectory: directory.path)
        var buffer = source.makeBuffer()
        var ours: [Int] = []
        while try source.nextFrame(into: &buffer) != nil { ours.append(buffer.barcode) }
        let item = timeline.items[0]
        let graph = "[0:v]trim=start=\(EngineOracleTests.decimal(item.content.start)):duration=\(EngineOracleTests.decimal(item.duration)),"
            + "setpts=PTS-STARTPTS,reverse,setpts=PTS*\(item.speed.denominator)/\(item.speed.numerator),fps=30:round=up"
        let theirs = try CompositionMedia.ffmpegFrames(inputs: [clip], graph: graph, width: 64, height: 16)
            .map { CompositionMedia.barcode(luma: $0[...], stride: 64) }
        #expect(abs(ours.count - theirs.count) <= 1, "ours \(ours.count), ffmpeg \(theirs.count)")
        let common = min(ours.count, theirs.count)
        #expect(Array(ours[..<common]) == Array(theirs[..<common]))
        // One chunk (1 s of a 30 fps clip) at most, whatever the clip's length.
        #expect(source.statistics.largestReverseChunk <= 30)
        #expect(source.statistics.largestReverseChunk > 0)
    }

    @Test func missingSourceNamesTheItem() throws {
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 16, "frame_rate": 30},
             "items": [{"type": "color", "color": "#000000", "duration": 0.1},
                       {"type": "clip", "source": "/nonexistent/x.mp4", "duration": 1}]}
            """)
        let error = try #require(try CompositionMedia.firstFrameError(timeline))
        #expect(error.code == .source && error.path == "$.items[1].source" && "\(error)".contains("/nonexistent/x.mp4"))
    }
}

@Suite struct EngineSeekTests {
    @Test func seekingGivesTheFramesAPlayFromTheStartGives() throws {
        let directory = try makeTemporaryDirectory(prefix: "composition")
        defer { try? FileManager.default.removeItem(at: directory) }
        try CompositionMedia.barcodeClip(directory.appendingPathComponent("a.mp4").path, rate: 30, frames: 90)
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 16, "frame_rate": 30},
             "items": [{"type": "clip", "source": "a.mp4", "duration": 1, "transition": {"type": "dissolve", "duration": 0.5}},
                       {"type": "clip", "source": "a.mp4", "in": 1, "duration": 1, "reverse": true},
                       {"type": "clip", "source": "a.mp4", "in": 2, "duration": 2, "speed": 2}]}
            """)
        let all = try CompositionMedia.render(timeline, baseDirectory: directory.path).map(\.packed)
        var source = try CompositionSource(plan: CompositionPlan(timeline), baseDirectory: directory.path)
        var buffer = source.makeBuffer()
        // Backwards and forwards, into a transition, a reverse clip and a fast one; 41/60 s lies inside frame 20.
        for (time, frame) in [(MediaTime(value: 41, timescale: 60), 20), (MediaTime(value: 3, timescale: 30), 3),
                              (MediaTime(value: 2, timescale: 1), 60), (MediaTime(value: 4, timescale: 3), 40),
                              (MediaTime(value: -1, timescale: 1), 0)] {
            try source.seek(to: time)
            for index in frame..<min(frame + 5, all.count) {
                let pts = try #require(try source.nextFrame(into: &buffer))
                #expect(pts == MediaTime(value: Int64(index), timescale: 30))
                #expect(buffer.packed == all[index], "after a seek to \(time), frame \(index)")
            }
        }
        #expect(source.statistics.maximumOpenReaders <= CompositionPlan.maximumSequenceReaders)
    }
}
