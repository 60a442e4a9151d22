import Foundation
import MediaCore
import Testing
import TestSupport
@testable import Composition
@testable import Timeline

/// The post-composition hook sees every composed frame once, in order, with its index and time, and what it
/// writes is what the source returns.
@Suite struct PostCompositionHookTests {
    /// Records the calls; inverts luma on odd frames.
    final class Recorder: PostCompositionHook {
        var calls: [(index: Int, time: MediaTime, luma: UInt8)] = []

        func process(_ frame: inout PixelBuffer, index: Int, time: MediaTime) throws(CompositionError) {
            calls.append((index, time, frame.planes[0].bytes[0]))
            guard index % 2 == 1 else { return }
            frame.planes[0].bytes.withUnsafeMutableBufferPointer { luma in
                for offset in luma.indices { luma[offset] = 255 - luma[offset] }
            }
        }
    }

    struct Failing: PostCompositionHook {
        var left = 3
        mutating func process(_ frame: inout PixelBuffer, index: Int, time: MediaTime) throws(CompositionError) {
            left -= 1
            if left == 0 { throw CompositionError(code: CompositionError.Code("hook"), reason: "effect failed at \(index)") }
        }
    }

    static let timeline = """
        {"version": 1, "canvas": {"width": 32, "height": 16, "frame_rate": 25}, "loop": true,
         "items": [{"type": "color", "color": "#ffffff", "duration": 0.2},
                   {"type": "color", "color": "#000000", "duration": 0.2}]}
        """

    @Test func calledOncePerFrameInOrderAndItsPixelsAreKept() throws {
        let recorder = Recorder()
        var source = try CompositionSource(plan: CompositionPlan(Timeline.parse(Self.timeline)), passes: 2, hook: recorder)
        var buffer = source.makeBuffer()
        var frames: [(MediaTime, UInt8)] = []
        while let time = try source.nextFrame(into: &buffer) { frames.append((time, buffer.planes[0].bytes[0])) }
        #expect(frames.count == 20)
        #expect(recorder.calls.map(\.index) == Array(0..<20))
        #expect(recorder.calls.map(\.time) == frames.map(\.0))
        #expect(recorder.calls.map(\.time) == (0..<20).map { MediaTime(value: Int64($0), timescale: 25) })
        // What the hook saw is the composition (white Y′ 235 for 5 frames, black 16 for 5, twice); what came out is
        // its inversion on odd frames.
        let composed: [UInt8] = (0..<20).map { ($0 / 5) % 2 == 0 ? 235 : 16 }
        #expect(recorder.calls.map(\.luma) == composed)
        #expect(frames.map(\.1) == composed.enumerated().map { $0.offset % 2 == 1 ? 255 - $0.element : $0.element })
    }

    @Test func aThrownErrorEndsTheComposition() throws {
        var source = try CompositionSource(plan: CompositionPlan(Timeline.parse(Self.timeline)), hook: Failing())
        var buffer = source.makeBuffer()
        _ = try source.nextFrame(into: &buffer)
        _ = try source.nextFrame(into: &buffer)
        #expect {
            _ = try source.nextFrame(into: &buffer)
        } throws: { error in
            (error as? CompositionError)?.reason == "effect failed at 2"
        }
    }
}

/// Overlay readers are opened and closed by their windows, and the engine never holds more than the plan counts.
@Suite struct OverlayReaderWindowTests {
    @Test func overlayReadersFollowTheirWindows() throws {
        let directory = try makeTemporaryDirectory(prefix: "overlay")
        defer { try? FileManager.default.removeItem(at: directory) }
        try LavfiMedia.testsrc2(directory.appendingPathComponent("s.y4m").path, size: "32x16", frames: 90,
                                arguments: ["-pix_fmt", "yuv420p"])
        // Three overlays one after another, 1 s each, over a 6 s timeline, the middle one masked.
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 32, "height": 16, "frame_rate": 10},
             "items": [{"type": "color", "color": "#202020", "duration": 6}],
             "overlays": [{"source": "s.y4m", "start": 0, "duration": 1},
                          {"source": "s.y4m", "start": 2.5, "duration": 1, "mask": {"source": "s.y4m"}},
                          {"source": "s.y4m", "start": 5, "duration": 1, "opacity": 0.5}]}
            """)
        let plan = try CompositionPlan(timeline)
        #expect(plan.maximumOverlayReaders == 2)
        var source = try CompositionSource(plan: plan, baseDirectory: directory.path)
        var buffer = source.makeBuffer()
        var openAt: [Int] = []
        while try source.nextFrame(into: &buffer) != nil { openAt.append(source.statistics.openOverlayReaders) }
        #expect(openAt.count == 60)
        // Open during [0, 1), [1.5, 3.5) (two readers) and [4, 6); closed between.
        let expected = (0..<60).map { frame -> Int in
            switch frame {
            case 0..<10: 1
            case 15..<35: 2
            case 40..<60: 1
            default: 0
            }
        }
        #expect(openAt == expected)
        #expect(source.statistics.overlayReadersOpened == 4)
        #expect(source.statistics.maximumOpenOverlayReaders == plan.maximumOverlayReaders)
    }

    /// Looping, the overlay at the start of the timeline is pre-rolled during the previous pass: its next pass's
    /// reader opens a second before the loop point, while the one of this pass is still showing.
    @Test func loopingOverlaysOpenBeforeTheLoopPoint() throws {
        let directory = try makeTemporaryDirectory(prefix: "overlay")
        defer { try? FileManager.default.removeItem(at: directory) }
        try LavfiMedia.testsrc2(directory.appendingPathComponent("s.y4m").path, size: "32x16", frames: 30,
                                arguments: ["-pix_fmt", "yuv420p"])
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 32, "height": 16, "frame_rate": 10}, "loop": true,
             "items": [{"type": "color", "color": "#202020", "duration": 3}],
             "overlays": [{"source": "s.y4m"}]}
            """)
        let plan = try CompositionPlan(timeline)
        #expect(plan.maximumOverlayReaders == 2)
        var source = try CompositionSource(plan: plan, baseDirectory: directory.path, passes: 2)
        var buffer = source.makeBuffer()
        var openAt: [Int] = []
        while try source.nextFrame(into: &buffer) != nil { openAt.append(source.statistics.openOverlayReaders) }
        #expect(openAt.count == 60)
        // Pass 0's reader all along; pass 1's from 2 s (1 s before the loop point) — but not a third pass's.
        #expect(openAt == Array(repeating: 1, count: 20) + Array(repeating: 2, count: 10) + Array(repeating: 1, count: 30))
        #expect(source.statistics.overlayReadersOpened == 2)
        #expect(source.statistics.maximumOpenOverlayReaders == plan.maximumOverlayReaders)
    }
}

/// A video overlay picks its frames by sample and hold like a clip: `in` seconds into the file (reached by a seek
/// to the keyframe before it), one source frame per output frame, the last one held after the file ends.
@Suite struct OverlayFramePickingTests {
    @Test func videoOverlayShowsTheExactSourceFrames() throws {
        let directory = try makeTemporaryDirectory(prefix: "overlay")
        defer { try? FileManager.default.removeItem(at: directory) }
        try CompositionMedia.barcodeClip(directory.appendingPathComponent("bars.mp4").path, rate: 30, frames: 90)
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 32, "frame_rate": 30},
             "items": [{"type": "color", "color": "#000000", "duration": 2}],
             "overlays": [{"source": "bars.mp4", "in": 2, "start": 0.5, "y": 16}]}
            """)
        let frames = try CompositionMedia.render(timeline, baseDirectory: directory.path)
        #expect(frames.count == 60)
        let shown = frames.map { CompositionMedia.barcode(luma: $0.planes[0].bytes[(16 * 64)...], stride: 64) }
        // Frames 0–14: no overlay (black canvas, bars read as 0); 15…44: source frames 60…89; then 89 held.
        #expect(Array(shown[..<15]) == Array(repeating: 0, count: 15))
        #expect(Array(shown[15..<45]) == Array(60..<90))
        #expect(Array(shown[45...]) == Array(repeating: 89, count: 15))
    }
}

/// A clip whose duration runs past the end of its file holds its last frame, without seeking back to it each frame.
@Suite struct HoldAtEndOfFileTests {
    @Test func clipLongerThanItsFileHoldsTheLastFrameCheaply() throws {
        let directory = try makeTemporaryDirectory(prefix: "composition")
        defer { try? FileManager.default.removeItem(at: directory) }
        try CompositionMedia.barcodeClip(directory.appendingPathComponent("bars.mp4").path, rate: 30, frames: 30)
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 16, "frame_rate": 30},
             "items": [{"type": "clip", "source": "bars.mp4", "duration": 3}]}
            """)
        var source = try CompositionSource(plan: CompositionPlan(timeline), baseDirectory: directory.path)
        var buffer = source.makeBuffer()
        var shown: [Int] = []
        while try source.nextFrame(into: &buffer) != nil { shown.append(buffer.barcode) }
        #expect(shown == Array(0..<30) + Array(repeating: 29, count: 60))
        #expect(source.statistics.framesDecoded <= 31, "\(source.statistics.framesDecoded) frames decoded")
    }
}
