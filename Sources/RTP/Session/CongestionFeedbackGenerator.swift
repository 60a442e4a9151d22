/// The receiver's congestion-control feedback: arrivals recorded as packets come, reports built when one is due.
///
/// Cadence: one report every `interval` (default 100 ms, libwebrtc's `RemoteEstimatorProxy` default send interval;
/// its bitrate-scaled mode — 50–250 ms so that feedback stays near 5 % of the rate — is not done here) while
/// something arrived that no report covered; a report larger than one datagram should be is split.
struct CongestionFeedbackGenerator: Sendable {
    let format: RTPReceiveSession.CongestionFeedback
    let interval: Duration
    /// Transport-cc: by transport-wide number.
    private(set) var arrivals = ArrivalRecorder()
    /// RFC 8888: by RTP sequence number, per SSRC (media and RTX, every stream that arrives, up to
    /// `maxStreams`), in the order they first arrived.
    private var streams: [(ssrc: UInt32, arrivals: ArrivalRecorder)] = []
    /// The media SSRC transport-cc names in its header (the first stream seen).
    private(set) var mediaSSRC: UInt32?
    private var feedbackPacketCount: UInt8 = 0
    private(set) var lastReport: RTPInstant?

    /// Received packets one transport-cc packet reports at most: ≤ 2 delta bytes each plus chunks stays under
    /// ~1,000 bytes, one datagram.
    static let maxReceivedPerReport = 400
    /// RFC 8888 streams reported on at most (media + RTX, with room); packets of further SSRCs are not.
    static let maxStreams = 4

    init(format: RTPReceiveSession.CongestionFeedback, interval: Duration) {
        self.format = format
        self.interval = interval
    }

    /// An RTP packet arrived (its header, already parsed).
    mutating func record(_ header: RTPHeader, at now: RTPInstant) {
        switch format {
        case .transportCC(let id):
            guard let data = header.extension?.element(id: id), data.count == 2 else { return }
            if mediaSSRC == nil { mediaSSRC = header.ssrc }
            arrivals.record(UInt16(data[data.startIndex]) << 8 | UInt16(data[data.startIndex + 1]), at: now)
        case .rfc8888:
            if let index = streams.firstIndex(where: { $0.ssrc == header.ssrc }) {
                streams[index].arrivals.record(header.sequenceNumber, at: now)
            } else if streams.count < Self.maxStreams {
                var recorder = ArrivalRecorder()
                recorder.record(header.sequenceNumber, at: now)
                streams.append((header.ssrc, recorder))
            }
        }
    }

    private var hasUnreported: Bool {
        switch format {
        case .transportCC: arrivals.hasUnreported
        case .rfc8888: streams.contains { $0.arrivals.hasUnreported }
        }
    }

    /// When the next report is due, if anything waits for one.
    var nextReportTime: RTPInstant? {
        guard hasUnreported else { return nil }
        return lastReport.map { $0 + interval } ?? RTPInstant(nanosecondsSinceEpoch: .min)
    }

    /// The reports due at `now` (marshalled RTCP, one datagram each), or none.
    mutating func makeReportsIfDue(senderSSRC: UInt32, now: RTPInstant) -> [[UInt8]] {
        guard let due = nextReportTime, now >= due else { return [] }
        lastReport = now
        var packets: [RTCPPacket] = []
        switch format {
        case .transportCC:
            guard let range = arrivals.unreported, let mediaSSRC else { return [] }
            packets = transportCC(range, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC).map { .transportCC($0) }
            arrivals.reported(through: range.upperBound)
        case .rfc8888:
            var blocks: [CongestionControlFeedback.ReportBlock] = []
            for index in streams.indices {
                guard let range = streams[index].arrivals.unreported else { continue }
                let block = Self.reportBlock(range, of: streams[index], now: now)
                streams[index].arrivals.reported(through: range.lowerBound + Int64(block.metrics.count) - 1)
                blocks.append(block)
            }
            packets = [.congestionControlFeedback(CongestionControlFeedback(
                senderSSRC: senderSSRC, reportBlocks: blocks, reportTimestamp: NTPTime(now).middle32))]
        }
        // Our reports fit their fields by construction (≤ 65535 statuses, ≤ 16384 metrics); a failed marshal sends nothing.
        return packets.compactMap { try? $0.marshal() }
    }

    /// Transport-cc packets for `range`: the reference time is the first arrival's, rounded down to 64 ms; each
    /// delta is rounded to the nearest 250 µs and the running time advances by the rounded value (libwebrtc's
    /// `TransportFeedback::AddReceivedPacket`), so rounding never accumulates. A new packet starts where a delta
    /// does not fit 16 bits or the packet is full.
    private mutating func transportCC(_ range: ClosedRange<Int64>, senderSSRC: UInt32, mediaSSRC: UInt32) -> [TransportCCFeedback] {
        var reports: [TransportCCFeedback] = []
        var number = range.lowerBound
        while number <= range.upperBound {
            // The first arrival at or after `number` sets the reference time.
            var first = number
            while first <= range.upperBound, arrivals.arrival(of: first) == nil { first += 1 }
            guard let firstArrival = arrivals.arrival(of: first) else { break }
            let unit = TransportCCFeedback.referenceTimeUnit.nanoseconds
            let referenceUnits = firstArrival.nanosecondsSinceEpoch / unit
            var last = referenceUnits * unit
            var statuses: [TransportCCFeedback.PacketStatus] = []
            var received = 0
            let base = number
            while number <= range.upperBound, received < Self.maxReceivedPerReport {
                guard let arrival = arrivals.arrival(of: number) else {
                    statuses.append(.notReceived)
                    number += 1
                    continue
                }
                let tick = TransportCCFeedback.deltaTick.nanoseconds
                let difference = arrival.nanosecondsSinceEpoch - last
                let ticks = (difference + (difference < 0 ? -tick / 2 : tick / 2)) / tick
                guard let status = TransportCCFeedback.PacketStatus.received(deltaTicks: Int(ticks)) else { break }
                statuses.append(status)
                last += ticks * tick
                received += 1
                number += 1
            }
            reports.append(TransportCCFeedback(
                senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: UInt16(truncatingIfNeeded: base),
                referenceTime: UInt32(truncatingIfNeeded: referenceUnits) & 0xFF_FFFF, feedbackPacketCount: feedbackPacketCount,
                statuses: statuses))
            feedbackPacketCount &+= 1
        }
        return reports
    }

    /// The RFC 8888 block for `range` of one stream's sequence numbers (at most `maxReportsPerBlock`; the rest
    /// goes in the next report), against the report timestamp `now`.
    private static func reportBlock(_ range: ClosedRange<Int64>, of stream: (ssrc: UInt32, arrivals: ArrivalRecorder),
                                    now: RTPInstant) -> CongestionControlFeedback.ReportBlock {
        let upper = min(range.upperBound, range.lowerBound + Int64(CongestionControlFeedback.maxReportsPerBlock) - 1)
        let metrics: [CongestionControlFeedback.Metric] = (range.lowerBound ... upper).map { number in
            guard let arrival = stream.arrivals.arrival(of: number) else { return .notReceived }
            return .received(before: now - arrival)
        }
        return CongestionControlFeedback.ReportBlock(
            ssrc: stream.ssrc, beginSequence: UInt16(truncatingIfNeeded: range.lowerBound), metrics: metrics)
    }
}
