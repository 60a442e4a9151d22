/// RTCP sender and receiver reports, RFC 3550 §6.4.
///
/// Sender report (PT = 200):
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|    RC   |   PT=SR=200   |             length            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         SSRC of sender                        |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |              NTP timestamp, most significant word             |
///     |             NTP timestamp, least significant word             |
///     |                         RTP timestamp                         |
///     |                     sender's packet count                     |
///     |                      sender's octet count                     |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                 report blocks (24 bytes each)                 |
///
/// Receiver report (PT = 201): header, SSRC of packet sender, report blocks.
public struct SenderReport: Sendable, Equatable {
    public var ssrc: UInt32
    public var ntpTime: NTPTime
    /// The RTP timestamp that corresponds to `ntpTime` on the media clock (the RTP/NTP mapping receivers use for sync).
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    public var reports: [ReportBlock]

    public init(ssrc: UInt32, ntpTime: NTPTime, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32, reports: [ReportBlock] = []) {
        self.ssrc = ssrc
        self.ntpTime = ntpTime
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
    }

    var bodySize: Int { 24 + 24 * reports.count }

    func marshalBody(into writer: inout ByteWriter) {
        writer.write(ssrc)
        writer.write(ntpTime.value)
        writer.write(rtpTimestamp)
        writer.write(packetCount)
        writer.write(octetCount)
        for block in reports { block.marshal(into: &writer) }
    }

    static func parse(count: UInt8, body: ArraySlice<UInt8>) throws(RTPError) -> SenderReport {
        var reader = ByteReader(body)
        let ssrc = try reader.readUInt32("SR SSRC")
        let ntpHigh = try reader.readUInt32("SR NTP seconds")
        let ntpLow = try reader.readUInt32("SR NTP fraction")
        let rtpTimestamp = try reader.readUInt32("SR RTP timestamp")
        let packets = try reader.readUInt32("SR packet count")
        let octets = try reader.readUInt32("SR octet count")
        let reports = try ReportBlock.parseList(count: count, &reader)
        // Anything after the blocks is a profile-specific extension (§6.4.1); it is allowed and skipped.
        return SenderReport(
            ssrc: ssrc, ntpTime: NTPTime(seconds: ntpHigh, fraction: ntpLow), rtpTimestamp: rtpTimestamp,
            packetCount: packets, octetCount: octets, reports: reports)
    }
}

public struct ReceiverReport: Sendable, Equatable {
    public var ssrc: UInt32
    public var reports: [ReportBlock]

    public init(ssrc: UInt32, reports: [ReportBlock] = []) {
        self.ssrc = ssrc
        self.reports = reports
    }

    var bodySize: Int { 4 + 24 * reports.count }

    func marshalBody(into writer: inout ByteWriter) {
        writer.write(ssrc)
        for block in reports { block.marshal(into: &writer) }
    }

    static func parse(count: UInt8, body: ArraySlice<UInt8>) throws(RTPError) -> ReceiverReport {
        var reader = ByteReader(body)
        let ssrc = try reader.readUInt32("RR SSRC")
        return ReceiverReport(ssrc: ssrc, reports: try ReportBlock.parseList(count: count, &reader))
    }
}

/// One report block (RFC 3550 §6.4.1), 24 bytes:
///
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                 SSRC_1 (SSRC of first source)                 |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     | fraction lost |       cumulative number of packets lost       |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |           extended highest sequence number received           |
///     |                      interarrival jitter                      |
///     |                         last SR (LSR)                         |
///     |                   delay since last SR (DLSR)                  |
public struct ReportBlock: Sendable, Equatable {
    public var ssrc: UInt32
    /// Fraction lost since the previous report, in 1/256 units.
    public var fractionLost: UInt8
    /// 24-bit signed (duplicates can make it negative); clamped to the field on write.
    public var cumulativeLost: Int32
    public var extendedHighestSequenceNumber: UInt32
    /// In RTP timestamp units.
    public var jitter: UInt32
    /// Middle 32 bits of the NTP time of the last SR received from this source, 0 if none.
    public var lastSenderReport: UInt32
    /// Delay since that SR in 1/65536 s, 0 if none.
    public var delaySinceLastSenderReport: UInt32

    public init(
        ssrc: UInt32, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, extendedHighestSequenceNumber: UInt32 = 0,
        jitter: UInt32 = 0, lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    static let size = 24
    static let cumulativeLostRange: ClosedRange<Int32> = -0x80_0000 ... 0x7F_FFFF

    func marshal(into writer: inout ByteWriter) {
        writer.write(ssrc)
        writer.write(fractionLost)
        let clamped = min(max(cumulativeLost, Self.cumulativeLostRange.lowerBound), Self.cumulativeLostRange.upperBound)
        writer.writeUInt24(UInt32(bitPattern: clamped) & 0xFF_FFFF)
        writer.write(extendedHighestSequenceNumber)
        writer.write(jitter)
        writer.write(lastSenderReport)
        writer.write(delaySinceLastSenderReport)
    }

    static func parseList(count: UInt8, _ reader: inout ByteReader) throws(RTPError) -> [ReportBlock] {
        var blocks: [ReportBlock] = []
        blocks.reserveCapacity(Int(count))
        for _ in 0 ..< count {
            let ssrc = try reader.readUInt32("report block SSRC")
            let fraction = try reader.readUInt8("report block fraction lost")
            let lost24 = try reader.readUInt24("report block cumulative lost")
            // Sign-extend the 24-bit two's complement field.
            let lost = Int32(bitPattern: lost24 << 8) >> 8
            blocks.append(ReportBlock(
                ssrc: ssrc, fractionLost: fraction, cumulativeLost: lost,
                extendedHighestSequenceNumber: try reader.readUInt32("report block highest sequence"),
                jitter: try reader.readUInt32("report block jitter"),
                lastSenderReport: try reader.readUInt32("report block LSR"),
                delaySinceLastSenderReport: try reader.readUInt32("report block DLSR")))
        }
        return blocks
    }
}
