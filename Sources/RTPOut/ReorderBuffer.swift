/// A small jitter buffer keyed by RTP sequence number: puts packets back in order within a window and says which
/// sequence numbers never came.
///
/// Sequence numbers are extended to 64 bits (RFC 3550 A.1 style) relative to the next expected one, so wraparound
/// at 65535 is invisible to the rest. A packet is released as soon as everything before it has been released; a
/// hole is declared lost when a packet `window` or more ahead arrives, when the packets waiting behind it have
/// waited `maxDelay` (`expire(now:)`, for live receivers at low packet rates), or on `flush`. Late and duplicate
/// packets are dropped and counted. Pure: arrival times are passed in.
public struct ReorderBuffer<Element> {
    public enum Release {
        case packet(Element, extendedSequenceNumber: Int64)
        /// Extended sequence numbers that were skipped for good.
        case lost(ClosedRange<Int64>)
    }

    public let window: Int
    public let maxDelay: Duration?
    public private(set) var nextExpected: Int64?
    public private(set) var latePackets = 0
    public private(set) var duplicatePackets = 0
    /// Extended sequence number, packet, arrival time.
    private var slots: [(Int64, Element, RTPInstant?)?]
    private var buffered = 0

    public init(window: Int = 64, maxDelay: Duration? = nil) {
        self.window = max(1, window)
        self.maxDelay = maxDelay
        slots = Array(repeating: nil, count: self.window)
    }

    /// Extends `sequenceNumber` to the value nearest the reference (within ±2^15).
    public static func extend(_ sequenceNumber: UInt16, near reference: Int64) -> Int64 {
        let delta = Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: reference))
        return reference + Int64(delta)
    }

    public mutating func push(_ element: Element, sequenceNumber: UInt16, arrival: RTPInstant? = nil, release: (Release) -> Void) {
        let expected = nextExpected ?? Int64(sequenceNumber)
        if nextExpected == nil { nextExpected = expected }
        let extended = Self.extend(sequenceNumber, near: expected)
        guard extended >= expected else {
            latePackets += 1
            return
        }
        if extended - expected >= Int64(window) { advance(to: extended - Int64(window) + 1, release: release) }
        let slot = Int(extended % Int64(window))
        if let existing = slots[slot], existing.0 == extended {
            duplicatePackets += 1
            return
        }
        slots[slot] = (extended, element, arrival)
        buffered += 1
        drainInOrder(release: release)
    }

    /// Extended sequence numbers not yet received between the next expected one and the highest one held: the
    /// holes a receiver may still ask to have retransmitted (NACK) before they are declared lost.
    public var missing: [Int64] {
        guard let start = nextExpected, buffered > 0 else { return [] }
        var highest = start
        for case let (extended, _, _)? in slots { highest = max(highest, extended) }
        return (start ..< highest).filter { extended in
            guard let (held, _, _) = slots[Int(extended % Int64(window))] else { return true }
            return held != extended
        }
    }

    /// Gives up on a hole once the packets behind it have waited `maxDelay`: declares it lost and releases them.
    public mutating func expire(now: RTPInstant, release: (Release) -> Void) {
        guard let maxDelay, buffered > 0 else { return }
        var lowest = Int64.max
        var lowestArrival: RTPInstant?
        for case let (extended, _, arrival)? in slots where extended < lowest {
            lowest = extended
            lowestArrival = arrival
        }
        // The first packet after the hole has waited long enough: the hole is not a reordering any more.
        guard let arrival = lowestArrival, now - arrival >= maxDelay else { return }
        advance(to: lowest, release: release)
    }

    /// Releases everything held, declaring the holes between lost.
    public mutating func flush(release: (Release) -> Void) {
        guard let start = nextExpected else { return }
        var end = start
        for case let (extended, _, _)? in slots { end = max(end, extended + 1) }
        advance(to: end, release: release)
    }

    private mutating func drainInOrder(release: (Release) -> Void) {
        while let next = nextExpected, let (extended, element, _) = slots[Int(next % Int64(window))], extended == next {
            slots[Int(next % Int64(window))] = nil
            buffered -= 1
            nextExpected = next + 1
            release(.packet(element, extendedSequenceNumber: extended))
        }
    }

    /// Moves `nextExpected` to `target`, releasing held packets and reporting holes as ranges. Stops walking slot
    /// by slot once the buffer is empty, so a huge jump costs one `.lost` range, not a loop over the gap.
    private mutating func advance(to target: Int64, release: (Release) -> Void) {
        guard var next = nextExpected else { return }
        var lostStart: Int64?
        while next < target {
            if buffered == 0 {
                release(.lost((lostStart ?? next) ... target - 1))
                lostStart = nil
                next = target
                break
            }
            let slot = Int(next % Int64(window))
            if let (extended, element, _) = slots[slot], extended == next {
                if let start = lostStart { release(.lost(start ... next - 1)); lostStart = nil }
                slots[slot] = nil
                buffered -= 1
                release(.packet(element, extendedSequenceNumber: extended))
            } else if lostStart == nil {
                lostStart = next
            }
            next += 1
        }
        if let start = lostStart { release(.lost(start ... next - 1)) }
        nextExpected = next
        drainInOrder(release: release)
    }
}

extension ReorderBuffer: Sendable where Element: Sendable {}
extension ReorderBuffer.Release: Sendable where Element: Sendable {}
