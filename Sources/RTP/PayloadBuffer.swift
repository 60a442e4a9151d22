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
            throw .make(.invalidValue, "max payload size \(maxPayloadSize) outside \(allowed)")
        }
        self.headroom = headroom
        buffer = .allocate(byteCount: headroom + maxPayloadSize, alignment: 8)
    }

    deinit { buffer.deallocate() }

    /// This buffer as a destination: room after the headroom.
    var destination: OwnBufferDestination { OwnBufferDestination(buffer: buffer, headroom: headroom) }
}

/// The payloader's own buffer as a destination (the `payload(_:emit:)` form). It holds no `emit` closure — storing a
/// non-escaping closure would allocate on every call — so the payloaders call `emit` themselves after each commit
/// (the `committed` argument of their write functions).
package struct OwnBufferDestination: RTPPayloadDestination {
    let buffer: UnsafeMutableRawBufferPointer
    let headroom: Int

    package mutating func nextPayload() -> UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(rebasing: buffer[headroom...]) }

    package mutating func commitPayload(length: Int, isLast: Bool) {}

    /// The packet committed last: the headroom and the `length`-byte payload behind it, as `emit` gets it.
    func packet(payloadLength length: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< headroom + length])
    }
}

/// Called by the payloaders' write functions after each commit: `emit` in the `payload(_:emit:)` form, nothing in the
/// in-place form.
package typealias PayloadCommitted = (_ length: Int, _ isLast: Bool) -> Void

extension RTPPayloadDestination {
    /// Commits what `writer` wrote into the room lent last, then tells `committed`.
    mutating func commit(_ writer: ByteWriter, isLast: Bool, _ committed: PayloadCommitted) {
        commitPayload(length: writer.index, isLast: isLast)
        committed(writer.index, isLast)
    }

    /// A single NAL unit packet: the NAL unit as it is (RFC 6184 §5.6, RFC 7798 §4.4.1).
    mutating func writeSingle(_ unit: ArraySlice<UInt8>, isLast: Bool, _ committed: PayloadCommitted) {
        var writer = ByteWriter(nextPayload())
        writer.write(bytes: unit)
        commit(writer, isLast: isLast, committed)
    }
}
