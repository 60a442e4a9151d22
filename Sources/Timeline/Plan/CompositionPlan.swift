/// Where every item and transition of a `Timeline` lies on the output, and when each item's reader is open. Pure:
/// no file is touched, so `rtenc timeline check` and the engine see the same plan.
///
/// Items follow each other; a transition overlaps the end of its item with the start of the next one, so item i + 1
/// starts at end(i) − transition(i) and the whole lasts Σ output durations − Σ transitions (MLT's playlist mix,
/// Cabbage's `reloadStartTime`). Unlike Cabbage, a transition longer than either neighbour is refused, not silently
/// dropped, and so are transitions into and out of one item that would overlap.
public struct CompositionPlan: Sendable {
    /// A reader is opened (and its first frame decoded) this long before its item starts: seed 000's stall at cuts
    /// and loop points came from opening a clip when it was due.
    public static let preroll = Fraction(1)
    /// At most this many sequence readers are open at once (seed 000: previous, current, next).
    public static let maximumSequenceReaders = 3

    public struct ItemSpan: Sendable, Hashable {
        public let item: Int
        /// Output seconds from the start of a pass; `end` exclusive.
        public let start: Fraction
        public let end: Fraction
    }

    public struct TransitionSpan: Sendable, Hashable {
        /// The outgoing item; the incoming one is `from + 1`.
        public let from: Int
        public let start: Fraction
        public let end: Fraction
        public let transition: Timeline.Transition
    }

    /// When the reader of an item with a file is open, in output seconds from the start of the item's pass (`open`
    /// is negative when, looping, it opens during the previous pass); open on [open, close).
    public struct ReaderWindow: Sendable, Hashable {
        public let item: Int
        public let open: Fraction
        public let close: Fraction
    }

    public let timeline: Timeline
    public let spans: [ItemSpan]
    public let transitions: [TransitionSpan]
    /// One pass, in seconds.
    public let duration: Fraction
    /// Output frames of one pass: the grid points k / frameRate in [0, duration).
    public let frameCount: Int
    public let readerWindows: [ReaderWindow]
    /// The overlays' time ranges and reader windows, in the timeline's order (z order: later above).
    public let overlaySpans: [OverlaySpan]
    /// The most overlay readers (pictures and masks) open at one time.
    public let maximumOverlayReaders: Int

    public var frameRate: Fraction { timeline.canvas.frameRate }

    public init(_ timeline: Timeline) throws(TimelineError) {
        self.timeline = timeline
        let items = timeline.items
        guard !items.isEmpty else { throw .unplannable("$.items", "a timeline needs at least one item") }
        var spans: [ItemSpan] = [], transitions: [TransitionSpan] = []
        var start = Fraction.zero
        for (index, item) in items.enumerated() {
            let length = item.outputDuration
            let incoming = index > 0 ? items[index - 1].transition?.duration ?? .zero : .zero
            let outgoing = index + 1 < items.count ? item.transition?.duration ?? .zero : .zero
            if let transition = item.transition, index + 1 < items.count {
                let path = "$.items[\(index)].transition.duration"
                let next = items[index + 1].outputDuration
                guard transition.duration <= length else {
                    throw .unplannable(path, "a \(Self.seconds(transition.duration)) s transition is longer than item "
                                       + "\(index) (\(Self.seconds(length)) s on the output)")
                }
                guard transition.duration <= next else {
                    throw .unplannable(path, "a \(Self.seconds(transition.duration)) s transition is longer than item "
                                       + "\(index + 1) (\(Self.seconds(next)) s on the output)")
                }
            }
            guard incoming + outgoing <= length else {
                throw .unplannable("$.items[\(index)]", "the transitions into and out of item \(index) overlap: "
                                   + "\(Self.seconds(incoming)) s + \(Self.seconds(outgoing)) s is more than its "
                                   + "\(Self.seconds(length)) s on the output")
            }
            let end = start + length
            spans.append(ItemSpan(item: index, start: start, end: end))
            if let transition = item.transition, index + 1 < items.count {
                transitions.append(TransitionSpan(from: index, start: end - transition.duration, end: end,
                                                  transition: transition))
                start = end - transition.duration
            } else {
                start = end
            }
        }
        self.spans = spans
        self.transitions = transitions
        duration = spans[spans.count - 1].end
        let frames = (duration * timeline.canvas.frameRate).ceiling
        guard frames >= 1, frames <= Int128(Int32.max) else {
            throw .unplannable("$", "the timeline lasts \(Self.seconds(duration)) s, \(frames) frames: "
                               + "between 1 and \(Int32.max) frames are possible")
        }
        frameCount = Int(frames)
        readerWindows = Self.windows(timeline: timeline, spans: spans, duration: duration)
        overlaySpans = try Self.overlaySpans(timeline, duration: duration)
        maximumOverlayReaders = Self.maximumOverlayReaders(overlaySpans, duration: duration, loop: timeline.loop)
    }

    /// Opens each reader `preroll` ahead but never before the reader three places back has closed, so at most three
    /// are open at once (the item being shown, the one it dissolves into, the next being pre-rolled). Looping, the
    /// predecessors of the first readers are the last ones of the previous pass.
    private static func windows(timeline: Timeline, spans: [ItemSpan], duration: Fraction) -> [ReaderWindow] {
        let readers = spans.filter { timeline.items[$0.item].source != nil }
        let count = readers.count
        return readers.enumerated().map { index, span in
            let back = index - maximumSequenceReaders
            var open = span.start - preroll
            if back >= 0 {
                open = max(open, readers[back].end)
            } else if timeline.loop {
                let passes = (back - count + 1) / count // floor(back / count) for negative back
                let predecessor = readers[back - passes * count]
                open = max(open, predecessor.end + Fraction(Int128(passes)) * duration)
            }
            if !timeline.loop { open = max(open, .zero) }
            return ReaderWindow(item: span.item, open: open, close: span.end)
        }
    }

    /// Seconds for messages: exact when whole, else as a decimal.
    package static func seconds(_ value: Fraction) -> String {
        value.denominator == 1 ? "\(value.numerator)" : String(value.doubleValue)
    }
}
