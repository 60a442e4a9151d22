/// A small jitter buffer keyed by RTP sequence number: puts packets back in order within a window and says which
/// sequence numbers never came.
///
/// Sequence numbers are extended to 64 bits (RFC 3550 A.1 style) relative to the next expected one, so wraparound
/// at 65535 is invisible to the rest. A packet is released as soon as everything before it has been released; a
/// hole is declared lost when a packet `window` or more ahead arrives, when the packets waiting behind it have
/// waited `maxDelay` (`expire(now:)`, for live receivers at low packet rates), or on `flush`. Late and duplicate
/// packets are dropped and counted. Pure: arrival times are passed in.
///
/// The start can be moved back before anything is released (`expectEarlier`): a receiver that infers from its first
/// packet that the ones just before it were lost asks for them, and holds what it has until they come, the start is
/// settled (`settleStart`) or a deadline passes. Numbers asked for that way may never have been sent (the stream may
/// begin right there), so those that never come are skipped without being reported lost.
package struct ReorderBuffer<Element> {
    package enum Release {
        case packet(Element, extendedSequenceNumber: Int64)
        /// Extended sequence numbers that were skipped for good.
        case lost(ClosedRange<Int64>)
    }

    package let window: Int
    package let maxDelay: Duration?
    package private(set) var nextExpected: Int64?
    package private(set) var latePackets = 0
    package private(set) var duplicatePackets = 0
    /// Whether anything (a packet or a loss) has been released: the start can no longer move back.
    package private(set) var hasReleased = false
    /// Extended sequence number, packet, arrival time.
    private var slots: [(Int64, Element, RTPInstant?)?]
    private var buffered = 0
    /// The highest extended sequence number ever stored: while it is not below `nextExpected`, it is held (packets
    /// leave the slots only by moving `nextExpected` past them), so it bounds the scans for the highest one held.
    private var highestStored: Int64?
    /// While the start is moved back (`expectEarlier`): [nextExpected, end) may never have been sent; given up on,
    /// silently, at `deadline`.
    private var earlier: (end: Int64, deadline: RTPInstant?)?

    package init(window: Int = 64, maxDelay: Duration? = nil) {
        self.window = max(1, window)
        self.maxDelay = maxDelay
        slots = Array(repeating: nil, count: self.window)
    }

    /// Extends `sequenceNumber` to the value nearest the reference (within ±2^15).
    package static func extend(_ sequenceNumber: UInt16, near reference: Int64) -> Int64 {
        let delta = Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: reference))
        return reference + Int64(delta)
    }

    /// Whether the start was moved back (`expectEarlier`) and the numbers before the first packet are still awaited.
    package var isAwaitingEarlier: Bool { earlier != nil }

    /// Moves the start back to the `count` sequence numbers just before `sequenceNumber` (the first packet, pushed
    /// or about to be), so that they are awaited (and listed in `missing`) instead of dropped as late. Refused (nil)
    /// once anything was released, and for a `count` outside 1 ..< `window`: only the start of a stream moves, and
    /// never further than one window. `deadline`: when to stop waiting for those that have not come (`expire`);
    /// nil waits until the window or `flush` moves on. Returns the extended sequence numbers now awaited.
    @discardableResult
    package mutating func expectEarlier(_ count: Int, before sequenceNumber: UInt16, until deadline: RTPInstant?) -> Range<Int64>? {
        guard !hasReleased, count >= 1, count < window else { return nil }
        let first = Self.extend(sequenceNumber, near: nextExpected ?? Int64(sequenceNumber))
        let start = first - Int64(count)
        if let next = nextExpected, start >= next { return nil }  // already awaited
        var highest = first
        for case let (extended, _, _)? in slots { highest = max(highest, extended) }
        guard highest - start < Int64(window) else { return nil }
        let end = max(earlier?.end ?? first, first)
        nextExpected = start
        earlier = (end, deadline)
        return start ..< end
    }

    /// The stream is known to begin at `sequenceNumber` (a packet carrying what a stream starts with, such as H.264
    /// parameter sets): while earlier numbers are awaited and it is among them, the numbers before it stop being
    /// awaited — packets held there are dropped as late — and those after it are ordinary holes from now on.
    /// Releases what is then in order (that packet and those behind it, if it is held already; else call it just
    /// before pushing that packet, as `H264Depacketizer` does).
    package mutating func settleStart(at sequenceNumber: UInt16, release: (Release) -> Void) {
        guard let earlier, var next = nextExpected else { return }
        let start = Self.extend(sequenceNumber, near: next)
        guard start >= next, start < earlier.end else { return }
        while next < start {
            if let (held, _, _) = slots[slotIndex(next)], held == next {
                slots[slotIndex(next)] = nil
                buffered -= 1
                latePackets += 1
            }
            next += 1
        }
        nextExpected = next
        self.earlier = nil
        drainInOrder(release: release)
    }

    package mutating func push(_ element: Element, sequenceNumber: UInt16, arrival: RTPInstant? = nil, release: (Release) -> Void) {
        let expected = nextExpected ?? Int64(sequenceNumber)
        if nextExpected == nil { nextExpected = expected }
        let extended = Self.extend(sequenceNumber, near: expected)
        guard extended >= expected else {
            latePackets += 1
            return
        }
        if extended - expected >= Int64(window) { advance(to: extended - Int64(window) + 1, release: release) }
        let slot = slotIndex(extended)
        if let existing = slots[slot], existing.0 == extended {
            duplicatePackets += 1
            return
        }
        slots[slot] = (extended, element, arrival)
        buffered += 1
        highestStored = max(highestStored ?? extended, extended)
        drainInOrder(release: release)
    }

    /// Extended sequence numbers not yet received between the next expected one and the highest one held: the
    /// holes a receiver may still ask to have retransmitted (NACK) before they are declared lost.
    package var missing: [Int64] {
        guard let start = nextExpected, buffered > 0, let highest = highestStored, highest >= start else { return [] }
        return (start ..< highest).filter { extended in
            guard let (held, _, _) = slots[slotIndex(extended)] else { return true }
            return held != extended
        }
    }

    /// Gives up on a hole once the packets behind it have waited `maxDelay`: declares it lost and releases them.
    /// Also stops waiting for earlier packets (`expectEarlier`) once their deadline has passed.
    package mutating func expire(now: RTPInstant, release: (Release) -> Void) {
        if let deadline = earlier?.deadline, now >= deadline { stopAwaitingEarlier(release: release) }
        guard let maxDelay, let (lowest, lowestArrival) = lowestHeld else { return }
        // The first packet after the hole has waited long enough: the hole is not a reordering any more.
        guard let arrival = lowestArrival, now - arrival >= maxDelay else { return }
        advance(to: lowest, release: release)
    }

    /// When `expire` next has work: the deadline for the earlier packets, or when the oldest packet held behind a
    /// hole will have waited `maxDelay`. Nil while nothing waits.
    package var nextDeadline: RTPInstant? {
        let earliest = earlier?.deadline
        guard let maxDelay, let arrival = lowestHeld?.arrival else { return earliest }
        return min(earliest ?? arrival + maxDelay, arrival + maxDelay)
    }

    /// The held packet with the lowest sequence number: the first one from `nextExpected` on (all held packets are
    /// at or after it, within one window), found in as many steps as the hole in front of it is long.
    private var lowestHeld: (extended: Int64, arrival: RTPInstant?)? {
        guard buffered > 0, let next = nextExpected else { return nil }
        for extended in next ..< next + Int64(window) {
            if let (held, _, arrival) = slots[slotIndex(extended)], held == extended { return (extended, arrival) }
        }
        return nil
    }

    /// Releases everything held, declaring the holes between lost.
    package mutating func flush(release: (Release) -> Void) {
        stopAwaitingEarlier(release: release)
        guard let start = nextExpected else { return }
        var end = start
        for case let (extended, _, _)? in slots { end = max(end, extended + 1) }
        advance(to: end, release: release)
    }

    /// Slot of an extended sequence number; they can be negative when the start moved back before 0.
    private func slotIndex(_ extended: Int64) -> Int {
        let remainder = Int(extended % Int64(window))
        return remainder < 0 ? remainder + window : remainder
    }

    /// Gives up on the earlier numbers still missing: those before the first one that came were perhaps never
    /// sent and are skipped silently; from that one on, the stream was certainly sent, and a number still missing
    /// there is an ordinary hole.
    private mutating func stopAwaitingEarlier(release: (Release) -> Void) {
        guard let earlier, var next = nextExpected else { return }
        self.earlier = nil
        while next < earlier.end {
            if let (held, _, _) = slots[slotIndex(next)], held == next { break }
            next += 1
        }
        nextExpected = next
        drainInOrder(release: release)
    }

    private mutating func drainInOrder(release: (Release) -> Void) {
        guard earlier == nil else { return }  // held until the earlier packets come or are given up on
        while let next = nextExpected, let (extended, element, _) = slots[slotIndex(next)], extended == next {
            slots[slotIndex(next)] = nil
            buffered -= 1
            nextExpected = next + 1
            hasReleased = true
            release(.packet(element, extendedSequenceNumber: extended))
        }
    }

    /// Moves `nextExpected` to `target`, releasing held packets and reporting holes as ranges. Stops walking slot
    /// by slot once the buffer is empty, so a huge jump costs one `.lost` range, not a loop over the gap.
    private mutating func advance(to target: Int64, release: (Release) -> Void) {
        stopAwaitingEarlier(release: release)
        guard var next = nextExpected else { return }
        if next < target { hasReleased = true }
        var lostStart: Int64?
        while next < target {
            if buffered == 0 {
                release(.lost((lostStart ?? next) ... target - 1))
                lostStart = nil
                next = target
                break
            }
            let slot = slotIndex(next)
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
