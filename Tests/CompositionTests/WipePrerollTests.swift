import Foundation
import Testing
@testable import Composition
@testable import Timeline

/// Wipe maps beyond the few made before the first frame are made on another thread within the pre-roll, so a
/// timeline with many wipe shapes, played in real time, has no late frame and no frame that makes a map itself
/// (without the pre-roll, six of these ten shapes are made by the frame that first shows them).
@Suite struct WipePrerollTests {
    static let shapes: [Timeline.Transition.Wipe.Shape] = [
        .linear(.left), .diagonal(.downRight), .iris(.open), .clock(.clockwise),
        .star(.open), .star(.close), .iris(.close), .clock(.counterclockwise), .diagonal(.upLeft), .linear(.up),
    ]

    /// Colour items of 1 s with a 1/2 s wipe of another shape between each two: 11 − 5 = 6 s, 180 frames.
    static func timeline(loop: Bool = false) -> Timeline {
        let colours = ["#ff0000", "#00ff00", "#0000ff", "#ffffff", "#000000", "#808080"]
        var items = (0...shapes.count).map { index in
            Timeline.Item(content: .color(RGBColor(hex: colours[index % colours.count])!), duration: Fraction(1))
        }
        for (index, shape) in shapes.enumerated() {
            items[index].transition = .init(kind: .wipe, duration: Fraction(1, 2), wipe: .init(shape: shape, softness: 0.1))
        }
        return Timeline(canvas: .init(width: 320, height: 180, frameRate: Fraction(30)), items: items, loop: loop)
    }

    @Test func manyWipeShapesInRealTimeHaveNoLateFrame() throws {
        var source = try CompositionSource(plan: CompositionPlan(Self.timeline()), live: true)
        var buffer = source.makeBuffer()
        let interval = 1.0 / 30
        let start = Date()
        var late: [Int] = [], index = 0
        while true {
            let due = start.addingTimeInterval(Double(index) * interval)
            let wait = due.timeIntervalSinceNow
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            guard try source.nextFrame(into: &buffer) != nil else { break }
            // Late as `rtenc stream` counts it (RealTimeFramePacer's bound): behind its time by more than
            // max(0.5 s, 2 frames), so the sender would skip it. On a machine this busy, a frame slower than one
            // interval is scheduling, not the engine; `wipeMapsMadeOnFrame` checks that no frame made a map.
            if Date() > due.addingTimeInterval(max(0.5, 2 * interval)) { late.append(index) }
            index += 1
        }
        #expect(index == 180)
        #expect(source.statistics.wipeMapsMade == Self.shapes.count)
        #expect(source.statistics.wipeMapsMadeOnFrame == 0)
        #expect(late.isEmpty, "late frames: \(late)")
    }

    /// Looping, the cache (4 maps) lets early shapes go; each comes back pre-rolled before the next pass needs it.
    @Test func aLoopPrerollsTheShapesTheCacheLetGo() throws {
        var source = try CompositionSource(plan: CompositionPlan(Self.timeline(loop: true)), passes: 3)
        var buffer = source.makeBuffer()
        var frames = 0
        while try source.nextFrame(into: &buffer) != nil { frames += 1 }
        #expect(frames == 540)
        #expect(source.statistics.wipeMapsMadeOnFrame == 0)
        #expect(source.statistics.wipeMapsMade > Self.shapes.count) // made again for passes 2 and 3, never on a frame
    }
}
