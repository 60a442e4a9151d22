// Timeline documents: the strict JSON parser, the timeline decoder (canvas, items, transitions, overlays, inline
// corner tracks) and the planner, on arbitrary bytes; the same bytes as a corner-track file (CSV or JSON). Seeds: the
// examples/ timelines, the documents of Tests/CompositionTests (parser, overlay and planner cases) and the poster
// track (fuzz/scripts/make_corpus.py).
//
// Properties: every refusal is a TimelineError whose path is a JSON path ("$…"); a document that parses plans again to
// the same plan; the plan's items follow each other (item i + 1 starts where item i ends, less the transition), the
// duration is Σ output durations − Σ transitions and the frame count covers it; for sampled output frames (the first,
// the last, around every cut and transition, and into a second pass when it loops) the instruction's items are the
// ones whose spans hold the frame, a transition's progress is in [0, 1], and a forward source time lies inside the
// clip's used part; at most three sequence readers' windows overlap; interpolated corners stay within the keys' bounds.
import FuzzSupport
import Timeline

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimeline(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    fuzzCornerTrackFile(bytes)
    let timeline: Timeline
    do {
        timeline = try Timeline.parse(bytes)
    } catch {
        check(error.path?.hasPrefix("$") ?? false, "a refusal without a JSON path: \(error)")
        check(!error.reason.isEmpty, "a refusal without a reason at \(error.path ?? "")")
        return 0
    }
    let plan: CompositionPlan
    do {
        plan = try CompositionPlan(timeline)
    } catch {
        check(false, "a parsed timeline does not plan: \(error)")
        return 0
    }
    checkSpans(plan)
    checkReaderWindows(plan)
    for frame in sampledFrames(plan) { checkInstruction(plan, frame: frame) }
    for overlay in timeline.overlays {
        if case let .cornerPin(.keys(keys), _) = overlay.geometry { checkCorners(keys) }
    }
    return 0
}

/// Items follow each other, less their transitions; the duration and the frame count agree with them.
func checkSpans(_ plan: CompositionPlan) {
    let items = plan.timeline.items
    check(plan.spans.count == items.count, "\(plan.spans.count) spans for \(items.count) items")
    var expected = Fraction.zero
    for (index, span) in plan.spans.enumerated() {
        check(span.start == expected, "item \(index) starts at \(span.start), expected \(expected)")
        check(span.end == span.start + items[index].outputDuration, "item \(index) ends at \(span.end)")
        check(span.end > span.start, "item \(index) is empty")
        let overlap = index + 1 < items.count ? items[index].transition?.duration ?? .zero : .zero
        expected = span.end - overlap
    }
    let sum = items.reduce(Fraction.zero) { $0 + $1.outputDuration }
    let overlaps = plan.transitions.reduce(Fraction.zero) { $0 + ($1.end - $1.start) }
    check(plan.duration == sum - overlaps, "duration \(plan.duration) is not \(sum) − \(overlaps)")
    let frames = Fraction(Int128(plan.frameCount))
    check(frames / plan.frameRate >= plan.duration, "\(plan.frameCount) frames do not cover \(plan.duration) s")
    check((frames - .one) / plan.frameRate < plan.duration, "\(plan.frameCount) frames overrun \(plan.duration) s")
    for span in plan.transitions {
        check(span.start >= plan.spans[span.from + 1].start && span.end == plan.spans[span.from].end,
              "transition out of item \(span.from) lies outside its neighbours")
    }
}

/// At most `maximumSequenceReaders` windows are open at any time (over three passes when it loops).
func checkReaderWindows(_ plan: CompositionPlan) {
    let shifts: [Int128] = plan.timeline.loop ? [-1, 0, 1] : [0]
    var windows: [(open: Fraction, close: Fraction)] = []
    for window in plan.readerWindows {
        check(window.open < window.close, "reader of item \(window.item) opens at \(window.open), closes at \(window.close)")
        for shift in shifts {
            let offset = Fraction(shift) * plan.duration
            windows.append((window.open + offset, window.close + offset))
        }
    }
    guard windows.count <= 3_000 else { return } // 1000 items × 3 passes: enough; keeps the run fast
    for window in windows {
        let open = windows.filter { $0.open <= window.open && window.open < $0.close }.count
        check(open <= CompositionPlan.maximumSequenceReaders, "\(open) readers open at \(window.open)")
    }
}

/// The first and last frames, the frames at and around each cut and transition, and a second pass's first frames.
func sampledFrames(_ plan: CompositionPlan) -> [Int] {
    var frames: Set<Int> = [0, plan.frameCount - 1]
    for span in plan.spans.prefix(64) {
        let frame = Int(clamping: (span.start * plan.frameRate).floor)
        frames.formUnion([frame - 1, frame, frame + 1])
    }
    for span in plan.transitions.prefix(64) {
        let frame = Int(clamping: ((span.start + span.end) / Fraction(2) * plan.frameRate).floor)
        frames.formUnion([frame, Int(clamping: (span.end * plan.frameRate).floor)])
    }
    if plan.timeline.loop { frames.formUnion([plan.frameCount, plan.frameCount + 1, 2 * plan.frameCount - 1]) }
    return frames.filter { $0 >= 0 }.sorted()
}

func checkInstruction(_ plan: CompositionPlan, frame: Int) {
    guard let instruction = plan.instruction(forFrame: frame) else {
        check(!plan.timeline.loop && frame >= plan.frameCount, "no instruction for frame \(frame)")
        return
    }
    check(plan.timeline.loop || frame < plan.frameCount, "an instruction past the end: frame \(frame)")
    check(instruction.passTime >= .zero && instruction.passTime < plan.duration, "pass time \(instruction.passTime)")
    for layer in [instruction.base] + (instruction.incoming.map { [$0] } ?? []) {
        let span = plan.spans[layer.item]
        check(span.start <= instruction.passTime && instruction.passTime < span.end,
              "frame \(frame) shows item \(layer.item) outside its span")
        let item = plan.timeline.items[layer.item]
        if case let .clip(_, start) = item.content, let source = layer.source {
            check(source.time >= start && source.time <= start + item.duration,
                  "frame \(frame): source time \(source.time) outside item \(layer.item)'s [\(start), +\(item.duration)]")
            check(source.inclusive != item.reverse, "frame \(frame): a reverse clip's time is inclusive or the reverse")
        } else {
            check(layer.source == nil, "item \(layer.item) has no time axis but a source time")
        }
    }
    if let incoming = instruction.incoming {
        check(incoming.item == instruction.base.item + 1, "a transition between items that are not neighbours")
        check(instruction.transition != nil, "an incoming item without a transition")
        check(instruction.progress >= 0 && instruction.progress <= 1, "progress \(instruction.progress)")
    }
}

/// Interpolated corners lie within the bounding box of the keys (linear interpolation cannot leave it).
func checkCorners(_ keys: [CornerKey]) {
    guard let first = keys.first, let last = keys.last else { return }
    let xs = keys.flatMap { $0.quad.points.map(\.x) }, ys = keys.flatMap { $0.quad.points.map(\.y) }
    let (minX, maxX, minY, maxY) = (xs.min()!, xs.max()!, ys.min()!, ys.max()!)
    for frame in [first.frame - 1, first.frame, (first.frame + last.frame) / 2, last.frame, last.frame + 1] {
        for point in CornerKey.quad(atFrame: frame, in: keys).points {
            check(point.x >= minX - 1e-6 && point.x <= maxX + 1e-6 && point.y >= minY - 1e-6 && point.y <= maxY + 1e-6,
                  "frame \(frame): corner \(point) outside the keys' bounds")
        }
    }
}

/// The same bytes as a corner-track file: keys ascending, refusals with a reason.
func fuzzCornerTrackFile(_ bytes: [UInt8]) {
    do {
        let keys = try CornerTrack.parseFile(bytes, name: "track.csv", path: "$.overlays[0].corner_pin")
        for (a, b) in zip(keys, keys.dropFirst()) { check(a.frame < b.frame, "track frames do not ascend") }
        checkCorners(keys)
    } catch {
        check(!error.reason.isEmpty, "a track refusal without a reason")
    }
}
