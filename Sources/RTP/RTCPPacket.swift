/// One RTCP packet of a compound packet (RFC 3550 §6.1), and the compound reader/writer.
///
/// Common header of every RTCP packet:
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P| RC/FMT  |      PT       |             length            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// `length` is the packet's size in 32-bit words minus one. Types this module does not know (XR, APP, other FMTs)
/// parse as `.unknown` with their body, so a compound packet from any peer can be walked safely.
public enum RTCPPacket: Sendable, Equatable {
    case senderReport(SenderReport)
    case receiverReport(ReceiverReport)
    case sourceDescription(SourceDescription)
    case goodbye(Goodbye)
    case pictureLossIndication(PictureLossIndication)
    case fullIntraRequest(FullIntraRequest)
    case genericNACK(GenericNACK)
    case temporaryMaximumBitrateRequest(TemporaryMaximumBitrate)
    case temporaryMaximumBitrateNotification(TemporaryMaximumBitrate)
    case receiverEstimatedMaximumBitrate(ReceiverEstimatedMaximumBitrate)
    /// Transport-wide congestion control feedback (RTPFB FMT 15, draft-holmer-rmcat-transport-wide-cc-extensions-01).
    case transportCC(TransportCCFeedback)
    /// RFC 8888 congestion control feedback (RTPFB FMT 11).
    case congestionControlFeedback(CongestionControlFeedback)
    /// Any other packet: its count/FMT field, packet type and body (after the 4-byte header, padding removed).
    case unknown(countOrFormat: UInt8, packetType: UInt8, body: ArraySlice<UInt8>)

    enum PacketType {
        static let senderReport: UInt8 = 200
        static let receiverReport: UInt8 = 201
        static let sourceDescription: UInt8 = 202
        static let goodbye: UInt8 = 203
        static let transportFeedback: UInt8 = 205  // RTPFB
        static let payloadFeedback: UInt8 = 206  // PSFB
    }

    /// Number of report blocks, chunks or sources; a 5-bit field.
    static let maxCount = 31

    private var countOrFormat: UInt8 {
        switch self {
        case .senderReport(let sr): UInt8(truncatingIfNeeded: sr.reports.count)
        case .receiverReport(let rr): UInt8(truncatingIfNeeded: rr.reports.count)
        case .sourceDescription(let sdes): UInt8(truncatingIfNeeded: sdes.chunks.count)
        case .goodbye(let bye): UInt8(truncatingIfNeeded: bye.sources.count)
        case .pictureLossIndication: 1
        case .fullIntraRequest: 4
        case .genericNACK: 1
        case .temporaryMaximumBitrateRequest: 3
        case .temporaryMaximumBitrateNotification: 4
        case .receiverEstimatedMaximumBitrate: 15
        case .transportCC: 15
        case .congestionControlFeedback: 11
        case .unknown(let count, _, _): count
        }
    }

    private var packetType: UInt8 {
        switch self {
        case .senderReport: PacketType.senderReport
        case .receiverReport: PacketType.receiverReport
        case .sourceDescription: PacketType.sourceDescription
        case .goodbye: PacketType.goodbye
        case .genericNACK, .temporaryMaximumBitrateRequest, .temporaryMaximumBitrateNotification, .transportCC,
             .congestionControlFeedback:
            PacketType.transportFeedback
        case .pictureLossIndication, .fullIntraRequest, .receiverEstimatedMaximumBitrate: PacketType.payloadFeedback
        case .unknown(_, let type, _): type
        }
    }

    private var bodySize: Int {
        switch self {
        case .senderReport(let sr): sr.bodySize
        case .receiverReport(let rr): rr.bodySize
        case .sourceDescription(let sdes): sdes.bodySize
        case .goodbye(let bye): bye.bodySize
        case .pictureLossIndication: 8
        case .fullIntraRequest(let fir): 8 + 8 * fir.entries.count
        case .genericNACK(let nack): 8 + 4 * nack.pairs.count
        case .temporaryMaximumBitrateRequest(let t), .temporaryMaximumBitrateNotification(let t): 8 + 8 * t.entries.count
        case .receiverEstimatedMaximumBitrate(let remb): 16 + 4 * remb.ssrcs.count
        case .transportCC(let feedback): 8 + feedback.fciSize(chunkCount: feedback.chunks.count)
        case .congestionControlFeedback(let feedback): feedback.bodySize
        case .unknown(_, _, let body): body.count
        }
    }

    public var marshalSize: Int { 4 + bodySize }

    /// Writes this packet at the start of `buffer` without allocating; returns the bytes written.
    public func marshal(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        let size = marshalSize
        guard buffer.count >= size else { throw .outputTooSmall(need: size, have: buffer.count) }
        var writer = ByteWriter(buffer)
        try marshal(into: &writer)
        return writer.index
    }

    public func marshal() throws(RTPError) -> [UInt8] {
        try marshalToArray(size: marshalSize) { buffer throws(RTPError) in try marshal(into: buffer) }
    }

    func marshal(into writer: inout ByteWriter) throws(RTPError) {
        try validate()
        writer.write(UInt8(2 << 6) | countOrFormat)
        writer.write(packetType)
        writer.write(UInt16(marshalSize / 4 - 1))
        switch self {
        case .senderReport(let sr): sr.marshalBody(into: &writer)
        case .receiverReport(let rr): rr.marshalBody(into: &writer)
        case .sourceDescription(let sdes): sdes.marshalBody(into: &writer)
        case .goodbye(let bye): bye.marshalBody(into: &writer)
        case .pictureLossIndication(let pli):
            writer.write(pli.senderSSRC)
            writer.write(pli.mediaSSRC)
        case .fullIntraRequest(let fir):
            writer.write(fir.senderSSRC)
            writer.write(UInt32(0))
            for entry in fir.entries {
                writer.write(entry.ssrc)
                writer.write(entry.sequenceNumber)
                writer.writeUInt24(0)
            }
        case .genericNACK(let nack):
            writer.write(nack.senderSSRC)
            writer.write(nack.mediaSSRC)
            for pair in nack.pairs {
                writer.write(pair.packetID)
                writer.write(pair.lostBitmask)
            }
        case .temporaryMaximumBitrateRequest(let t), .temporaryMaximumBitrateNotification(let t):
            writer.write(t.senderSSRC)
            writer.write(UInt32(0))
            for entry in t.entries {
                let (mantissa, exponent) = MantissaExponent.encode(entry.bitrate, mantissaBits: 17)
                writer.write(entry.ssrc)
                writer.write(UInt32(exponent) << 26 | mantissa << 9 | UInt32(entry.overhead & 0x1FF))
            }
        case .receiverEstimatedMaximumBitrate(let remb):
            let (mantissa, exponent) = MantissaExponent.encode(remb.bitrate, mantissaBits: 18)
            writer.write(remb.senderSSRC)
            writer.write(UInt32(0))
            writer.write(ReceiverEstimatedMaximumBitrate.identifier)
            writer.write(UInt8(remb.ssrcs.count))
            writer.writeUInt24(UInt32(exponent) << 18 | mantissa)
            for ssrc in remb.ssrcs { writer.write(ssrc) }
        case .transportCC(let feedback):
            writer.write(feedback.senderSSRC)
            writer.write(feedback.mediaSSRC)
            feedback.marshalFCI(chunks: feedback.chunks, into: &writer)
        case .congestionControlFeedback(let feedback):
            feedback.marshalBody(into: &writer)
        case .unknown(_, _, let body):
            writer.write(bytes: body)
        }
    }

    private func validate() throws(RTPError) {
        switch self {
        case .senderReport(let sr) where sr.reports.count > Self.maxCount:
            throw .make(.fieldOverflow, "more than \(Self.maxCount) report blocks in one packet")
        case .receiverReport(let rr) where rr.reports.count > Self.maxCount:
            throw .make(.fieldOverflow, "more than \(Self.maxCount) report blocks in one packet")
        case .sourceDescription(let sdes): try sdes.validate()
        case .goodbye(let bye): try bye.validate()
        case .receiverEstimatedMaximumBitrate(let remb) where remb.ssrcs.count > 255:
            throw .make(.fieldOverflow, "\(remb.ssrcs.count) REMB SSRCs, Num SSRC holds 255")
        case .transportCC(let feedback): try feedback.validate()
        case .congestionControlFeedback(let feedback): try feedback.validate()
        case .unknown(let count, let type, let body) where count > 31 || body.count % 4 != 0 || type < 128:
            throw .make(.fieldOverflow, "unknown RTCP packet type \(type) count \(count) with a \(body.count)-byte body")
        default: break
        }
        guard marshalSize / 4 - 1 <= Int(UInt16.max) else { throw .make(.fieldOverflow, "RTCP packet of \(marshalSize) bytes") }
    }
}
