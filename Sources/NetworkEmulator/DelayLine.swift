/// Packets in flight, each with the time it is due at the far end: a binary min-heap on (due time, arrival order),
/// so packets given the same due time leave in the order they came and a later-due one never blocks an earlier one.
struct DelayLine<Payload> {
    struct Entry {
        var due: Duration
        var order: UInt64
        var payload: Payload
    }

    private var heap: [Entry] = []

    var count: Int { heap.count }
    var isEmpty: Bool { heap.isEmpty }
    var nextDue: Duration? { heap.first?.due }

    mutating func insert(_ payload: Payload, due: Duration, order: UInt64) {
        heap.append(Entry(due: due, order: order, payload: payload))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes the earliest entry if it is due at `now`.
    mutating func popDue(at now: Duration) -> Entry? {
        guard let first = heap.first, first.due <= now else { return nil }
        let last = heap.removeLast()
        if heap.isEmpty { return first }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, Self.precedes(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, Self.precedes(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }

    private static func precedes(_ a: Entry, _ b: Entry) -> Bool { (a.due, a.order) < (b.due, b.order) }
}

extension DelayLine: Sendable where Payload: Sendable {}
extension DelayLine.Entry: Sendable where Payload: Sendable {}
