/// RFC 4588 retransmission: the original packet re-sent on its own payload type and SSRC with its own sequence
/// numbers, the original sequence number (OSN) in the first two payload bytes:
///
///     |                         RTP Header                            |
///     |            OSN                |                               |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               |
///     |                  Original RTP Packet Payload                  |
public struct RTXEncoder: Sendable {
    public let payloadType: UInt8
    public let ssrc: UInt32
    public var sequencer: RTPSequencer

    public init(payloadType: UInt8, ssrc: UInt32, sequencer: RTPSequencer = .random()) {
        self.payloadType = payloadType
        self.ssrc = ssrc
        self.sequencer = sequencer
    }

    /// Writes the RTX form of `original` into `buffer` (which needs `original.count + 2` bytes); returns its length.
    /// CSRCs of the original are dropped, its padding too; its header extension is kept (the send session fills in
    /// a fresh transport-wide number and send time there when the RTX packet leaves).
    public mutating func encode(_ original: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        let packet = try RTPPacket(parsing: Array(original)[...])  // rare path (NACK): an allocation here is fine
        let extensionSize = packet.header.extension?.marshalSize ?? 0
        let size = RTPHeader.fixedSize + extensionSize + 2 + packet.payload.count
        guard buffer.count >= size else { throw .outputTooSmall(need: size, have: buffer.count) }
        RTPHeader.writeFixed(into: buffer, marker: packet.header.marker, payloadType: payloadType,
                             sequenceNumber: sequencer.next(), timestamp: packet.header.timestamp, ssrc: ssrc)
        var writer = ByteWriter(buffer, at: RTPHeader.fixedSize)
        if let headerExtension = packet.header.extension {
            buffer[0] |= 0x10  // X
            try headerExtension.marshal(into: &writer)
        }
        writer.write(packet.header.sequenceNumber)
        writer.write(bytes: packet.payload)
        return writer.index
    }
}
