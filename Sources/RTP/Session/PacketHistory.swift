/// The last sent packets, by sequence number, for retransmission on NACK (RFC 4585 §6.2.1).
///
/// A ring of `capacity` slots of `maxPacketSize` bytes allocated once: storing a packet copies it into its slot and
/// never allocates. Slot = sequence number mod capacity, so a lookup costs one comparison; a newer packet simply
/// overwrites the slot of one `capacity` packets older. The sender does not even copy: its queue shares the slots
/// (`PacketSlots`), and a sent packet's slot is adopted whole in exchange for the one it replaces (`adopt`).
public final class PacketHistory {
    public let capacity: Int
    public let maxPacketSize: Int
    private let pool: PacketSlots
    private var slots: [UnsafeMutableRawBufferPointer]
    private var entries: [(sequenceNumber: UInt16, length: Int, sentAt: RTPInstant)?]

    public convenience init(capacity: Int = 1024, maxPacketSize: Int = 1500) {
        self.init(capacity: capacity, pool: PacketSlots(slotSize: maxPacketSize))
    }

    /// A history of `capacity` slots from `pool` (whose slot size is the largest packet it keeps).
    init(capacity: Int, pool: PacketSlots) {
        self.capacity = max(1, capacity)
        self.pool = pool
        maxPacketSize = pool.slotSize
        slots = pool.allocate(self.capacity)
        entries = Array(repeating: nil, count: self.capacity)
    }

    private func slot(_ sequenceNumber: UInt16) -> Int { Int(sequenceNumber) % capacity }

    /// Copies `packet` (a whole RTP packet) into the history. Packets larger than a slot are not kept.
    public func store(_ packet: UnsafeRawBufferPointer, sequenceNumber: UInt16, sentAt: RTPInstant) {
        let index = slot(sequenceNumber)
        guard packet.count <= maxPacketSize else {
            entries[index] = nil
            return
        }
        UnsafeMutableRawBufferPointer(rebasing: slots[index][0 ..< packet.count]).copyMemory(from: packet)
        entries[index] = (sequenceNumber, packet.count, sentAt)
    }

    /// Keeps the packet of `length` bytes that fills `slot` (one of this history's pool, as the sender's queue
    /// lends) by taking the slot itself, and returns the slot it replaces — that of the packet `capacity` sequence
    /// numbers older, now forgotten — for the caller to reuse. No copy.
    func adopt(_ slot: UnsafeMutableRawBufferPointer, length: Int, sequenceNumber: UInt16, sentAt: RTPInstant)
        -> UnsafeMutableRawBufferPointer
    {
        precondition(slot.count == maxPacketSize && length <= maxPacketSize, "adopt: a slot of another size")
        let index = self.slot(sequenceNumber)
        let released = slots[index]
        slots[index] = slot
        entries[index] = (sequenceNumber, length, sentAt)
        return released
    }

    /// Lends the stored packet to `body` if it is still held.
    public func withPacket<R>(_ sequenceNumber: UInt16, _ body: (UnsafeRawBufferPointer, RTPInstant) -> R) -> R? {
        let index = slot(sequenceNumber)
        guard let entry = entries[index], entry.sequenceNumber == sequenceNumber else { return nil }
        let bytes = UnsafeRawBufferPointer(rebasing: slots[index][0 ..< entry.length])
        return body(bytes, entry.sentAt)
    }
}
