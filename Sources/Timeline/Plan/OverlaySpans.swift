/// When each overlay shows and when its readers (the picture's, and the mask's when it has one) are open: opened
/// `preroll` ahead like the sequence's readers, so the overlay's first frame is decoded before it is due, and
/// closed when the overlay ends. An overlay past the end of the timeline is refused, not clipped.
extension CompositionPlan {
    public struct OverlaySpan: Sendable, Hashable {
        public let overlay: Int
        /// Output seconds from the start of a pass; `end` exclusive.
        public let start: Fraction
        public let end: Fraction
        /// The readers' window, [open, close) in output seconds from the start of the pass (negative `open`: a
        /// looping timeline opens them during the previous pass).
        public let open: Fraction
        public let close: Fraction
        /// Readers the overlay holds open: its picture, and its mask.
        public let readers: Int
    }

    static func overlaySpans(_ timeline: Timeline, duration: Fraction) throws(TimelineError) -> [OverlaySpan] {
        try timeline.overlays.enumerated().map { (index, overlay) throws(TimelineError) in
            let path = "$.overlays[\(index)]"
            guard overlay.start < duration else {
                throw .unplannable(path + ".start", "the overlay starts at \(seconds(overlay.start)) s, at or after "
                                   + "the end of the timeline (\(seconds(duration)) s)")
            }
            let end = overlay.duration.map { overlay.start + $0 } ?? duration
            guard end <= duration else {
                throw .unplannable(path + ".duration", "the overlay ends at \(seconds(end)) s, after the end of the "
                                   + "timeline (\(seconds(duration)) s)")
            }
            var open = overlay.start - preroll
            if !timeline.loop { open = max(open, .zero) }
            return OverlaySpan(overlay: index, start: overlay.start, end: end, open: open, close: end,
                               readers: overlay.mask == nil ? 1 : 2)
        }
    }

    /// The most overlay readers open at one time, over every pass (a looping timeline's windows that open during
    /// the previous pass count there).
    static func maximumOverlayReaders(_ spans: [OverlaySpan], duration: Fraction, loop: Bool) -> Int {
        var events: [(time: Fraction, change: Int)] = []
        for span in spans {
            for shift in loop ? [-1, 0, 1] : [0] {
                let offset = Fraction(Int128(shift)) * duration
                events.append((span.open + offset, span.readers))
                events.append((span.close + offset, -span.readers))
            }
        }
        // Closing before opening at the same time: [open, close) windows that touch do not overlap.
        events.sort { $0.time < $1.time || ($0.time == $1.time && $0.change < $1.change) }
        var open = 0, most = 0
        for event in events {
            open += event.change
            most = max(most, open)
        }
        return most
    }
}
