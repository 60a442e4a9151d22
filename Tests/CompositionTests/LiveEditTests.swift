import Foundation
import MediaIO
import TestSupport
import Testing
@testable import Composition
@testable import Timeline

/// Editing a playing `CompositionSource`: each edit takes effect at the next frame, the playhead keeps its place on
/// the timeline, timestamps keep counting, and only the readers the edit touched are opened again (counted).
@Suite struct LiveEditTests {
    /// Three barcode clips of one 240-frame file each, used from 0, 2 and 4 s: clip a shows frames 0…59, b 60…119,
    /// c 120…179, so a frame's barcode says which clip and which of its frames is showing.
    static func media() throws -> URL {
        let directory = try makeTemporaryDirectory()
        for name in ["a", "b", "c", "d"] {
            try CompositionMedia.barcodeClip(directory.appendingPathComponent("\(name).mp4").path, rate: 30, frames: 240)
        }
        _ = try Tool.output("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                       "color=white:size=16x8", "-frames:v", "1",
                                       directory.appendingPathComponent("sticker.png").path])
        return directory
    }

    static func clip(_ name: String, from start: Int) -> Timeline.Item {
        Timeline.Item(content: .clip(source: "\(name).mp4", in: Fraction(Int128(start))), duration: Fraction(2))
    }

    static let timeline = Timeline(
        canvas: .init(width: 64, height: 16, frameRate: Fraction(30)),
        items: [clip("a", from: 0), clip("b", from: 2), clip("c", from: 4)])

    /// Plays frames, recording each one's time and barcode.
    struct Player {
        var source: CompositionSource
        var buffer: PixelBuffer
        var times: [MediaTime] = []
        var shown: [Int] = []

        init(_ source: CompositionSource) {
            self.source = source
            buffer = source.makeBuffer()
        }

        mutating func play(_ count: Int) throws {
            for _ in 0..<count {
                guard let time = try source.nextFrame(into: &buffer) else { return }
                times.append(time)
                shown.append(CompositionMedia.barcode(luma: buffer.planes[0].bytes[...], stride: buffer.planes[0].bytesPerRow))
            }
        }
    }

    @Test func editsTakeEffectAtTheNextFrameAndReopenOnlyWhatTheyTouch() throws {
        let directory = try Self.media()
        defer { try? FileManager.default.removeItem(at: directory) }
        var player = Player(try CompositionSource(plan: CompositionPlan(Self.timeline), baseDirectory: directory.path))
        try player.play(45) // 1.5 s: a is showing, b is pre-rolled (its window opened at 1 s)
        #expect(player.source.statistics.readersOpened == 2)

        // A transition between b and c: no reader is touched.
        try player.source.edit { $0.items[1].transition = .init(kind: .dissolve, duration: Fraction(1, 2)) }
        try player.play(1)
        #expect(player.shown.last == 45)
        #expect(player.source.statistics.readersOpened == 2)

        // b replaced by d (the same part of another file): only d is opened, b is closed.
        try player.source.edit { $0.items[1] = Self.clip("d", from: 2) }
        try player.play(4)
        #expect(Array(player.shown.suffix(4)) == [46, 47, 48, 49])
        #expect(player.source.statistics.readersOpened == 3)
        #expect(player.source.statistics.openReaders == 2)

        // A second of colour inserted before the playhead: the playhead keeps its time (1 2/3 s), so a shows its
        // frame 20 now — a's reader is kept and seeks back; d's window has not opened in the new plan: closed.
        try player.source.edit {
            $0.items.insert(Timeline.Item(content: .color(.black), duration: Fraction(1)), at: 0)
        }
        try player.play(2)
        #expect(Array(player.shown.suffix(2)) == [20, 21])
        #expect(player.source.statistics.readersOpened == 3)
        #expect(player.source.statistics.openReaders == 1)

        // Removed again: a plays on from its frame 52; d is pre-rolled again (one more open).
        try player.source.edit { $0.items.remove(at: 0) }
        try player.play(16) // to 2 1/3 s: a until 2 s, then d from its frame 60 (d's "in" is 2 s)
        #expect(Array(player.shown.suffix(16)) == Array(52...67))
        #expect(player.source.statistics.readersOpened == 4)

        // An overlay added opens its reader; an item edit afterwards keeps it.
        try player.source.edit { $0.overlays = [Timeline.Overlay(source: "sticker.png", geometry: .rectangle(x: 0, y: 0, size: nil))] }
        try player.play(1)
        #expect(player.source.statistics.overlayReadersOpened == 1)
        try player.source.edit { $0.items[2].transition = nil; $0.items[1].transition = nil }
        try player.play(1)
        #expect(player.source.statistics.overlayReadersOpened == 1)
        #expect(player.source.statistics.openOverlayReaders == 1)

        // Timestamps counted on through every edit: frame k at k/30 s.
        #expect(player.times == (0..<player.times.count).map { MediaTime(value: Int64($0), timescale: 30) })
    }

    @Test func refusedEditsLeaveThePlayingTimelineAlone() throws {
        let directory = try Self.media()
        defer { try? FileManager.default.removeItem(at: directory) }
        var player = Player(try CompositionSource(plan: CompositionPlan(Self.timeline), baseDirectory: directory.path))
        try player.play(10)
        do {
            try player.source.edit { $0.items[0].transition = .init(kind: .dissolve, duration: Fraction(3)) }
            Issue.record("a 3 s transition out of a 2 s item was accepted")
        } catch {
            #expect(error.code == .unplannable)
            #expect(error.path == "$.items[0].transition.duration")
        }
        do {
            try player.source.edit { $0.canvas.width = 128 }
            Issue.record("a canvas change was accepted while playing")
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.reason.contains("64x16"))
        }
        try player.play(200)
        #expect(player.shown == Array(0..<180))
        #expect(player.source.plan.timeline == Self.timeline)
    }

    /// A looping timeline edited from another thread while this one plays: the edit lands at a frame boundary and
    /// the loop goes on with increasing timestamps.
    @Test func anEditorOnAnotherThreadEditsAtFrameBoundaries() async throws {
        let directory = try Self.media()
        defer { try? FileManager.default.removeItem(at: directory) }
        var looping = Self.timeline
        looping.loop = true
        var player = Player(try CompositionSource(plan: CompositionPlan(looping), baseDirectory: directory.path))
        let editor = player.source.makeEditor()
        try player.play(30)
        var edit = looping
        edit.items.removeLast() // a, b: 4 s a pass
        let shorter = edit
        try await Task.detached { try editor.submit(shorter) }.value
        #expect(throws: CompositionError.self) {
            var wide = shorter
            wide.canvas.height = 32
            try editor.submit(wide)
        }
        try player.play(240) // frames 30…269: a, b, then a second pass of a, b from 4 s on
        #expect(player.shown == Array(0..<120) + Array(0..<120) + Array(0..<30))
        #expect(player.source.plan.timeline.items.count == 2)
        #expect(player.times == (0..<270).map { MediaTime(value: Int64($0), timescale: 30) })
        #expect(player.source.statistics.maximumOpenReaders <= CompositionPlan.maximumSequenceReaders)
    }

    /// The README's example (Tests/CompositionTests/EditWhilePlayingExample.swift), run in real time: the edit from
    /// the other task lands while the frames play.
    @Test func theReadmeExampleEditsWhilePlaying() async throws {
        let directory = try Self.media()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: directory.appendingPathComponent("d.mp4"),
                                         to: directory.appendingPathComponent("other.mp4"))
        var times: [MediaTime] = []
        try await playWhileEditing(Self.timeline, media: directory.path, frames: 90) { _, time in
            times.append(time)
            Thread.sleep(forTimeInterval: 1.0 / 30)
        }
        #expect(times == (0..<90).map { MediaTime(value: Int64($0), timescale: 30) })
    }
}
