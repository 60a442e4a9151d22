/// What `H264Payloader` and `H265Payloader` share above their own split: the two `payload` forms of `RTPPayloader`
/// and `headroom`, written once. A payloader of this kind has one function that writes each packet of an access unit
/// into any `RTPPayloadDestination` — its own reused buffer or the room a caller lends — and says after each packet
/// that it is done (`committed`); the forms differ only in the destination and in what `committed` does.
///
/// `package`, not public: the hooks name this module's buffer types. The default implementations are public, so they
/// are the payloaders' public `RTPPayloader` witnesses.
package protocol NALUnitSplittingPayloader: RTPPayloader {
    /// The payloader's own buffer, the destination of `payload(_:emit:)`: room for one packet after `headroom`.
    var ownBuffer: OwnBufferDestination { get }

    /// Splits the NAL units of one access unit, each packet written into `destination` and `committed` told after
    /// each (its payload length, and whether it is the access unit's last).
    func split(
        _ nalUnits: [ArraySlice<UInt8>], into destination: inout some RTPPayloadDestination, committed: PayloadCommitted
    ) throws(RTPError)
}

extension NALUnitSplittingPayloader {
    /// Bytes reserved in front of every payload for the RTP header.
    public var headroom: Int { ownBuffer.headroom }

    /// Splits `nalUnits` into payloads. `emit(packet, isLast)` receives `headroom` free bytes followed by the
    /// payload; `isLast` marks the last packet of the access unit (the RTP marker bit). The buffer is only valid
    /// during the call.
    public func payload(
        _ nalUnits: [ArraySlice<UInt8>], emit: (_ packet: UnsafeMutableRawBufferPointer, _ isLast: Bool) -> Void
    ) throws(RTPError) {
        let own = ownBuffer
        var destination = own
        try split(nalUnits, into: &destination) { length, isLast in emit(own.packet(payloadLength: length), isLast) }
    }

    /// The same split, each payload written straight into the room `destination` lends (the packet queue's slot, in
    /// the sender): the NAL unit bytes are copied once, from the access unit to where they wait to be sent.
    public func payload(_ nalUnits: [ArraySlice<UInt8>], into destination: inout some RTPPayloadDestination) throws(RTPError) {
        try split(nalUnits, into: &destination) { _, _ in }
    }
}
