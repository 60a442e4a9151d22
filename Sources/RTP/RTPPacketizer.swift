/// Payloader + sequencer + RTP header: access unit in, complete RTP packets out (into the payloader's reusable
/// buffer), for any codec's payloader (pion's Packetizer). Generic rather than over `any RTPPayloader` so that the
/// per-packet path is specialized for the concrete payloader: no witness-table call and no allocation per packet.
public final class RTPPacketizer<Payloader: RTPPayloader> {
    public let payloader: Payloader
    public var sequencer: RTPSequencer
    public let payloadType: UInt8
    public let ssrc: UInt32
    /// The header extension block written behind the fixed header of every packet (the send session's, with zero
    /// values it fills in at transmit); empty: none.
    var extensionTemplate: [UInt8] = []

    public init(payloader: Payloader, payloadType: UInt8, ssrc: UInt32, sequencer: RTPSequencer = .random()) throws(RTPError) {
        guard payloader.headroom >= RTPHeader.fixedSize else {
            throw .make(.invalidValue, "payloader headroom \(payloader.headroom) cannot hold the 12-byte RTP header")
        }
        guard payloadType < 128 else { throw .make(.fieldOverflow, "payload type \(payloadType) does not fit 7 bits") }
        self.payloader = payloader
        self.payloadType = payloadType
        self.ssrc = ssrc
        self.sequencer = sequencer
    }

    /// Packetizes one access unit with RTP timestamp `timestamp`. `emit(packet, sequenceNumber, marker)` gets each
    /// packet, valid during the call only.
    public func packetize(
        _ nalUnits: [ArraySlice<UInt8>], timestamp: UInt32,
        emit: (_ packet: UnsafeRawBufferPointer, _ sequenceNumber: UInt16, _ marker: Bool) -> Void
    ) throws(RTPError) {
        let skip = payloader.headroom - RTPHeader.fixedSize
        try payloader.payload(nalUnits) { packet, isLast in
            let sequenceNumber = sequencer.next()
            let rtp = UnsafeMutableRawBufferPointer(rebasing: packet[skip...])
            RTPHeader.writeFixed(into: rtp, marker: isLast, payloadType: payloadType, sequenceNumber: sequenceNumber,
                                 timestamp: timestamp, ssrc: ssrc)
            emit(UnsafeRawBufferPointer(rtp), sequenceNumber, isLast)
        }
    }
}

/// Where `RTPPacketizer` writes whole packets in place (the sender's packet queue): room for each packet, then its
/// length and sequence number once the payloader and the header are written.
package protocol RTPPacketDestination {
    /// Room for the next packet: at least the 12-byte RTP header, the header extension block and the payloader's
    /// `maxPayloadSize`.
    mutating func nextPacket() -> UnsafeMutableRawBufferPointer
    /// The room lent last holds a packet of `length` bytes.
    mutating func commitPacket(length: Int, sequenceNumber: UInt16, marker: Bool)
}

extension RTPPacketizer {
    /// Packetizes one access unit straight into `destination`: the payloader writes each payload behind the room
    /// for the RTP header in the destination's buffer, and the header goes in front of it. No copy of the payload
    /// beyond the payloader's own (`RTPPayloader.payload(_:into:)`).
    package func packetize(_ nalUnits: [ArraySlice<UInt8>], timestamp: UInt32, into destination: inout some RTPPacketDestination)
        throws(RTPError)
    {
        var headers = HeaderWriting(packets: destination, sequencer: sequencer, payloadType: payloadType, ssrc: ssrc,
                                    timestamp: timestamp, extensionTemplate: extensionTemplate)
        defer {
            destination = headers.packets
            sequencer = headers.sequencer
        }
        try payloader.payload(nalUnits, into: &headers)
    }
}

/// The payload destination over a packet destination: lends the packet's room past the RTP header to the payloader
/// and writes the header in front once the payload is committed.
private struct HeaderWriting<Packets: RTPPacketDestination>: RTPPayloadDestination {
    var packets: Packets
    var sequencer: RTPSequencer
    let payloadType: UInt8
    let ssrc: UInt32
    let timestamp: UInt32
    let extensionTemplate: [UInt8]
    /// The room lent last.
    var packet = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    mutating func nextPayload() -> UnsafeMutableRawBufferPointer {
        packet = packets.nextPacket()
        return UnsafeMutableRawBufferPointer(rebasing: packet[(RTPHeader.fixedSize + extensionTemplate.count)...])
    }

    mutating func commitPayload(length: Int, isLast: Bool) {
        let sequenceNumber = sequencer.next()
        RTPHeader.writeFixed(into: packet, marker: isLast, payloadType: payloadType, sequenceNumber: sequenceNumber,
                             timestamp: timestamp, ssrc: ssrc)
        RTPHeader.writeExtensionBlock(extensionTemplate, into: packet)
        packets.commitPacket(length: RTPHeader.fixedSize + extensionTemplate.count + length, sequenceNumber: sequenceNumber,
                             marker: isLast)
    }
}

/// The RFC 6184 packetizer, under the name it had before payloaders had a protocol.
public typealias H264Packetizer = RTPPacketizer<H264Payloader>
