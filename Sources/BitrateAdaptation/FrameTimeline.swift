/// Frames by time with running byte sums, so any window's bytes cost two binary searches.
///
/// Frame times come from `index / fps` in floating point (or a real clock): a frame meant to sit exactly on a
/// window edge can land a rounding error either side of it. `slack`, far below any frame interval, puts it on the
/// side the half-open interval says.
struct FrameTimeline {
    let times: [Double]
    /// prefix[i] = bytes of frames 0..<i.
    private let prefix: [Int]
    static let slack = 1e-7

    init(_ frames: [FrameRecord]) {
        times = frames.map(\.time)
        var running = 0
        var prefix = [0]
        prefix.reserveCapacity(frames.count + 1)
        for frame in frames {
            running += frame.bytes
            prefix.append(running)
        }
        self.prefix = prefix
    }

    /// First index whose time is ≥ `time`.
    func firstIndex(atOrAfter time: Double) -> Int {
        partition { $0 >= time - Self.slack }
    }

    /// First index whose time is > `time`.
    func firstIndex(after time: Double) -> Int {
        partition { $0 > time + Self.slack }
    }

    /// Bytes of frames with start < t ≤ end: the window that ends at a frame (what a receiver has got by then).
    func bytes(after start: Double, through end: Double) -> Int {
        let low = firstIndex(after: start), high = firstIndex(after: end)
        return high > low ? prefix[high] - prefix[low] : 0
    }

    /// Bytes of frames with start ≤ t < end: the window that starts at a moment (a change of target).
    func bytes(from start: Double, before end: Double) -> Int {
        let low = firstIndex(atOrAfter: start), high = firstIndex(atOrAfter: end)
        return high > low ? prefix[high] - prefix[low] : 0
    }

    /// Times are sorted, so the indices where `predicate` holds form a suffix; returns its start.
    private func partition(_ predicate: (Double) -> Bool) -> Int {
        var low = 0, high = times.count
        while low < high {
            let middle = (low + high) / 2
            if predicate(times[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
