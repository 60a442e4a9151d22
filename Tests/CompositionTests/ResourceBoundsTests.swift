import Foundation
import TestSupport
import Testing
@testable import Composition
@testable import Timeline

/// The engine's resource bounds, counted from outside its own bookkeeping: the decoders a long looping timeline
/// holds open are the file descriptors the process has on the clip.
@Suite struct ResourceBoundsTests {
    /// 15 clips of 1/2 s (one file, each item its own reader and decoder), dissolves between every other pair,
    /// looping, three passes: never more than 3 sequence decoders open, counted at every frame.
    @Test func fifteenClipLoopNeverHasMoreThanThreeDecodersOpen() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("clip.mp4").path
        try CompositionMedia.barcodeClip(clip, rate: 30, frames: 60)
        var items = (0..<15).map { index in
            Timeline.Item(content: .clip(source: "clip.mp4", in: Fraction(Int128(index % 3), 2)), duration: Fraction(1, 2))
        }
        for index in stride(from: 0, to: 14, by: 2) {
            items[index].transition = .init(kind: .dissolve, duration: Fraction(1, 6))
        }
        let timeline = Timeline(canvas: .init(width: 64, height: 16, frameRate: Fraction(30)), items: items, loop: true)
        let plan = try CompositionPlan(timeline)
        #expect(plan.duration == Fraction(15, 2) - Fraction(7, 6))
        var source = try CompositionSource(plan: plan, baseDirectory: directory.path, passes: 3)
        var buffer = source.makeBuffer()
        var frames = 0, mostOpen = 0
        while try source.nextFrame(into: &buffer) != nil {
            frames += 1
            mostOpen = max(mostOpen, ProcessMemory.descriptors(openOn: clip))
        }
        #expect(frames == 3 * plan.frameCount)
        #expect((1...3).contains(mostOpen), "decoders open at once, counted as descriptors on the clip: \(mostOpen)")
        #expect(source.statistics.maximumOpenReaders <= CompositionPlan.maximumSequenceReaders)
        #expect(source.statistics.readersOpened == 45)
        #expect(ProcessMemory.descriptors(openOn: clip) == source.statistics.openReaders)
    }
}
