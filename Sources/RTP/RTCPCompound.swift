/// Compound RTCP packets (RFC 3550 §6.1): several RTCP packets back to back in one datagram.
public enum RTCPCompound {
    /// A compound packet longer than any UDP datagram is hostile; parsing walks at most this many packets.
    public static let maxPacketsPerCompound = 256

    public static func marshalSize(_ packets: [RTCPPacket]) -> Int { packets.reduce(0) { $0 + $1.marshalSize } }

    /// Writes the packets back to back at the start of `buffer`; returns the bytes written.
    public static func marshal(_ packets: [RTCPPacket], into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        let size = marshalSize(packets)
        guard buffer.count >= size else { throw .outputTooSmall(need: size, have: buffer.count) }
        var writer = ByteWriter(buffer)
        for packet in packets { try packet.marshal(into: &writer) }
        return writer.index
    }

    public static func marshal(_ packets: [RTCPPacket]) throws(RTPError) -> [UInt8] {
        try marshalToArray(size: marshalSize(packets)) { buffer throws(RTPError) in try marshal(packets, into: buffer) }
    }

    /// Strict parse: every packet has version 2 and a length that fits the datagram exactly; only the last packet may
    /// carry padding (§6.4.1). Bodies too short for their type are errors; unknown types are kept as `.unknown`.
    public static func parse(_ bytes: ArraySlice<UInt8>) throws(RTPError) -> [RTCPPacket] {
        var reader = ByteReader(bytes)
        var packets: [RTCPPacket] = []
        guard !bytes.isEmpty else { throw .make(.truncated, "empty RTCP datagram", offset: 0) }
        while !reader.isEmpty {
            guard packets.count < maxPacketsPerCompound else {
                throw .make(.limitExceeded, "more than \(maxPacketsPerCompound) RTCP packets in one datagram", offset: reader.offset)
            }
            let start = reader.offset
            let first = try reader.readUInt8("RTCP header V/P/count")
            guard first >> 6 == 2 else { throw .make(.invalidValue, "RTCP version \(first >> 6), expected 2", offset: start) }
            let type = try reader.readUInt8("RTCP packet type")
            let words = try reader.readUInt16("RTCP length")
            var body = try reader.readBytes(Int(words) * 4, "RTCP packet body (length \(words))")
            if first & 0x20 != 0 {
                guard reader.isEmpty else {
                    throw .make(.invalidValue, "padding bit on an RTCP packet that is not the last", offset: start)
                }
                guard let pad = body.last, pad >= 1, Int(pad) <= body.count else {
                    throw .make(.invalidValue, "RTCP padding count does not fit the packet", offset: start)
                }
                body = body.dropLast(Int(pad))
            }
            packets.append(try parseOne(count: first & 0x1F, type: type, body: body, offset: start))
        }
        return packets
    }

    public static func parse(_ bytes: [UInt8]) throws(RTPError) -> [RTCPPacket] { try parse(bytes[...]) }

    private static func parseOne(count: UInt8, type: UInt8, body: ArraySlice<UInt8>, offset: Int) throws(RTPError) -> RTCPPacket {
        typealias T = RTCPPacket.PacketType
        do throws(RTPError) {
            switch (type, count) {
            case (T.senderReport, _): return .senderReport(try SenderReport.parse(count: count, body: body))
            case (T.receiverReport, _): return .receiverReport(try ReceiverReport.parse(count: count, body: body))
            case (T.sourceDescription, _): return .sourceDescription(try SourceDescription.parse(count: count, body: body))
            case (T.goodbye, _): return .goodbye(try Goodbye.parse(count: count, body: body))
            case (T.transportFeedback, 11): return .congestionControlFeedback(try CongestionControlFeedback.parse(body: body))
            case (T.transportFeedback, 1), (T.transportFeedback, 3), (T.transportFeedback, 4), (T.transportFeedback, 15),
                (T.payloadFeedback, 1), (T.payloadFeedback, 4), (T.payloadFeedback, 15):
                return try parseFeedback(format: count, type: type, body: body)
            default: return .unknown(countOrFormat: count, packetType: type, body: body)
            }
        } catch {
            // Re-anchor the offset at the packet inside the datagram.
            throw RTPError(code: error.code, reason: error.reason, offset: offset + 4 + (error.offset ?? 0),
                           file: error.file, line: error.line)
        }
    }

    private static func parseFeedback(format: UInt8, type: UInt8, body: ArraySlice<UInt8>) throws(RTPError) -> RTCPPacket {
        var reader = ByteReader(body)
        let sender = try reader.readUInt32("feedback sender SSRC")
        let media = try reader.readUInt32("feedback media SSRC")
        switch (type, format) {
        case (RTCPPacket.PacketType.payloadFeedback, 1):
            return .pictureLossIndication(PictureLossIndication(senderSSRC: sender, mediaSSRC: media))
        case (RTCPPacket.PacketType.payloadFeedback, 4):
            var entries: [FullIntraRequest.Entry] = []
            while !reader.isEmpty {
                let ssrc = try reader.readUInt32("FIR entry SSRC")
                let sequence = try reader.readUInt8("FIR sequence number")
                try reader.skip(3, "FIR reserved")
                entries.append(.init(ssrc: ssrc, sequenceNumber: sequence))
            }
            return .fullIntraRequest(FullIntraRequest(senderSSRC: sender, entries: entries))
        case (RTCPPacket.PacketType.payloadFeedback, _):
            // FMT 15 is any application-layer feedback; only REMB is understood.
            var peek = reader
            guard reader.count >= 8, (try? peek.readUInt32("REMB identifier")) == ReceiverEstimatedMaximumBitrate.identifier else {
                return .unknown(countOrFormat: format, packetType: type, body: body)
            }
            try reader.skip(4, "REMB identifier")
            let count = try reader.readUInt8("REMB Num SSRC")
            let expMantissa = try reader.readUInt24("REMB BR Exp/Mantissa")
            let bitrate = MantissaExponent.decode(mantissa: expMantissa & 0x3_FFFF, exponent: UInt8(expMantissa >> 18))
            var ssrcs: [UInt32] = []
            for _ in 0 ..< count { ssrcs.append(try reader.readUInt32("REMB SSRC feedback")) }
            return .receiverEstimatedMaximumBitrate(.init(senderSSRC: sender, bitrate: bitrate, ssrcs: ssrcs))
        case (_, 15):
            return .transportCC(try TransportCCFeedback.parseFCI(senderSSRC: sender, mediaSSRC: media, &reader))
        case (_, 1):
            var pairs: [GenericNACK.Pair] = []
            while !reader.isEmpty {
                pairs.append(.init(packetID: try reader.readUInt16("NACK PID"), lostBitmask: try reader.readUInt16("NACK BLP")))
            }
            return .genericNACK(GenericNACK(senderSSRC: sender, mediaSSRC: media, pairs: pairs))
        default:
            var entries: [TemporaryMaximumBitrate.Entry] = []
            while !reader.isEmpty {
                let ssrc = try reader.readUInt32("TMMBR/TMMBN entry SSRC")
                let word = try reader.readUInt32("TMMBR/TMMBN MxTBR")
                let bitrate = MantissaExponent.decode(mantissa: word >> 9 & 0x1_FFFF, exponent: UInt8(word >> 26))
                entries.append(.init(ssrc: ssrc, bitrate: bitrate, overhead: UInt16(word & 0x1FF)))
            }
            let t = TemporaryMaximumBitrate(senderSSRC: sender, entries: entries)
            return format == 3 ? .temporaryMaximumBitrateRequest(t) : .temporaryMaximumBitrateNotification(t)
        }
    }
}
