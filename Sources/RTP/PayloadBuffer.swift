/// The one buffer a payloader writes every payload into when the caller wants them lent through `emit` (the
/// `payload(_:emit:)` form), after `headroom` free bytes where the caller writes the RTP header: allocated once, at
/// the payloader's largest payload, and lent for one packet at a time — the `RTPPayloader` contract that keeps
/// packetization at zero allocations per packet. The in-place form (`payload(_:into:)`) does not touch it.
/// Non-copyable: its owner frees it.
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

    /// Runs `body` with this buffer as the destination, each payload lent to `emit` as it is committed.
    func lend(
        to emit: (_ packet: UnsafeMutableRawBufferPointer, _ isLast: Bool) -> Void,
        _ body: (inout EmittingDestination) throws(RTPError) -> Void
    ) throws(RTPError) {
        let buffer = self.buffer, headroom = self.headroom
        try withoutActuallyEscaping(emit) { (emit) throws(RTPError) in
            var destination = EmittingDestination(buffer: buffer, headroom: headroom, emit: emit)
            try body(&destination)
        }
    }
}

extension RTPPayloadDestination {
    /// A single NAL unit packet: the NAL unit as it is (RFC 6184 §5.6, RFC 7798 §4.4.1).
    mutating func writeSingle(_ unit: ArraySlice<UInt8>, isLast: Bool) {
        var writer = ByteWriter(nextPayload())
        writer.write(bytes: unit)
        commitPayload(length: writer.index, isLast: isLast)
    }
}
