/// Payloader + sequencer + RTP header: access unit in, complete RTP packets out (into the payloader's reusable
/// buffer), for any codec's payloader (pion's Packetizer). Generic rather than over `any RTPPayloader` so that the
/// per-packet path is specialized for the concrete payloader: no witness-table call and no allocation per packet.
public final class RTPPacketizer<Payloader: RTPPayloader> {
    public let payloader: Payloader
    public var sequencer: RTPSequencer
    public let payloadType: UInt8
    public let ssrc: UInt32

    public init(payloader: Payloader, payloadType: UInt8, ssrc: UInt32, sequencer: RTPSequencer = .random()) throws(RTPError) {
        guard payloader.headroom >= RTPHeader.fixedSize else {
            throw .invalidValue("payloader headroom \(payloader.headroom) cannot hold the 12-byte RTP header")
        }
        guard payloadType < 128 else { throw .fieldOverflow("payload type \(payloadType) does not fit 7 bits") }
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

/// The RFC 6184 packetizer, under the name it had before payloaders had a protocol.
public typealias H264Packetizer = RTPPacketizer<H264Payloader>
