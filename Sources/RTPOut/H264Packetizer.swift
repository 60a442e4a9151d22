/// Owns the sequence numbers of one RTP stream (pion's Sequencer): fixed start for tests, random for real use
/// (RFC 3550 §5.1 wants a random initial value).
public struct RTPSequencer: Sendable {
    public private(set) var nextSequenceNumber: UInt16
    /// How many times the sequence number wrapped (the high half of RFC 3550's extended sequence number).
    public private(set) var rolloverCount: UInt32 = 0

    public init(initial: UInt16) { nextSequenceNumber = initial }
    public static func random() -> RTPSequencer { RTPSequencer(initial: .random(in: 0 ... .max)) }

    public mutating func next() -> UInt16 {
        let current = nextSequenceNumber
        nextSequenceNumber &+= 1
        if nextSequenceNumber == 0 { rolloverCount &+= 1 }
        return current
    }
}

/// RTP timestamps from presentation times.
public enum RTPClock {
    public static let h264ClockRate: Int64 = 90_000

    /// `pts × timeBase × clockRate + offset`, modulo 2^32 (RFC 3550 §5.1: a random offset, then wrap).
    /// Exact for any Int64 pts: the product is formed in 128 bits.
    public static func timestamp(pts: Int64, timeBaseNumerator: Int64, timeBaseDenominator: Int64,
                                 clockRate: Int64 = h264ClockRate, offset: UInt32 = 0) -> UInt32 {
        guard timeBaseDenominator > 0 else { return offset }
        let product = pts.multipliedFullWidth(by: timeBaseNumerator &* clockRate)
        // |numerator × clockRate| stays far below 2^63 for real time bases; the quotient is taken modulo 2^32 anyway.
        let (quotient, _) = timeBaseDenominator.dividingFullWidth(product)
        return UInt32(truncatingIfNeeded: quotient) &+ offset
    }
}

/// Payloader + sequencer + RTP header: access unit in, complete RTP packets out (into one reusable buffer).
public final class H264Packetizer {
    public let payloader: H264Payloader
    public var sequencer: RTPSequencer
    public let payloadType: UInt8
    public let ssrc: UInt32

    public init(payloader: H264Payloader, payloadType: UInt8, ssrc: UInt32, sequencer: RTPSequencer = .random()) throws(RTPError) {
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
