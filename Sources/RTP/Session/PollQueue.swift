/// First in, first out, for what a sans-IO session hands its driver: pushed while handling an input, taken with
/// `pop` until nil. The storage is kept between drains (no allocation once warm); a queue never polled grows, so
/// drivers poll after every input, as str0m's do.
package struct PollQueue<Element> {
    private var elements: [Element] = []
    private var head = 0

    package init() {}

    package var isEmpty: Bool { head == elements.count }
    package var count: Int { elements.count - head }

    package mutating func push(_ element: Element) { elements.append(element) }

    package mutating func pop() -> Element? {
        guard head < elements.count else {
            if head > 0 {
                elements.removeAll(keepingCapacity: true)
                head = 0
            }
            return nil
        }
        defer { head += 1 }
        return elements[head]
    }
}

extension PollQueue: Sendable where Element: Sendable {}
