/// The receiver's congestion-control feedback: arrivals recorded as packets come, reports built when one is due.
///
/// Cadence: one report every `interval` (default 100 ms, libwebrtc's `RemoteEstimatorProxy` default send interval;
/// its bitrate-scaled mode — 50–250 ms so that feedback stays near 5 % of the rate — is not done here) while
/// something arrived that no report covered; a report larger than one datagram should be is split.
struct CongestionFeedbackGenerator: Sendable {
    let format: RTPReceiveSession.CongestionFeedback
    let interval: Duration
    private(set) var arrivals = ArrivalRecorder()
    /// The media SSRC the arrivals are of (RFC 8888 reports per SSRC; transport-cc names it in its header).
    private(set) var mediaSSRC: UInt32?
    private var feedbackPacketCount: UInt8 = 0
    private(set) var lastReport: RTPInstant?

    /// Received packets one transport-cc packet reports at most: ≤ 2 delta bytes each plus chunks stays under
    /// ~1,000 bytes, one datagram.
    static let maxReceivedPerReport = 400

    init(format: RTPReceiveSession.CongestionFeedback, interval: Duration) {
        self.format = format
        self.interval = interval
    }

    /// An RTP packet of the stream arrived (its header, already parsed).
    mutating func record(_ header: RTPHeader, at now: RTPInstant) {
        switch format {
        case .transportCC(let id):
            guard let data = header.extension?.element(id: id), data.count == 2 else { return }
            if mediaSSRC == nil { mediaSSRC = header.ssrc }
            arrivals.record(UInt16(data[data.startIndex]) << 8 | UInt16(data[data.startIndex + 1]), at: now)
        case .rfc8888:
            if mediaSSRC != header.ssrc {
                // A new source: its numbers have nothing to do with the old one's.
                mediaSSRC = header.ssrc
                arrivals = ArrivalRecorder()
            }
            arrivals.record(header.sequenceNumber, at: now)
        }
    }

    /// When the next report is due, if anything waits for one.
    var nextReportTime: RTPInstant? {
        guard arrivals.hasUnreported else { return nil }
        return lastReport.map { $0 + interval } ?? RTPInstant(nanosecondsSinceEpoch: .min)
    }

    /// The reports due at `now` (marshalled RTCP, one datagram each), or none.
    mutating func makeReportsIfDue(senderSSRC: UInt32, now: RTPInstant) -> [[UInt8]] {
        guard let due = nextReportTime, now >= due, let range = arrivals.unreported, let mediaSSRC else { return [] }
        lastReport = now
        let packets: [RTCPPacket] = switch format {
        case .transportCC: transportCC(range, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC).map { .transportCC($0) }
        case .rfc8888: [.congestionControlFeedback(rfc8888(range, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, now: now))]
        }
        arrivals.reported(through: range.upperBound)
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

    /// One RFC 8888 report for `range` of the media SSRC's sequence numbers, timestamped `now`.
    private func rfc8888(_ range: ClosedRange<Int64>, senderSSRC: UInt32, mediaSSRC: UInt32, now: RTPInstant) -> CongestionControlFeedback {
        let upper = min(range.upperBound, range.lowerBound + Int64(CongestionControlFeedback.maxReportsPerBlock) - 1)
        let metrics: [CongestionControlFeedback.Metric] = (range.lowerBound ... upper).map { number in
            guard let arrival = arrivals.arrival(of: number) else { return .notReceived }
            return .received(before: now - arrival)
        }
        let block = CongestionControlFeedback.ReportBlock(
            ssrc: mediaSSRC, beginSequence: UInt16(truncatingIfNeeded: range.lowerBound), metrics: metrics)
        return CongestionControlFeedback(senderSSRC: senderSSRC, reportBlocks: [block], reportTimestamp: NTPTime(now).middle32)
    }
}
