/// The packet slots the send queue and the history share: blocks of equal-sized slots, allocated once (a block more
/// only when an unpaced queue grows) and freed together when the last of their users goes.
///
/// Shared so that a sent packet moves into the history by handing over its slot — the queue takes the slot the
/// history lets go of in exchange — instead of being copied (`PacketQueue.handOver`, `PacketHistory.adopt`). Which
/// block a slot came from stops mattering once they trade, hence one owner for all of them.
final class PacketSlots {
    let slotSize: Int
    private var blocks: [UnsafeMutableRawBufferPointer] = []

    init(slotSize: Int) { self.slotSize = slotSize }

    deinit { for block in blocks { block.deallocate() } }

    /// `count` new slots of `slotSize` bytes (one allocation).
    func allocate(_ count: Int) -> [UnsafeMutableRawBufferPointer] {
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: count * slotSize, alignment: 8)
        blocks.append(block)
        return (0 ..< count).map { UnsafeMutableRawBufferPointer(rebasing: block[$0 * slotSize ..< ($0 + 1) * slotSize]) }
    }
}
