/// The RTP fixed header, RFC 3550 §5.1, with CSRCs and an optional header extension (RFC 8285).
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|X|  CC   |M|     PT      |       sequence number         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                           timestamp                           |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |           synchronization source (SSRC) identifier            |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |            contributing source (CSRC) identifiers             |
///     |                             ....                              |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// P (padding) is not a header field here: it follows from `RTPPacket.paddingSize`. X follows from `extension`.
public struct RTPHeader: Sendable, Equatable {
    /// Size of the fixed part (no CSRCs, no extension).
    public static let fixedSize = 12
    /// CC is a 4-bit field.
    public static let maxCSRCCount = 15

    public var marker: Bool
    /// 7 bits.
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    public var csrcs: [UInt32]
    public var `extension`: RTPHeaderExtension?

    public init(
        marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
        csrcs: [UInt32] = [], extension: RTPHeaderExtension? = nil
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.extension = `extension`
    }

    public var marshalSize: Int {
        Self.fixedSize + 4 * csrcs.count + (self.extension?.marshalSize ?? 0)
    }

    /// Writes the header; `padding` sets the P bit (the padding bytes themselves are the packet's business).
    func marshal(into writer: inout ByteWriter, padding: Bool) throws(RTPError) {
        guard csrcs.count <= Self.maxCSRCCount else {
            throw .make(.fieldOverflow, "\(csrcs.count) CSRCs, CC holds at most \(Self.maxCSRCCount)")
        }
        guard payloadType < 128 else { throw .make(.fieldOverflow, "payload type \(payloadType) does not fit 7 bits") }
        let first: UInt8 = 2 << 6 | (padding ? 0x20 : 0) | (self.extension != nil ? 0x10 : 0) | UInt8(csrcs.count)
        writer.write(first)
        writer.write((marker ? 0x80 : 0) | payloadType)
        writer.write(sequenceNumber)
        writer.write(timestamp)
        writer.write(ssrc)
        for csrc in csrcs { writer.write(csrc) }
        try self.extension?.marshal(into: &writer)
    }

    /// Writes just the 12-byte fixed header at the start of `buffer` (no CSRC, no extension): the payloader's hot path.
    static func writeFixed(
        into buffer: UnsafeMutableRawBufferPointer, marker: Bool, payloadType: UInt8, sequenceNumber: UInt16,
        timestamp: UInt32, ssrc: UInt32
    ) {
        var writer = ByteWriter(buffer)
        writer.write(UInt8(0x80))
        writer.write((marker ? 0x80 : 0) | (payloadType & 0x7F))
        writer.write(sequenceNumber)
        writer.write(timestamp)
        writer.write(ssrc)
    }

    /// Parses the header and reports whether the P bit was set.
    static func parse(_ reader: inout ByteReader) throws(RTPError) -> (RTPHeader, padding: Bool) {
        let first = try reader.readUInt8("RTP header V/P/X/CC")
        guard first >> 6 == 2 else { throw .make(.invalidValue, "RTP version \(first >> 6), expected 2", offset: 0) }
        let second = try reader.readUInt8("RTP header M/PT")
        let sequenceNumber = try reader.readUInt16("RTP sequence number")
        let timestamp = try reader.readUInt32("RTP timestamp")
        let ssrc = try reader.readUInt32("RTP SSRC")
        var csrcs: [UInt32] = []
        let csrcCount = Int(first & 0x0F)
        if csrcCount > 0 {
            csrcs.reserveCapacity(csrcCount)
            for _ in 0 ..< csrcCount { csrcs.append(try reader.readUInt32("RTP CSRC")) }
        }
        let ext: RTPHeaderExtension? = first & 0x10 != 0 ? try RTPHeaderExtension.parse(&reader) : nil
        let header = RTPHeader(
            marker: second & 0x80 != 0, payloadType: second & 0x7F, sequenceNumber: sequenceNumber,
            timestamp: timestamp, ssrc: ssrc, csrcs: csrcs, extension: ext)
        return (header, first & 0x20 != 0)
    }
}
