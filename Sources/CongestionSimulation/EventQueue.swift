/// A discrete-event queue: a binary min-heap keyed by (time in integer nanoseconds, insertion counter). Two events
/// at the same nanosecond come out in the order they were scheduled, so a run never depends on the heap's layout —
/// the determinism every digest test relies on.
public struct EventQueue<Event> {
    private struct Entry {
        var time: Int64
        var order: UInt64
        var event: Event

        func precedes(_ other: Entry) -> Bool {
            time < other.time || (time == other.time && order < other.order)
        }
    }

    private var heap: [Entry] = []
    private var counter: UInt64 = 0

    public init() {}

    public var isEmpty: Bool { heap.isEmpty }
    public var count: Int { heap.count }
    /// The time of the earliest event (nil when empty).
    public var nextTime: Int64? { heap.first?.time }

    public mutating func schedule(_ event: Event, at time: Int64) {
        heap.append(Entry(time: time, order: counter, event: event))
        counter &+= 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest event.
    public mutating func popNext() -> (time: Int64, event: Event)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let entry = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { break }
            let right = left + 1
            let smaller = right < heap.count && heap[right].precedes(heap[left]) ? right : left
            guard heap[smaller].precedes(heap[parent]) else { break }
            heap.swapAt(smaller, parent)
            parent = smaller
        }
        return (entry.time, entry.event)
    }
}
