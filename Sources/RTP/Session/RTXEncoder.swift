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
    /// CSRCs and header extensions of the original are dropped, its padding too.
    public mutating func encode(_ original: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        guard buffer.count >= original.count + 2 else { throw .outputTooSmall(need: original.count + 2, have: buffer.count) }
        let packet = try RTPPacket(parsing: Array(original)[...])  // rare path (NACK): an allocation here is fine
        var writer = ByteWriter(buffer)
        RTPHeader.writeFixed(into: buffer, marker: packet.header.marker, payloadType: payloadType,
                             sequenceNumber: sequencer.next(), timestamp: packet.header.timestamp, ssrc: ssrc)
        writer = ByteWriter(buffer, at: RTPHeader.fixedSize)
        writer.write(packet.header.sequenceNumber)
        writer.write(bytes: packet.payload)
        return writer.index
    }
}
