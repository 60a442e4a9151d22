/// The last sent packets, by sequence number, for retransmission on NACK (RFC 4585 §6.2.1).
///
/// A ring of `capacity` slots of `maxPacketSize` bytes allocated once: storing a packet copies it into its slot and
/// never allocates. Slot = sequence number mod capacity, so a lookup costs one comparison; a newer packet simply
/// overwrites the slot of one `capacity` packets older.
///
/// Why a copy and not the queue's slot itself (queue and history sharing one pool, the sent slot handed over in
/// exchange for the one the history forgets): that was built and measured (issue 13) and made the send path slower —
/// the session micro benchmark went from 30.2 to 37.2 µs per second of 720p30 — because every new packet is then
/// written into a slot last used `capacity` packets (~1.2 MB) ago, out of cache, where the copy here reads a hot
/// queue slot and writes the cold one in one streaming memcpy.
package final class PacketHistory {
    package let capacity: Int
    package let maxPacketSize: Int
    private let storage: UnsafeMutableRawBufferPointer
    private var entries: [(sequenceNumber: UInt16, length: Int, sentAt: RTPInstant)?]

    package init(capacity: Int = 1024, maxPacketSize: Int = 1500) {
        self.capacity = max(1, capacity)
        self.maxPacketSize = maxPacketSize
        storage = .allocate(byteCount: self.capacity * maxPacketSize, alignment: 8)
        entries = Array(repeating: nil, count: self.capacity)
    }

    deinit { storage.deallocate() }

    private func slot(_ sequenceNumber: UInt16) -> Int { Int(sequenceNumber) % capacity }

    /// Copies `packet` (a whole RTP packet) into the history. Packets larger than a slot are not kept.
    package func store(_ packet: UnsafeRawBufferPointer, sequenceNumber: UInt16, sentAt: RTPInstant) {
        let index = slot(sequenceNumber)
        guard packet.count <= maxPacketSize else {
            entries[index] = nil
            return
        }
        let target = UnsafeMutableRawBufferPointer(rebasing: storage[index * maxPacketSize ..< index * maxPacketSize + packet.count])
        target.copyMemory(from: packet)
        entries[index] = (sequenceNumber, packet.count, sentAt)
    }

    /// Lends the stored packet to `body` if it is still held.
    package func withPacket<R>(_ sequenceNumber: UInt16, _ body: (UnsafeRawBufferPointer, RTPInstant) -> R) -> R? {
        let index = slot(sequenceNumber)
        guard let entry = entries[index], entry.sequenceNumber == sequenceNumber else { return nil }
        let bytes = UnsafeRawBufferPointer(rebasing: storage[index * maxPacketSize ..< index * maxPacketSize + entry.length])
        return body(bytes, entry.sentAt)
    }
}
