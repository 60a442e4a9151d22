import MediaCore

/// Rebuilds one codec's access units from its RTP packets (the receiving half of the `RTPPayloader` seam): packets in,
/// in any order, with their arrival time; access units, losses and malformed payloads out as events. Pure: no
/// sockets, no clock reads (time comes in with the packets and `expire`).
public protocol RTPDepacketizer {
    /// The codec whose payload format this depacketizer reads.
    var codec: VideoCodec { get }
    /// Takes one received packet; `events` gets what it completes or finds missing.
    mutating func push(_ packet: RTPPacket, arrival: RTPInstant?, events: (DepacketizerEvent) -> Void)
    /// Gives up on packets held longer than the reorder delay allows at `now`.
    mutating func expire(now: RTPInstant, events: (DepacketizerEvent) -> Void)
    /// Delivers or drops everything held (end of stream).
    mutating func flush(events: (DepacketizerEvent) -> Void)
}
