/// Arrival times of packets by 16-bit sequence number (transport-wide for transport-cc, the RTP one for RFC 8888),
/// unwrapped, kept in a ring of `window` slots: what the receiver reports on at its next feedback. A report covers
/// the numbers from the first one not yet reported to the highest seen; a packet that arrives late, behind what was
/// reported already, moves the start back so the next report covers it (as libwebrtc's `RemoteEstimatorProxy`).
struct ArrivalRecorder: Sendable {
    /// Sequence numbers a report may reach back over; older arrivals are forgotten.
    static let window = 1 << 12

    private var arrivals: [Int64]
    /// Which unwrapped number each slot holds (-1: none).
    private var numbers: [Int64]
    private(set) var highest: Int64?
    /// The first number the next report covers.
    private(set) var reportFrom: Int64?

    init() {
        arrivals = Array(repeating: 0, count: Self.window)
        numbers = Array(repeating: -1, count: Self.window)
    }

    /// True when something arrived that no report covered yet.
    var hasUnreported: Bool {
        guard let highest, let reportFrom else { return false }
        return reportFrom <= highest
    }

    mutating func record(_ wire: UInt16, at arrival: RTPInstant) {
        let number: Int64
        if let highest {
            number = highest + Int64(Int16(bitPattern: wire &- UInt16(truncatingIfNeeded: highest)))
        } else {
            number = Int64(wire) + (1 << 16)  // room below for reordering at the start, never negative
        }
        guard number >= 0 else { return }
        if let highest, number <= highest - Int64(Self.window) { return }  // too old to report
        let slot = Int(number & Int64(Self.window - 1))
        guard numbers[slot] != number else { return }  // a duplicate keeps the first arrival
        numbers[slot] = number
        arrivals[slot] = arrival.nanosecondsSinceEpoch
        if let start = reportFrom {
            if number < start { reportFrom = number }
        } else {
            reportFrom = number
        }
        highest = max(highest ?? number, number)
    }

    /// The arrival of `number`, if it is still held.
    func arrival(of number: Int64) -> RTPInstant? {
        let slot = Int(number & Int64(Self.window - 1))
        return numbers[slot] == number ? RTPInstant(nanosecondsSinceEpoch: arrivals[slot]) : nil
    }

    /// The numbers the next report covers (clamped to the window), or nil when nothing is new.
    var unreported: ClosedRange<Int64>? {
        guard let highest, let reportFrom, reportFrom <= highest else { return nil }
        return max(reportFrom, highest - Int64(Self.window) + 1) ... highest
    }

    /// Everything up to `number` was reported.
    mutating func reported(through number: Int64) {
        if let start = reportFrom, number >= start { reportFrom = number + 1 }
    }
}
