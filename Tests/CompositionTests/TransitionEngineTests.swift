import Foundation
import MediaIO
import Testing
import TestSupport
@testable import Composition
@testable import Timeline

/// The new transitions through the engine: easing bends their progress, image maps are read once and named by
/// JSON path when they fail, and a map is made once per timeline, not per frame.
@Suite struct TransitionEngineTests {
    /// Black into white over the whole second, 30 frames of a 64×16 canvas.
    static func blackToWhite(_ transition: String) throws -> Timeline {
        try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 16, "frame_rate": 30},
             "items": [{"type": "color", "color": "#000000", "duration": 1, "transition": \(transition)},
                       {"type": "color", "color": "#ffffff", "duration": 1}]}
            """)
    }

    static func whiteColumns(_ frame: PixelBuffer) -> Int {
        (0..<64).count { frame.planes[0].bytes[8 * 64 + $0] > 128 }
    }

    static func whiteRows(_ frame: PixelBuffer) -> Int {
        (0..<16).count { frame.planes[0].bytes[$0 * 64 + 8] > 128 }
    }

    @Test(arguments: Timeline.Transition.Easing.allCases)
    func easingBendsWipeAndPush(_ easing: Timeline.Transition.Easing) throws {
        let wipe = try CompositionMedia.render(
            Self.blackToWhite(#"{"type": "wipe", "direction": "left", "duration": 1, "easing": "\#(easing.rawValue)"}"#),
            baseDirectory: ".")
        let push = try CompositionMedia.render(
            Self.blackToWhite(#"{"type": "push", "direction": "up", "duration": 1, "easing": "\#(easing.rawValue)"}"#),
            baseDirectory: ".")
        #expect(wipe.count == 30 && push.count == 30)
        for frame in 0..<30 {
            let progress = easing.apply(Double(frame) / 30)
            // Linear wipe to the left: column x is white once (64 − x) / 64 < progress.
            #expect(Self.whiteColumns(wipe[frame]) == (0..<64).count { Double(64 - $0) / 64 < progress }, "frame \(frame)")
            // Push up: the outgoing picture keeps ⌊(1 − progress)·16⌋ rows at the top.
            #expect(Self.whiteRows(push[frame]) == 16 - Int(((1 - progress) * 16).rounded(.down)), "frame \(frame)")
        }
    }

    @Test func imageMapIsReadOnceAndDarkSwitchesFirst() throws {
        let directory = try makeTemporaryDirectory(prefix: "composition")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A horizontal gradient, dark on the left, at another size than the canvas (scaled once).
        _ = try Tool.output("ffmpeg", [
            "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "nullsrc=size=128x8,format=gray,geq=lum='X*2'",
            "-frames:v", "1", directory.appendingPathComponent("ramp.png").path,
        ], timeout: 30)
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 16, "frame_rate": 30}, "loop": true,
             "items": [{"type": "color", "color": "#000000", "duration": 1,
                        "transition": {"type": "wipe", "map": "ramp.png", "duration": 1}},
                       {"type": "color", "color": "#ffffff", "duration": 1}]}
            """)
        var source = try CompositionSource(plan: CompositionPlan(timeline), baseDirectory: directory.path, passes: 3)
        var buffer = source.makeBuffer()
        var columns: [Int] = []
        while try source.nextFrame(into: &buffer) != nil {
            let count = Self.whiteColumns(buffer)
            columns.append(count)
            // Left first: the white columns are always a prefix of the row.
            #expect((0..<count).allSatisfy { buffer.planes[0].bytes[8 * 64 + $0] > 128 })
        }
        #expect(columns.count == 90)
        #expect(columns.first == 0)
        #expect(zip(columns[..<30], columns[1..<30]).allSatisfy { $0 <= $1 })
        #expect(abs(columns[15] - 32) <= 2) // half way, half the picture
        #expect(source.statistics.wipeMapsMade == 1) // three passes, one read
    }

    @Test func missingMapNamesTheTransition() throws {
        let timeline = try Self.blackToWhite(#"{"type": "wipe", "map": "/nonexistent/map.png", "duration": 1}"#)
        let error = try #require(try CompositionMedia.firstFrameError(timeline))
        #expect(error.code == .source && error.path == "$.items[0].transition.map"
                && "\(error)".contains("/nonexistent/map.png"))
    }

    @Test func mapsAreMadeOncePerShape() throws {
        let item = ##"{"type": "color", "color": "#000000", "duration": 1, "transition": %@}"##
        let iris = #"{"type": "wipe", "shape": "iris", "duration": 0.5}"#
        let star = #"{"type": "wipe", "shape": "star", "softness": 0.5, "duration": 0.5}"#
        let items = [iris, star, iris].map { String(format: item, $0) } + [##"{"type": "color", "color": "#ffffff", "duration": 1}"##]
        let timeline = try Timeline.parse("""
            {"version": 1, "canvas": {"width": 64, "height": 16, "frame_rate": 30}, "items": [\(items.joined(separator: ","))]}
            """)
        var source = try CompositionSource(plan: CompositionPlan(timeline))
        // Made before the first frame, so the frame that first shows a wipe does not pay for its map.
        #expect(source.statistics.wipeMapsMade == 2)
        var buffer = source.makeBuffer()
        while try source.nextFrame(into: &buffer) != nil {}
        #expect(source.statistics.wipeMapsMade == 2)
    }
}
