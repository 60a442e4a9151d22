import Foundation
import MediaIO
import TestSupport
import Testing
@testable import Composition
@testable import Timeline

/// Live playback of a reverse clip: its keyframes are read at open (no decode); a GOP too long for the live budget is
/// refused with a message that says how to fix it, and the same timeline renders offline with the exact source frames.
@Suite struct LiveReverseBudgetTests {
    /// (GOP s, frame rate, frames decoded per 1 s chunk at worst, decode factor, fits live, suggested -g)
    static let estimates: [(Fraction, Fraction, Int, Fraction, Bool, Int)] = [
        (Fraction(1, 2), Fraction(30), 45, Fraction(3, 2), true, 15),
        (Fraction(1), Fraction(30), 60, Fraction(2), true, 15),
        (Fraction(31, 30), Fraction(30), 61, Fraction(61, 30), false, 15),
        (Fraction(20), Fraction(30), 630, Fraction(21), false, 15),
        (Fraction(1, 25), Fraction(25), 26, Fraction(26, 25), true, 12), // all-intra
        (Fraction(2), Fraction(60000, 1001), 180, Fraction(3), false, 29),
    ]

    @Test(arguments: estimates)
    func estimateFromTheGOP(_ testCase: (Fraction, Fraction, Int, Fraction, Bool, Int)) {
        let (gop, rate, frames, factor, fits, suggested) = testCase
        let estimate = LiveReverseBudget.Estimate(gop: gop, frameRate: rate)
        #expect(estimate.framesPerChunk == frames)
        #expect(estimate.decodeFactor == factor)
        #expect(estimate.fitsLive == fits)
        #expect(estimate.suggestedGOPFrames == suggested)
    }

    @Test func keyframeIndexReadsTheGOPsWithoutDecoding() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let short = directory.appendingPathComponent("g15.mp4").path
        let long = directory.appendingPathComponent("g600.mp4").path
        try CompositionMedia.barcodeClip(short, rate: 30, frames: 90, gop: 15)
        try CompositionMedia.barcodeClip(long, rate: 30, frames: 240, gop: 600)
        let shortIndex = try KeyframeIndex(path: short)
        #expect(shortIndex.keyframes.map(\.seconds) == [0, 0.5, 1, 1.5, 2, 2.5])
        #expect(shortIndex.frames == 90)
        #expect(shortIndex.end == MediaTime(value: 3, timescale: 1))
        #expect(shortIndex.longestGOP(overlapping: .zero, MediaTime(value: 3, timescale: 1)) == MediaTime(value: 1, timescale: 2))
        // Scanning stops one keyframe past the part used.
        #expect(try KeyframeIndex(path: short, until: MediaTime(value: 1, timescale: 1)).keyframes.count == 4)
        let longIndex = try KeyframeIndex(path: long)
        #expect(longIndex.keyframes.map(\.seconds) == [0])
        #expect(longIndex.longestGOP(overlapping: MediaTime(value: 2, timescale: 1), MediaTime(value: 6, timescale: 1))
                == MediaTime(value: 8, timescale: 1))
        #expect(throws: MediaIOError.self) { try KeyframeIndex(path: directory.appendingPathComponent("none.mp4").path) }
    }

    static func reverseTimeline(_ source: String) throws -> Timeline {
        try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 16, "frame_rate": 30},
             "items": [{"type": "color", "color": "#000000", "duration": "1/3"},
                       {"type": "clip", "source": "\(source)", "in": 2, "duration": 4, "reverse": true}]}
            """)
    }

    /// Output frame k of the reverse clip (after the 10 colour frames) shows source frame 179 − k: 6 s back to 2 s.
    static func expectExactReverse(_ frames: [PixelBuffer]) {
        #expect(frames.count == 130)
        let shown = frames.dropFirst(10).map {
            CompositionMedia.barcode(luma: $0.planes[0].bytes[...], stride: $0.planes[0].bytesPerRow)
        }
        #expect(shown == Array((60...179).reversed()))
    }

    @Test func longGOPReverseIsRefusedLiveAndRenderedOffline() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try CompositionMedia.barcodeClip(directory.appendingPathComponent("g600.mp4").path, rate: 30, frames: 240, gop: 600)
        let plan = try CompositionPlan(Self.reverseTimeline("g600.mp4"))
        do {
            _ = try CompositionSource(plan: plan, baseDirectory: directory.path, live: true)
            Issue.record("a reverse clip in one 8 s GOP was accepted live")
        } catch {
            #expect(error.code == .liveBudget)
            #expect(error.path == "$.items[1]")
            for part in ["g600.mp4", "8 s apart", "GOP 240 frames", "270 frames", "-g 15", "rtenc render"] {
                #expect(error.reason.contains(part), "\(error.reason)")
            }
        }
        let offline = try CompositionMedia.render(plan.timeline, baseDirectory: directory.path)
        Self.expectExactReverse(offline)
    }

    @Test func shortGOPReverseIsAcceptedLive() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try CompositionMedia.barcodeClip(directory.appendingPathComponent("g15.mp4").path, rate: 30, frames: 240, gop: 15)
        var source = try CompositionSource(plan: CompositionPlan(Self.reverseTimeline("g15.mp4")),
                                           baseDirectory: directory.path, live: true)
        var frames: [PixelBuffer] = []
        var buffer = source.makeBuffer()
        // In real time, as live frames are asked for: the reverse clip's reader opens on its own thread during the
        // colour item (a live frame never waits for it; asked for faster than real time, its frames would be late).
        let start = Date()
        while true {
            let wait = start.addingTimeInterval(Double(frames.count) / 30).timeIntervalSinceNow
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            guard try source.nextFrame(into: &buffer) != nil else { break }
            frames.append(buffer)
        }
        Self.expectExactReverse(frames)
        #expect(source.statistics.lateFrames == 0)
        #expect(source.statistics.largestReverseChunk <= 30)
    }
}
