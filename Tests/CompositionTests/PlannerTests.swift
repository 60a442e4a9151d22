import Testing
@testable import Composition
@testable import Timeline

/// The planner as case tables: where items and transitions lie, how many frames, which source time every output
/// frame maps to for speeds and frame-rate changes, and the reader windows.
@Suite struct PlannerTests {
    static func clip(_ duration: Fraction, in start: Fraction = .zero, speed: Fraction = .one, reverse: Bool = false,
                     transition: Fraction? = nil, kind: Timeline.Transition.Kind = .dissolve) -> Timeline.Item {
        Timeline.Item(content: .clip(source: "c.mp4", in: start), duration: duration, speed: speed, reverse: reverse,
                      transition: transition.map { Timeline.Transition(kind: kind, duration: $0) })
    }

    static func timeline(_ items: [Timeline.Item], fps: Fraction = Fraction(30), loop: Bool = false) -> Timeline {
        Timeline(canvas: .init(width: 64, height: 64, frameRate: fps), items: items, loop: loop)
    }

    @Test func spansTransitionsAndLength() throws {
        // 2 s + 3 s + 1 s with 0.5 s and 1 s transitions: 6 − 1.5 = 4.5 s, 135 frames at 30 fps.
        let plan = try CompositionPlan(Self.timeline([
            Self.clip(Fraction(2), transition: Fraction(1, 2)),
            Self.clip(Fraction(3), transition: Fraction(1), kind: .fadeblack),
            Self.clip(Fraction(1)),
        ]))
        #expect(plan.spans.map(\.start) == [Fraction(0), Fraction(3, 2), Fraction(7, 2)])
        #expect(plan.spans.map(\.end) == [Fraction(2), Fraction(9, 2), Fraction(9, 2)])
        #expect(plan.transitions.map(\.start) == [Fraction(3, 2), Fraction(7, 2)])
        #expect(plan.transitions.map(\.end) == [Fraction(2), Fraction(9, 2)])
        #expect(plan.duration == Fraction(9, 2))
        #expect(plan.frameCount == 135)
    }

    @Test func lengthCountsOutputDurationsAndRoundsFramesUp() throws {
        // 1 s at speed 3/2 lasts 2/3 s: 20 frames at 30 fps; 1/10 s at 30000/1001 is 2.997 → 3 frames.
        #expect(try CompositionPlan(Self.timeline([Self.clip(Fraction(1), speed: Fraction(3, 2))])).frameCount == 20)
        #expect(try CompositionPlan(Self.timeline([Self.clip(Fraction(1, 10))], fps: Fraction(30000, 1001))).frameCount == 3)
        #expect(try CompositionPlan(Self.timeline([Self.clip(Fraction(1), speed: Fraction(1, 2))])).duration == Fraction(2))
    }

    /// (speed, output fps, source frame rate, in (s), the source frames output frames 0… show)
    static let mappings: [(Fraction, Fraction, Int, Fraction, [Int])] = [
        (Fraction(1), Fraction(30), 30, .zero, [0, 1, 2, 3, 4, 5, 6]),
        (Fraction(2), Fraction(30), 30, .zero, [0, 2, 4, 6, 8, 10, 12]),
        (Fraction(1, 2), Fraction(30), 30, .zero, [0, 0, 1, 1, 2, 2, 3]),
        (Fraction(3, 2), Fraction(30), 30, .zero, [0, 1, 3, 4, 6, 7, 9]),
        (Fraction(1), Fraction(30), 30, Fraction(1, 2), [15, 16, 17, 18, 19, 20, 21]),
        // 30 fps source on a 25 fps canvas: output k at k/25 s shows floor(k·30/25).
        (Fraction(1), Fraction(25), 30, .zero, [0, 1, 2, 3, 4, 6, 7]),
        // 25 fps source on a 30 fps canvas: floor(k·25/30), a frame repeated every sixth.
        (Fraction(1), Fraction(30), 25, .zero, [0, 0, 1, 2, 3, 4, 5]),
    ]

    @Test(arguments: mappings)
    func sampleAndHoldPicksTheLastFrameAtOrBefore(_ mapping: (Fraction, Fraction, Int, Fraction, [Int])) throws {
        let (speed, fps, sourceRate, start, expected) = mapping
        let plan = try CompositionPlan(Self.timeline([Self.clip(Fraction(2), in: start, speed: speed)], fps: fps))
        let frames = try (0..<expected.count).map { index in
            let source = try #require(plan.instruction(forFrame: index)?.base.source)
            #expect(source.inclusive)
            return Int((source.time * Fraction(Int128(sourceRate))).floor)
        }
        #expect(frames == expected)
    }

    @Test func reverseMirrorsTheUsedPart() throws {
        // 10 frames (1/3 s at 30 fps) from in = 1 s, reversed: 39, 38, … 30; the frame shown at reversed time r is
        // the last one strictly before r.
        let plan = try CompositionPlan(Self.timeline([Self.clip(Fraction(1, 3), in: Fraction(1), reverse: true)]))
        #expect(plan.frameCount == 10)
        let frames = try (0..<10).map { index in
            let source = try #require(plan.instruction(forFrame: index)?.base.source)
            #expect(!source.inclusive)
            return Int((source.time * Fraction(30)).ceiling) - 1
        }
        #expect(frames == Array((30...39).reversed()))
    }

    @Test func transitionFramesCarryBothItemsAndProgress() throws {
        // 1 s + 1 s, 0.5 s dissolve: frames 15…29 are in the transition, progress (k − 15) / 15.
        let plan = try CompositionPlan(Self.timeline([Self.clip(Fraction(1), transition: Fraction(1, 2)), Self.clip(Fraction(1))]))
        #expect(plan.frameCount == 45)
        let before = try #require(plan.instruction(forFrame: 14))
        #expect(before.base.item == 0 && before.incoming == nil)
        for index in 15..<30 {
            let frame = try #require(plan.instruction(forFrame: index))
            #expect(frame.base.item == 0 && frame.incoming?.item == 1)
            #expect(abs(frame.progress - Double(index - 15) / 15) < 1e-12)
            // The incoming clip starts at its own beginning when the transition starts.
            #expect(frame.incoming?.source?.time == Fraction(Int128(index - 15), 30))
            #expect(frame.base.source?.time == Fraction(Int128(index), 30))
        }
        let after = try #require(plan.instruction(forFrame: 30))
        #expect(after.base.item == 1 && after.incoming == nil && after.base.source?.time == Fraction(1, 2))
        #expect(plan.instruction(forFrame: 45) == nil)
        #expect(plan.instruction(forFrame: -1) == nil)
    }

    @Test func easeInOutBendsProgress() throws {
        var items = [Self.clip(Fraction(1), transition: Fraction(1)), Self.clip(Fraction(1))]
        items[0].transition?.easing = .easeInOut
        let plan = try CompositionPlan(Self.timeline(items))
        let quarter = try #require(plan.instruction(forFrame: 7)) // linear 7/30
        let linear = 7.0 / 30
        #expect(abs(quarter.progress - linear * linear * (3 - 2 * linear)) < 1e-12)
        #expect(abs(try #require(plan.instruction(forFrame: 15)).progress - 0.5) < 1e-12)
    }

    @Test func loopingKeepsTheGridAndWrapsItems() throws {
        // 0.5 s at 25 fps = 12.5 frames: the second pass starts between frames 12 and 13, so frame 13 (0.52 s)
        // shows 0.02 s into the clip, and the timestamps never repeat.
        let plan = try CompositionPlan(Self.timeline([Self.clip(Fraction(1, 2))], fps: Fraction(25), loop: true))
        #expect(plan.frameCount == 13)
        let frame12 = try #require(plan.instruction(forFrame: 12))
        #expect(frame12.pass == 0 && frame12.base.source?.time == Fraction(12, 25))
        let frame13 = try #require(plan.instruction(forFrame: 13))
        #expect(frame13.pass == 1 && frame13.base.source?.time == Fraction(1, 50))
        #expect(try #require(plan.instruction(forFrame: 1000)).pass == 80)
    }

    @Test func readerWindowsPrerollAndStayWithinThree() throws {
        // Ten 0.4 s clips: each reader opens 1 s ahead, but never before the reader three back has closed.
        let items = (0..<10).map { _ in Self.clip(Fraction(2, 5)) }
        for loop in [false, true] {
            let plan = try CompositionPlan(Self.timeline(items, loop: loop))
            #expect(plan.readerWindows.count == 10)
            for (index, window) in plan.readerWindows.enumerated() {
                #expect(window.close == plan.spans[index].end)
                #expect(window.open <= plan.spans[index].start)
                if index >= 3 { #expect(window.open == plan.spans[index - 3].end) }
            }
            #expect(plan.readerWindows[0].open == (loop ? Fraction(-4, 5) : .zero))
            // Count open readers over two passes on a fine grid.
            var time = Fraction.zero
            while time < plan.duration * Fraction(2) {
                var open = 0
                for pass in 0...(loop ? 2 : 0) {
                    let offset = Fraction(Int128(pass)) * plan.duration
                    open += plan.readerWindows.filter { offset + $0.open <= time && time < offset + $0.close }.count
                }
                #expect(open <= CompositionPlan.maximumSequenceReaders, "at \(time)")
                time = time + Fraction(1, 100)
            }
        }
    }

    @Test func longClipsPrerollAFullSecond() throws {
        let plan = try CompositionPlan(Self.timeline([Self.clip(Fraction(5)), Self.clip(Fraction(5)), Self.clip(Fraction(5))], loop: true))
        #expect(plan.readerWindows.map(\.open) == [Fraction(-1), Fraction(4), Fraction(9)])
        // Looping: the first clip of the next pass opens at 14 s of this one.
        #expect(plan.readerWindows[0].open + plan.duration == Fraction(14))
    }

    @Test func coloursHaveNoReaders() throws {
        let plan = try CompositionPlan(Self.timeline([
            Timeline.Item(content: .color(.black), duration: Fraction(1)), Self.clip(Fraction(1)),
        ]))
        #expect(plan.readerWindows == [CompositionPlan.ReaderWindow(item: 1, open: .zero, close: Fraction(2))])
        #expect(plan.instruction(forFrame: 0)?.base.source == nil)
    }
}
