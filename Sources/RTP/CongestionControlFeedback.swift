/// RTP Control Protocol feedback for congestion control (RFC 8888 §3.1), RTPFB (PT 205) FMT 11: per RTP stream,
/// which sequence numbers arrived, with their ECN marks and arrival times before the report timestamp.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P| FMT=11  |   PT = 205    |          length               |
///     |                 SSRC of RTCP packet sender                    |
///     |                   SSRC of 1st RTP Stream                      |
///     |          begin_seq            |          num_reports          |
///     |R|ECN|  Arrival time offset    | ...                           .
///     .                                                               .
///     |                   SSRC of nth RTP Stream                      |
///     |          begin_seq            |          num_reports          |
///     |R|ECN|  Arrival time offset    | ...                           |
///     |                        Report Timestamp                       |
///
/// No media-source SSRC in the common part: report blocks follow the sender's SSRC. Each block is padded to 32 bits
/// with a zero metric when `num_reports` is odd. Arrival time offset: 13 bits, in 1/1024 s, how long before the
/// report timestamp (the middle 32 bits of an NTP time) the packet arrived; 0x1FFE means that long or longer,
/// 0x1FFF that it is not known.
public struct CongestionControlFeedback: Sendable, Equatable {
    /// One packet's entry.
    public struct Metric: Sendable, Equatable {
        public var isReceived: Bool
        /// The two ECN bits of the packet's IP header (RFC 3168): 00 not ECT, 01 ECT(1), 10 ECT(0), 11 CE.
        public var ecn: UInt8
        /// 13 bits, 1/1024 s before the report timestamp (`overRange`, `unavailable`).
        public var arrivalTimeOffset: UInt16

        public static let overRange: UInt16 = 0x1FFE
        public static let unavailable: UInt16 = 0x1FFF
        public static let notReceived = Metric(isReceived: false, ecn: 0, arrivalTimeOffset: 0)

        public init(isReceived: Bool, ecn: UInt8 = 0, arrivalTimeOffset: UInt16) {
            self.isReceived = isReceived
            self.ecn = ecn
            self.arrivalTimeOffset = arrivalTimeOffset
        }

        /// A received packet that arrived `before` the report timestamp (quantized down to 1/1024 s; 0x1FFE from
        /// 7.998 s on; a negative duration — arrival after the timestamp — is `unavailable`).
        public static func received(before: Duration, ecn: UInt8 = 0) -> Metric {
            let units = before.nanoseconds < 0 ? Int64(unavailable) : min(before.nanoseconds * 1024 / 1_000_000_000, Int64(overRange))
            return Metric(isReceived: true, ecn: ecn, arrivalTimeOffset: UInt16(units))
        }

        /// The arrival before the report timestamp; nil when not received, over range or unavailable.
        public var arrivalBeforeReport: Duration? {
            guard isReceived, arrivalTimeOffset < Self.overRange else { return nil }
            return .nanoseconds(Int64(arrivalTimeOffset) * 1_000_000_000 / 1024)
        }

        var word: UInt16 {
            isReceived ? 0x8000 | UInt16(ecn & 0x3) << 13 | arrivalTimeOffset & 0x1FFF : 0
        }
    }

    /// The metrics of one RTP stream, for the sequence numbers from `beginSequence` on (modulo 2^16).
    public struct ReportBlock: Sendable, Equatable {
        public var ssrc: UInt32
        public var beginSequence: UInt16
        public var metrics: [Metric]

        public init(ssrc: UInt32, beginSequence: UInt16, metrics: [Metric]) {
            self.ssrc = ssrc
            self.beginSequence = beginSequence
            self.metrics = metrics
        }

        var size: Int { 8 + (metrics.count + 1) / 2 * 4 }
    }

    /// RFC 8888 §3.1: a block covers at most 2^14 packets (a quarter of the sequence number space).
    public static let maxReportsPerBlock = 16384

    public var senderSSRC: UInt32
    public var reportBlocks: [ReportBlock]
    /// The middle 32 bits of the NTP time the report was made (`NTPTime.middle32`): 1/65536 s.
    public var reportTimestamp: UInt32

    public init(senderSSRC: UInt32, reportBlocks: [ReportBlock], reportTimestamp: UInt32) {
        self.senderSSRC = senderSSRC
        self.reportBlocks = reportBlocks
        self.reportTimestamp = reportTimestamp
    }

    // MARK: Wire

    /// Bytes after the common header.
    var bodySize: Int { 8 + reportBlocks.reduce(0) { $0 + $1.size } }

    func validate() throws(RTPError) {
        for block in reportBlocks where block.metrics.count > Self.maxReportsPerBlock {
            throw .make(.fieldOverflow, "\(block.metrics.count) reports in a CCFB block; RFC 8888 allows \(Self.maxReportsPerBlock)")
        }
        for block in reportBlocks {
            for metric in block.metrics where metric.ecn > 3 || metric.arrivalTimeOffset > 0x1FFF {
                throw .make(.fieldOverflow, "CCFB metric ECN \(metric.ecn) / offset \(metric.arrivalTimeOffset) does not fit 2 / 13 bits")
            }
        }
    }

    func marshalBody(into writer: inout ByteWriter) {
        writer.write(senderSSRC)
        for block in reportBlocks {
            writer.write(block.ssrc)
            writer.write(block.beginSequence)
            writer.write(UInt16(block.metrics.count))
            for metric in block.metrics { writer.write(metric.word) }
            if block.metrics.count % 2 == 1 { writer.write(UInt16(0)) }
        }
        writer.write(reportTimestamp)
    }

    /// Parses the body after the common header. A metric marked not received keeps none of its other bits (as pion
    /// reads it); a block whose reports run past the report timestamp is refused.
    static func parse(body: ArraySlice<UInt8>) throws(RTPError) -> CongestionControlFeedback {
        var reader = ByteReader(body)
        let sender = try reader.readUInt32("CCFB sender SSRC")
        guard reader.count >= 4 else { throw .make(.truncated, "CCFB report timestamp: need 4 bytes, \(reader.count) left", offset: reader.offset) }
        var blocks: [ReportBlock] = []
        while reader.count > 4 {
            let blockOffset = reader.offset
            let ssrc = try reader.readUInt32("CCFB report block SSRC")
            let begin = try reader.readUInt16("CCFB begin_seq")
            let count = Int(try reader.readUInt16("CCFB num_reports"))
            guard count <= maxReportsPerBlock else {
                throw .make(.limitExceeded, "CCFB block of \(count) reports; RFC 8888 allows \(maxReportsPerBlock)", offset: blockOffset)
            }
            let words = (count + 1) / 2
            guard reader.count - 4 >= words * 4 else {
                throw .make(.truncated, "CCFB block of \(count) reports needs \(words * 4) bytes before the report timestamp, \(reader.count - 4) left",
                                 offset: reader.offset)
            }
            var metrics: [Metric] = []
            metrics.reserveCapacity(count)
            for _ in 0 ..< count {
                let word = try reader.readUInt16("CCFB metric")
                metrics.append(word & 0x8000 == 0 ? .notReceived
                    : Metric(isReceived: true, ecn: UInt8(word >> 13 & 0x3), arrivalTimeOffset: word & 0x1FFF))
            }
            if count % 2 == 1 { try reader.skip(2, "CCFB block padding") }
            blocks.append(ReportBlock(ssrc: ssrc, beginSequence: begin, metrics: metrics))
        }
        guard reader.count == 4 else {
            throw .make(.truncated, "CCFB: \(reader.count) bytes where a report block or the report timestamp should be", offset: reader.offset)
        }
        let timestamp = try reader.readUInt32("CCFB report timestamp")
        return CongestionControlFeedback(senderSSRC: sender, reportBlocks: blocks, reportTimestamp: timestamp)
    }
}
