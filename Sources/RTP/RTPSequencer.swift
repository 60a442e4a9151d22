/// Owns the sequence numbers of one RTP stream (pion's Sequencer): fixed start for tests, random for real use
/// (RFC 3550 §5.1 wants a random initial value).
public struct RTPSequencer: Sendable {
    public private(set) var nextSequenceNumber: UInt16
    /// How many times the sequence number wrapped (the high half of RFC 3550's extended sequence number).
    public private(set) var rolloverCount: UInt32 = 0

    public init(initial: UInt16) { nextSequenceNumber = initial }
    public static func random() -> RTPSequencer { RTPSequencer(initial: .random(in: 0 ... .max)) }

    public mutating func next() -> UInt16 {
        let current = nextSequenceNumber
        nextSequenceNumber &+= 1
        if nextSequenceNumber == 0 { rolloverCount &+= 1 }
        return current
    }
}
