import Foundation
import Synchronization
import TestSupport
import Testing
@testable import Composition
@testable import Timeline

/// Readers are opened and primed on threads of their own, ahead of their items; live, a frame never waits for one.
/// The threads an open runs on are seen from outside the engine's bookkeeping, through the test hook that runs
/// before each open (`Engine.beforeOpen`).
@Suite struct ReaderOpenerTests {
    /// Six barcode clips of 1/2 s (clip i shows frames 15i…15i+14 of one 180-frame file) with a dissolve between
    /// the middle two: 2 5/6 s, 85 frames at 30 fps.
    static func timeline() -> Timeline {
        var items = (0..<6).map { index in
            Timeline.Item(content: .clip(source: "clip\(index % 2).mp4", in: Fraction(Int128(index), 2)),
                          duration: Fraction(1, 2))
        }
        items[2].transition = .init(kind: .dissolve, duration: Fraction(1, 6))
        return Timeline(canvas: .init(width: 64, height: 16, frameRate: Fraction(30)), items: items)
    }

    static func media() throws -> URL {
        let directory = try makeTemporaryDirectory()
        for name in ["clip0", "clip1"] {
            try CompositionMedia.barcodeClip(directory.appendingPathComponent("\(name).mp4").path, rate: 30, frames: 180)
        }
        return directory
    }

    /// The threads the hook ran on, and how often.
    final class OpenLog: Sendable {
        let threads = Mutex<[pthread_t]>([])
        let delays: @Sendable (Int) -> Double

        init(delays: @escaping @Sendable (Int) -> Double = { _ in 0 }) { self.delays = delays }

        func record() {
            let count = threads.withLock { threads in
                threads.append(pthread_self())
                return threads.count
            }
            let delay = delays(count - 1)
            if delay > 0 { usleep(UInt32(delay * 1_000_000)) }
        }

        func opened(on thread: pthread_t) -> Int {
            threads.withLock { $0.filter { pthread_equal($0, thread) != 0 }.count }
        }

        var count: Int { threads.withLock { $0.count } }
    }

    /// Plays `source` in real time (each frame at its due time from the first), returning each frame's barcode and
    /// how long each `nextFrame` took.
    static func playInRealTime(_ source: inout CompositionSource) throws -> (shown: [Int], longest: Double) {
        var buffer = source.makeBuffer()
        var shown: [Int] = [], longest = 0.0
        let start = Date()
        for index in 0... {
            let wait = start.addingTimeInterval(Double(index) / 30).timeIntervalSinceNow
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            let before = Date()
            guard try source.nextFrame(into: &buffer) != nil else { break }
            longest = max(longest, Date().timeIntervalSince(before))
            shown.append(CompositionMedia.barcode(luma: buffer.planes[0].bytes[...], stride: buffer.planes[0].bytesPerRow))
        }
        return (shown, longest)
    }

    @Test func liveReadersOpenOffTheFrameThreadAheadOfTheirItems() throws {
        let directory = try Self.media()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plan = try CompositionPlan(Self.timeline())
        let log = OpenLog()
        var live = try CompositionSource(plan: plan, baseDirectory: directory.path, live: true)
        live.engine.beforeOpen = log.record
        // The first frame's reader was opened by the initialiser (before the hook was set); the five others during
        // play, each on its own thread.
        let played = try Self.playInRealTime(&live)
        let statistics = live.statistics
        #expect(played.shown.count == plan.frameCount)
        #expect(statistics.readersOpened == 6)
        #expect(log.count == 5)
        #expect(log.opened(on: pthread_self()) == 0, "readers opened on the frame thread")
        #expect(statistics.readersOpenedOnFrame == 0)
        #expect(statistics.lateFrames == 0)
        #expect(statistics.maximumOpenReaders <= CompositionPlan.maximumSequenceReaders)
        // The same frames as offline, where every frame may wait for its readers.
        let offline = try CompositionMedia.render(Self.timeline(), baseDirectory: directory.path).map {
            CompositionMedia.barcode(luma: $0.planes[0].bytes[...], stride: $0.planes[0].bytesPerRow)
        }
        #expect(played.shown == offline)
        #expect(Array(offline.prefix(15)) == Array(0..<15))
    }

    /// Every open after the first takes 1.2 s more (a slow disk): the clips from 1/2 s on are not open when they
    /// are due, so those frames are late — the previous frame repeats in the reused buffer — and no frame waits.
    @Test func aSlowOpenerGivesLateFramesNotAStall() throws {
        let directory = try Self.media()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plan = try CompositionPlan(Self.timeline())
        let log = OpenLog(delays: { _ in 1.2 })
        var live = try CompositionSource(plan: plan, baseDirectory: directory.path, live: true)
        live.engine.beforeOpen = log.record
        let played = try Self.playInRealTime(&live)
        let statistics = live.statistics
        #expect(played.shown.count == plan.frameCount)
        #expect(played.longest < 0.6, "a frame waited \(played.longest) s for a reader")
        #expect(statistics.lateFrames > 0)
        #expect(statistics.lateFrames < plan.frameCount)
        #expect(log.opened(on: pthread_self()) == 0)
        // Clip 0 plays its frames 0…14; then the picture holds (late frames repeat the last one shown) until clip 1
        // is open, which shows its own frames; frames never go back except where a held frame repeats.
        #expect(Array(played.shown.prefix(15)) == Array(0..<15))
        let held = played.shown.dropFirst(15).prefix { $0 == 14 }.count
        #expect(held > 0, "\(played.shown)")
        #expect(statistics.maximumOpenReaders <= CompositionPlan.maximumSequenceReaders)
    }

    /// Offline the same slow opener costs time, never frames: each frame waits for its reader.
    @Test func offlineFramesWaitForASlowOpener() throws {
        let directory = try Self.media()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plan = try CompositionPlan(Self.timeline())
        let log = OpenLog(delays: { _ in 0.1 })
        var source = try CompositionSource(plan: plan, baseDirectory: directory.path)
        source.engine.beforeOpen = log.record
        var buffer = source.makeBuffer()
        var shown: [Int] = []
        while try source.nextFrame(into: &buffer) != nil {
            shown.append(CompositionMedia.barcode(luma: buffer.planes[0].bytes[...], stride: buffer.planes[0].bytesPerRow))
        }
        let expected = try CompositionMedia.render(Self.timeline(), baseDirectory: directory.path).map {
            CompositionMedia.barcode(luma: $0.planes[0].bytes[...], stride: $0.planes[0].bytesPerRow)
        }
        #expect(shown == expected)
        #expect(source.statistics.lateFrames == 0)
        #expect(log.count == 5)
    }

    /// An edit from another thread naming a file that does not open is refused by `submit`, on that thread, with
    /// the JSON path; the playing timeline goes on.
    @Test func anEditNamingAFileThatDoesNotOpenIsRefusedOnTheEditorsThread() async throws {
        let directory = try Self.media()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("not a video".utf8).write(to: directory.appendingPathComponent("text.mp4"))
        var source = try CompositionSource(plan: CompositionPlan(Self.timeline()), baseDirectory: directory.path,
                                           live: true)
        let editor = source.makeEditor()
        for name in ["missing.mp4", "text.mp4"] {
            var edit = Self.timeline()
            edit.items[3] = Timeline.Item(content: .clip(source: name, in: .zero), duration: Fraction(1, 2))
            let refused = await Task.detached { () -> CompositionError? in
                do throws(CompositionError) {
                    try editor.submit(edit)
                    return nil
                } catch {
                    return error
                }
            }.value
            #expect(refused?.code == .source, "\(name)")
            #expect(refused?.path == "$.items[3].source", "\(name)")
        }
        var buffer = source.makeBuffer()
        var frames = 0
        while try source.nextFrame(into: &buffer) != nil { frames += 1 }
        #expect(frames == source.plan.frameCount)
        #expect(source.plan.timeline == Self.timeline())
    }
}
