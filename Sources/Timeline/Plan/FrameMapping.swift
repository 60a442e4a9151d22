/// The one time mapping, used live and offline alike: output frame k → the items it shows, the source time of each,
/// and the transition's progress. Output frame k is shown at k / frameRate; a source contributes its last frame at
/// or before the mapped time (sample and hold), so every speed, reverse and frame-rate combination picks frames by
/// the same rule (OpenShot #3594 and #669 came from preview and render mapping time differently).
extension CompositionPlan {
    /// Which source frame a layer shows: the last one whose presentation time is at or before `time` (`inclusive`),
    /// or strictly before it. Forward playback is inclusive; reverse playback mirrors the interval, so the frame
    /// shown at reversed time r is the one whose display interval [pts, next pts) contains r − ε.
    public struct SourceTime: Sendable, Hashable, CustomStringConvertible {
        /// Seconds after the source's first frame.
        public let time: Fraction
        public let inclusive: Bool

        package init(time: Fraction, inclusive: Bool) {
            self.time = time
            self.inclusive = inclusive
        }

        public var description: String { (inclusive ? "≤ " : "< ") + "\(time)" }
    }

    public struct Layer: Sendable, Hashable {
        public let item: Int
        /// Nil for items without a time axis (stills, colours).
        public let source: SourceTime?
    }

    public struct FrameInstruction: Sendable, Hashable {
        /// The output frame's index and time from the start (not from its pass).
        public let index: Int
        public let time: Fraction
        /// Which repetition of the timeline this frame belongs to (always 0 without `loop`).
        public let pass: Int
        /// Seconds from the start of the pass.
        public let passTime: Fraction
        /// The item shown, or the outgoing item of a transition.
        public let base: Layer
        /// During a transition: the incoming item, the transition and its eased progress in [0, 1).
        public let incoming: Layer?
        public let transition: Timeline.Transition?
        public let progress: Double
    }

    /// Output time of frame `index`.
    public func time(ofFrame index: Int) -> Fraction {
        Fraction(Int128(index)) / frameRate
    }

    /// What output frame `index` shows; nil past the end of a timeline that does not loop (or for a negative index).
    public func instruction(forFrame index: Int) -> FrameInstruction? {
        guard index >= 0 else { return nil }
        guard timeline.loop || index < frameCount else { return nil }
        let time = time(ofFrame: index)
        let pass = (time / duration).floor
        let passTime = time - Fraction(pass) * duration
        // The last span starting at or before passTime; its predecessor overlaps it during a transition.
        var low = 0, high = spans.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if spans[middle].start <= passTime { low = middle } else { high = middle - 1 }
        }
        let current = low
        if current > 0, passTime < spans[current - 1].end, let transition = timeline.items[current - 1].transition {
            let span = spans[current]
            let linear = ((passTime - span.start) / transition.duration).doubleValue
            return FrameInstruction(
                index: index, time: time, pass: Int(pass), passTime: passTime,
                base: layer(current - 1, at: passTime), incoming: layer(current, at: passTime),
                transition: transition, progress: transition.easing.apply(linear))
        }
        return FrameInstruction(index: index, time: time, pass: Int(pass), passTime: passTime,
                                base: layer(current, at: passTime), incoming: nil, transition: nil, progress: 0)
    }

    /// The source time of `item` at `passTime` (inside its span).
    package func layer(_ item: Int, at passTime: Fraction) -> Layer {
        let entry = timeline.items[item]
        guard case let .clip(_, start) = entry.content else { return Layer(item: item, source: nil) }
        let elapsed = (passTime - spans[item].start) * entry.speed
        let source = entry.reverse
            ? SourceTime(time: start + entry.duration - elapsed, inclusive: false)
            : SourceTime(time: start + elapsed, inclusive: true)
        return Layer(item: item, source: source)
    }
}
