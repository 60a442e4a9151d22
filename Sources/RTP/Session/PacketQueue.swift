/// Packets waiting for the pacer, in preallocated slots (a ring): queuing never allocates. New packets are written
/// in place — the packetizer is lent the slot behind the last packet (`reserveBack`) and the queue takes it once
/// written (`commitBack`) — so a payload is copied once, from the access unit into its slot.
///
/// The packets at the head that a driver is sending (`RTPSendSession.pollTransmit`) are read through views into
/// their slots until it reports back. `reserveBack` lends the slot behind the last packet, so it never touches them; `pushFront`
/// would (the session holds retransmissions back while a batch is out); and `grow` moves the packets to new storage
/// but keeps the old one alive (`retired`) until the session calls `releaseRetired()` once nothing points into it.
final class PacketQueue {
    struct Info {
        var length = 0
        var sequenceNumber: UInt16 = 0
        var payloadBytes = 0
        var rtpTimestamp: UInt32 = 0
        var captureTime = RTPInstant(nanosecondsSinceEpoch: 0)
        /// When the access unit was queued (`enqueue`'s `now`): a frame's wait for the pacer is measured from it.
        var queuedAt = RTPInstant(nanosecondsSinceEpoch: 0)
        var isRetransmission = false
        /// A padding-only packet (probing): not media, not in the history.
        var isPadding = false
        var probeClusterID: Int?
        /// A probe packet `startProbe` scheduled: it leaves when due, whatever the media pacer says.
        var bypassesPacer = false
    }

    private(set) var capacity: Int
    let slotSize: Int
    private var storage: UnsafeMutableRawBufferPointer
    /// Storage replaced by `grow` while views into it may still be out.
    private var retired: [UnsafeMutableRawBufferPointer] = []
    private var infos: [Info]
    private var head = 0
    private(set) var count = 0
    /// The bytes of the queued packets (RTP header and payload): what the pacer still has to send.
    private(set) var bytes = 0

    init(capacity: Int, slotSize: Int) {
        self.capacity = max(1, capacity)
        self.slotSize = slotSize
        storage = .allocate(byteCount: self.capacity * slotSize, alignment: 8)
        infos = Array(repeating: Info(), count: self.capacity)
    }

    deinit {
        storage.deallocate()
        releaseRetired()
    }

    /// Doubles the ring (at least): the queued packets move to the front of new storage, in order. Only the unpaced
    /// session grows its queue (an access unit larger than the queue must still go out whole); it allocates.
    func grow() {
        let newCapacity = capacity * 2
        let newStorage = UnsafeMutableRawBufferPointer.allocate(byteCount: newCapacity * slotSize, alignment: 8)
        var newInfos = Array(repeating: Info(), count: newCapacity)
        for i in 0 ..< count {
            let slot = (head + i) % capacity
            UnsafeMutableRawBufferPointer(rebasing: newStorage[i * slotSize ..< (i + 1) * slotSize])
                .copyMemory(from: UnsafeRawBufferPointer(slotBytes(slot)))
            newInfos[i] = infos[slot]
        }
        retired.append(storage)
        storage = newStorage
        infos = newInfos
        capacity = newCapacity
        head = 0
    }

    /// Frees the storage `grow` replaced: call only when no view into the queue is out.
    func releaseRetired() {
        for old in retired { old.deallocate() }
        retired.removeAll()
    }

    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == capacity }

    private func slotBytes(_ slot: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: storage[slot * slotSize ..< (slot + 1) * slotSize])
    }

    /// The slot behind the last packet, for a packet to be written into; nil when full. Nothing is queued until
    /// `commitBack`, so a reservation that is never committed is simply forgotten.
    func reserveBack() -> UnsafeMutableRawBufferPointer? {
        isFull ? nil : slotBytes((head + count) % capacity)
    }

    /// Queues the packet of `length` bytes written into the slot `reserveBack` lent.
    func commitBack(length: Int, info: Info) {
        precondition(!isFull && length <= slotSize, "commitBack without a reserved slot")
        var info = info
        info.length = length
        infos[(head + count) % capacity] = info
        count += 1
        bytes += length
    }

    /// Inserts at the front (retransmissions go before new media).
    func pushFront(_ bytes: UnsafeRawBufferPointer, info: Info) -> Bool {
        guard !isFull, bytes.count <= slotSize else { return false }
        head = (head + capacity - 1) % capacity
        store(bytes, info: info, slot: head)
        count += 1
        self.bytes += bytes.count
        return true
    }

    private func store(_ bytes: UnsafeRawBufferPointer, info: Info, slot: Int) {
        UnsafeMutableRawBufferPointer(rebasing: slotBytes(slot)[0 ..< bytes.count]).copyMemory(from: bytes)
        var info = info
        info.length = bytes.count
        infos[slot] = info
    }

    /// The i-th queued packet (0 = front), valid until the queue changes.
    func peek(_ i: Int) -> (bytes: UnsafeRawBufferPointer, info: Info) {
        let slot = (head + i) % capacity
        let info = infos[slot]
        return (UnsafeRawBufferPointer(rebasing: slotBytes(slot)[0 ..< info.length]), info)
    }

    func popFront(_ n: Int) {
        let n = min(n, count)
        for i in 0 ..< n { bytes -= infos[(head + i) % capacity].length }
        head = (head + n) % capacity
        count -= n
        // Empty: start again at the first slot. A paced queue empties between frames, and an unpaced one after every
        // access unit, so it then reuses a few slots that are in cache instead of walking the whole ring (4,096 ×
        // 1.2 kB): that walk touched a new page every few packets for the first minute of a stream and left ~5 MiB
        // resident per sender.
        if count == 0 { head = 0 }
    }
}
