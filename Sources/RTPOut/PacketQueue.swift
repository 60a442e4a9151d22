/// Packets waiting for the pacer, in preallocated slots (a ring): queuing copies bytes and never allocates.
final class PacketQueue {
    struct Info {
        var length = 0
        var sequenceNumber: UInt16 = 0
        var payloadBytes = 0
        var rtpTimestamp: UInt32 = 0
        var captureTime = RTPInstant(nanosecondsSinceEpoch: 0)
        var isRetransmission = false
    }

    let capacity: Int
    let slotSize: Int
    private let storage: UnsafeMutableRawBufferPointer
    private var infos: [Info]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int, slotSize: Int) {
        self.capacity = max(1, capacity)
        self.slotSize = slotSize
        storage = .allocate(byteCount: self.capacity * slotSize, alignment: 8)
        infos = Array(repeating: Info(), count: self.capacity)
    }

    deinit { storage.deallocate() }

    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == capacity }

    private func slotBytes(_ slot: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: storage[slot * slotSize ..< (slot + 1) * slotSize])
    }

    /// Appends at the back; false when full or the packet is larger than a slot.
    func pushBack(_ bytes: UnsafeRawBufferPointer, info: Info) -> Bool {
        guard !isFull, bytes.count <= slotSize else { return false }
        let slot = (head + count) % capacity
        store(bytes, info: info, slot: slot)
        count += 1
        return true
    }

    /// Inserts at the front (retransmissions go before new media).
    func pushFront(_ bytes: UnsafeRawBufferPointer, info: Info) -> Bool {
        guard !isFull, bytes.count <= slotSize else { return false }
        head = (head + capacity - 1) % capacity
        store(bytes, info: info, slot: head)
        count += 1
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
        head = (head + n) % capacity
        count -= n
        // Empty: start again at the first slot. A paced queue empties between frames, and an unpaced one after every
        // access unit, so it then reuses a few slots that are in cache instead of walking the whole ring (4,096 ×
        // 1.2 kB): that walk touched a new page every few packets for the first minute of a stream and left ~5 MiB
        // resident per sender.
        if count == 0 { head = 0 }
    }
}

/// Bits per second over the last second, in ten 100 ms buckets (pure; time passed in).
struct RateMeter: Sendable {
    private var buckets = [Int](repeating: 0, count: 10)
    private var currentBucket: Int64 = 0

    mutating func add(_ bytes: Int, now: RTPInstant) {
        advance(to: now)
        buckets[Int(currentBucket % 10)] += bytes
    }

    mutating func bitsPerSecond(now: RTPInstant) -> Double {
        advance(to: now)
        return Double(buckets.reduce(0, +) * 8)
    }

    private mutating func advance(to now: RTPInstant) {
        let bucket = now.nanosecondsSinceEpoch / 100_000_000
        guard bucket > currentBucket else { return }
        let steps = min(10, bucket - currentBucket)
        for k in 1 ... steps { buckets[Int((currentBucket + k) % 10)] = 0 }
        currentBucket = bucket
    }
}
