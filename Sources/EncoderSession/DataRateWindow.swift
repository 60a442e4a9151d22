/// Bytes delivered per frame, by presentation time, for sliding-window sums.
///
/// A frame at time t belongs to the window (end − length, end]. Any window of `length` seconds holds a subset of
/// the frames of the window of the same length ending at its last frame, so checking the windows that end at each
/// frame checks them all.
struct DataRateWindow {
    private var times: [Double] = []
    private var sizes: [Int] = []
    /// Index of the oldest entry still kept; entries before it are dead and compacted away in bulk.
    private var head = 0
    /// Longest window anyone asks about; older entries are forgotten.
    var horizon: Double

    init(horizon: Double) {
        self.horizon = horizon
        times.reserveCapacity(512)
        sizes.reserveCapacity(512)
    }

    /// Time of the last recorded frame.
    var lastTime: Double? { times.count > head ? times.last : nil }

    mutating func record(bytes: Int, at time: Double) {
        times.append(time)
        sizes.append(bytes)
        while head < times.count, times[head] <= time - horizon + Self.boundarySlack { head += 1 }
        // Compact rarely, so the steady state is an append (amortised, no allocation once capacity is reached).
        if head > 256, head * 2 > times.count {
            times.removeFirst(head)
            sizes.removeFirst(head)
            head = 0
        }
    }

    /// Times are seconds computed from integer ticks, so a frame exactly one window before `end` can land a rounding
    /// error either side of the boundary; this much slack (far below one 90 kHz tick) puts it outside, as intended.
    static let boundarySlack = 1e-7

    /// Bytes of frames with end − length < time ≤ end and time ≥ `notBefore`.
    func bytes(inWindowOf length: Double, endingAt end: Double, notBefore: Double = -.infinity) -> Int {
        var total = 0
        var index = times.count - 1
        let start = end - length + Self.boundarySlack
        while index >= head, times[index] > start, times[index] >= notBefore - Self.boundarySlack {
            if times[index] <= end { total += sizes[index] }
            index -= 1
        }
        return total
    }

    mutating func removeAll() {
        times.removeAll(keepingCapacity: true)
        sizes.removeAll(keepingCapacity: true)
        head = 0
    }
}
