/// Where a payloader writes its payloads in place: a buffer the caller lends for each packet — the packet queue's
/// slot, behind the room the RTP header takes — instead of the payloader's own buffer, so a payload is written once,
/// where it waits to be sent (`RTPPayloader.payload(_:into:)`).
///
/// The protocol of one packet: `nextPayload()` lends room for it, the payloader writes the payload at the start of
/// that room, `commitPayload(length:isLast:)` says how long it is. A payloader asks for the next room only after the
/// commit of the one before; what it was lent is not its to touch after the commit.
public protocol RTPPayloadDestination {
    /// Room for the next payload: at least the payloader's `maxPayloadSize` bytes, valid until `commitPayload`.
    mutating func nextPayload() -> UnsafeMutableRawBufferPointer
    /// The room lent last holds a payload of `length` bytes; `isLast` marks the access unit's last packet (the RTP
    /// marker bit).
    mutating func commitPayload(length: Int, isLast: Bool)
}

/// The fallback for a payloader that only has the `emit` form: each payload is copied from its own buffer into the
/// destination's room (one copy more than a payloader that writes in place).
struct CopyingDestination<Destination: RTPPayloadDestination> {
    var destination: Destination
    let headroom: Int
    /// A payload larger than the room lent for it (a payloader that broke its own `maxPayloadSize`): not copied.
    var oversized: Int?

    mutating func copy(_ packet: UnsafeMutableRawBufferPointer, isLast: Bool) {
        guard oversized == nil else { return }
        let payload = UnsafeRawBufferPointer(rebasing: packet[min(headroom, packet.count)...])
        let room = destination.nextPayload()
        guard payload.count <= room.count else {
            oversized = payload.count
            return
        }
        UnsafeMutableRawBufferPointer(rebasing: room[0 ..< payload.count]).copyMemory(from: payload)
        destination.commitPayload(length: payload.count, isLast: isLast)
    }
}
