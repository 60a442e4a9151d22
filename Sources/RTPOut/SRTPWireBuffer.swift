/// Where SRTP/SRTCP packets are built just before they leave.
///
/// The packet queue and the history keep plaintext: RTX (RFC 4588) re-encodes a NACKed packet from it, and a packet
/// the socket refused (EAGAIN) is simply protected again on the next turn — the same index, key and plaintext give
/// the same bytes. So protection copies each outgoing packet into one of a few fixed slots with room for libsrtp's
/// trailer and encrypts it there: one memcpy per packet next to AES-CM + HMAC-SHA1 over it, and no allocation.
final class SRTPWireBuffer {
    let slotSize: Int
    let slots: Int
    private let storage: UnsafeMutableRawBufferPointer

    /// `slots` slots for packets of up to `maxPacketSize` bytes plus `trailer`, each 8-byte aligned (libsrtp reads
    /// 32-bit words).
    init(slots: Int, maxPacketSize: Int, trailer: Int) {
        self.slots = max(1, slots)
        slotSize = (maxPacketSize + trailer + 7) / 8 * 8
        storage = .allocate(byteCount: self.slots * slotSize, alignment: 8)
    }

    deinit { storage.deallocate() }

    private func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: storage[index * slotSize ..< (index + 1) * slotSize])
    }

    /// The SRTP form of the RTP packet `packet`, in slot `index` (valid until that slot is used again).
    func protect(rtp packet: UnsafeRawBufferPointer, slot index: Int, with session: SRTPSession) throws(RTPError) -> UnsafeRawBufferPointer {
        let target = try copy(packet, into: index, trailer: SRTPSession.maxRTPTrailer)
        let length = try session.protect(rtp: target, length: packet.count)
        return UnsafeRawBufferPointer(rebasing: target[0 ..< length])
    }

    /// The SRTCP form of the compound RTCP packet `packet`, in slot `index`.
    func protect(rtcp packet: UnsafeRawBufferPointer, slot index: Int, with session: SRTPSession) throws(RTPError) -> UnsafeRawBufferPointer {
        let target = try copy(packet, into: index, trailer: SRTPSession.maxRTCPTrailer)
        let length = try session.protectRTCP(target, length: packet.count)
        return UnsafeRawBufferPointer(rebasing: target[0 ..< length])
    }

    private func copy(_ packet: UnsafeRawBufferPointer, into index: Int, trailer: Int) throws(RTPError) -> UnsafeMutableRawBufferPointer {
        guard (0 ..< slots).contains(index) else { throw .make(.invalidValue, "wire slot \(index) of \(slots)") }
        guard packet.count + trailer <= slotSize else { throw .outputTooSmall(need: packet.count + trailer, have: slotSize) }
        let target = slot(index)
        UnsafeMutableRawBufferPointer(rebasing: target[0 ..< packet.count]).copyMemory(from: packet)
        return target
    }
}
