import MediaCore

/// Splits one access unit of one codec into RTP payloads (pion's `Payloader`): the seam a new payload format (HEVC,
/// RFC 7798) plugs into. Sequence numbers, SSRC and timestamps are not its business (`RTPPacketizer`, `RTPSequencer`,
/// and the sender, which owns the timestamp).
///
/// The contract that keeps the send path at zero allocations per packet: each payload is written into a buffer the
/// payloader owns and reuses, after `headroom` free bytes where the caller writes the RTP header, and is valid only
/// during the `emit` call. A payloader that can also write each payload where the caller wants it
/// (`payload(_:into:)`, as `H264Payloader` and `H265Payloader` do) spares the sender that copy: the session hands it
/// the packet queue's slot. Class-bound because that buffer (and any parameter-set memory) is state.
public protocol RTPPayloader: AnyObject {
    /// The codec whose access units this payloader splits.
    var codec: VideoCodec { get }
    /// The RTP clock rate of the payload format (90 kHz for H.264, RFC 6184 §8.2.1, and HEVC, RFC 7798 §7.1).
    var clockRate: Int64 { get }
    /// Bytes reserved in front of every payload for the RTP header.
    var headroom: Int { get }
    /// The largest payload `payload` writes: a packet queue slot needs `headroom + maxPayloadSize`.
    var maxPayloadSize: Int { get }

    /// Splits the NAL units of one whole access unit (no start codes or lengths) into payloads. `emit(packet, isLast)`
    /// gets `headroom` free bytes followed by the payload; `isLast` marks the access unit's last packet (the RTP
    /// marker bit). The buffer is only valid during the call.
    /// - Throws: what the payload format cannot carry (a NAL unit type the stream must not hold, one too large for
    ///   the packetization mode).
    func payload(_ nalUnits: [ArraySlice<UInt8>], emit: (_ packet: UnsafeMutableRawBufferPointer, _ isLast: Bool) -> Void)
        throws(RTPError)

    /// The same split, each payload written straight into the room `destination` lends for it (no headroom: the
    /// destination keeps its own). The default goes through `payload(_:emit:)` and copies each payload over;
    /// payloaders that write in place implement it.
    /// - Throws: what `payload(_:emit:)` throws; the default also `.invalidValue` for a payload larger than the room.
    func payload(_ nalUnits: [ArraySlice<UInt8>], into destination: inout some RTPPayloadDestination) throws(RTPError)
}

extension RTPPayloader {
    public func payload(_ nalUnits: [ArraySlice<UInt8>], into destination: inout some RTPPayloadDestination) throws(RTPError) {
        var copying = CopyingDestination(destination: destination, headroom: headroom)
        defer { destination = copying.destination }
        try payload(nalUnits) { packet, isLast in copying.copy(packet, isLast: isLast) }
        if let oversized = copying.oversized {
            throw .make(.invalidValue, "payload of \(oversized) bytes is larger than the \(maxPayloadSize)-byte maximum payload size")
        }
    }
}

extension RTPPayloader {
    /// Splits a coded access unit: its NAL units where the producer found them (any framing), after checking that
    /// it is this payloader's codec and that its ranges lie inside its bytes (a bad range is an error, not a trap).
    /// - Throws: `.unsupported` for another codec, `.invalidValue` for an empty or out-of-range NAL unit range, and
    ///   what `payload(_:emit:)` throws.
    public func payload(
        _ accessUnit: CodedAccessUnit, emit: (_ packet: UnsafeMutableRawBufferPointer, _ isLast: Bool) -> Void
    ) throws(RTPError) {
        try payload(accessUnit.checkedNALUnits(for: codec), emit: emit)
    }
}

extension CodedAccessUnit {
    /// The NAL units as slices of `bytes`, each range checked: what the sender and the payloaders hand on.
    /// - Throws: `.unsupported` when `codec` is not `expected`; `.invalidValue` for an empty or out-of-range range.
    func checkedNALUnits(for expected: VideoCodec) throws(RTPError) -> [ArraySlice<UInt8>] {
        var slices: [ArraySlice<UInt8>] = []
        slices.reserveCapacity(nalUnits.count)
        try appendCheckedNALUnits(for: expected, to: &slices)
        return slices
    }

    /// The same, appended to a caller's array (one it reuses, so the send path allocates nothing per access unit).
    func appendCheckedNALUnits(for expected: VideoCodec, to slices: inout [ArraySlice<UInt8>]) throws(RTPError) {
        guard codec == expected else {
            throw RTPError(code: .unsupported, reason: "this payloader carries \(expected), not \(codec)")
        }
        for unit in nalUnits {
            guard !unit.range.isEmpty, unit.range.lowerBound >= 0, unit.range.upperBound <= bytes.count else {
                throw .make(.invalidValue, "NAL unit range \(unit.range) is empty or outside the access unit's \(bytes.count) bytes")
            }
            slices.append(bytes[unit.range])
        }
    }
}
