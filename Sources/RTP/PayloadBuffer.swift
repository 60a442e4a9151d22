/// The one buffer a payloader writes every payload into, after `headroom` free bytes where the caller writes the RTP
/// header: allocated once, at the payloader's largest payload, and lent to `emit` for one packet at a time — the
/// `RTPPayloader` contract that keeps packetization at zero allocations per packet. Non-copyable: its owner frees it.
struct PayloadBuffer: ~Copyable {
    let headroom: Int
    private let buffer: UnsafeMutableRawBufferPointer

    /// - Throws: `.invalidValue` when `maxPayloadSize` is outside `allowed` (the payload format's smallest useful
    ///   packet … a UDP datagram) or `headroom` is negative.
    init(headroom: Int, maxPayloadSize: Int, allowed: ClosedRange<Int>) throws(RTPError) {
        guard allowed.contains(maxPayloadSize), headroom >= 0 else {
            throw .invalidValue("max payload size \(maxPayloadSize) outside \(allowed)")
        }
        self.headroom = headroom
        buffer = .allocate(byteCount: headroom + maxPayloadSize, alignment: 8)
    }

    deinit { buffer.deallocate() }

    /// A writer at the start of the payload. What it writes must fit the maximum payload size (the payloaders size
    /// every packet before writing it).
    func writer() -> ByteWriter { ByteWriter(buffer, at: headroom) }

    /// Lends the headroom and what `writer` wrote to `emit`.
    func emit(_ writer: ByteWriter, isLast: Bool, _ emit: (UnsafeMutableRawBufferPointer, Bool) -> Void) {
        emit(UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< writer.index]), isLast)
    }

    /// A single NAL unit packet: the NAL unit as it is (RFC 6184 §5.6, RFC 7798 §4.4.1).
    func emitSingle(_ unit: ArraySlice<UInt8>, isLast: Bool, _ emit: (UnsafeMutableRawBufferPointer, Bool) -> Void) {
        var writer = writer()
        writer.write(bytes: unit)
        self.emit(writer, isLast: isLast, emit)
    }
}
