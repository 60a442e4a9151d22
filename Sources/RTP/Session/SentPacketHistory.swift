import MediaCore

/// What the send session remembers of each packet it numbered, for congestion-control feedback: a ring of
/// `capacity` records indexed by the unwrapped transport-wide sequence number, allocated once (recording a packet
/// allocates nothing). A record is forgotten when its slot is reused (2^15 packets later: 60 s at 4.4 Mb/s of
/// 1,200-byte packets) or when it is older than `maxAge` at feedback time; a report about a forgotten packet skips it.
///
/// It also turns both feedback formats into `TransportPacketsFeedback` (pion's feedback adapter, libwebrtc's
/// `TransportFeedbackAdapter`): transport-cc by transport-wide number, RFC 8888 by (SSRC, RTP sequence number)
/// through `rtpIndex`.
struct SentPacketHistory {
    struct Record {
        var packet: SentPacket
        var ssrc: UInt32
        var rtpSequenceNumber: UInt16
        /// A report covered it (received or lost): no longer in flight.
        var reported: Bool
    }

    static let capacity = 1 << 15
    static let maxAge = Duration.seconds(60)

    private var records: [Record?]
    /// For RFC 8888: the transport-wide number of the last packet sent with each RTP sequence number, per SSRC we
    /// send on (media, RTX). Allocated only when that feedback is expected. An array of at most two, not a
    /// dictionary: a dictionary's subscript allocated on every packet even when empty (bench: 2 mallocs a packet).
    private var rtpIndex: [(ssrc: UInt32, numbers: [Int64])] = []
    /// The next transport-wide sequence number (unwrapped: 0, 1, 2, …).
    private(set) var nextSequenceNumber: Int64 = 0
    /// The first packet not yet handed out by `takeSent` (the sent-packet path to a live controller).
    private(set) var nextUntaken: Int64 = 0
    /// Bytes of packets sent that no report has covered yet.
    private(set) var bytesInFlight = 0
    /// The latest reference time of transport-cc feedback, unwrapped (24-bit wire value, 64 ms units).
    private var lastReferenceTime: Int64?
    /// The latest RFC 8888 report timestamp, unwrapped (32 bits, 1/65536 s).
    private var lastReportTimestamp: Int64?

    init(rtpIndexFor ssrcs: [UInt32] = []) {
        records = Array(repeating: nil, count: Self.capacity)
        rtpIndex = ssrcs.map { ($0, Array(repeating: -1, count: 1 << 16)) }
    }

    /// Records a packet that left now; returns its transport-wide number.
    @discardableResult
    mutating func add(ssrc: UInt32, rtpSequenceNumber: UInt16, size: Int, sendTime: Instant, kind: SentPacket.Kind,
                      probeClusterID: Int?) -> Int64 {
        let number = nextSequenceNumber
        nextSequenceNumber += 1
        let slot = Int(number & Int64(Self.capacity - 1))
        if let old = records[slot], !old.reported { bytesInFlight -= old.packet.size }  // forgotten unreported
        records[slot] = Record(packet: SentPacket(sequenceNumber: number, sendTime: sendTime, size: size, kind: kind,
                                                  probeClusterID: probeClusterID),
                               ssrc: ssrc, rtpSequenceNumber: rtpSequenceNumber, reported: false)
        bytesInFlight += size
        for i in rtpIndex.indices where rtpIndex[i].ssrc == ssrc { rtpIndex[i].numbers[Int(rtpSequenceNumber)] = number }
        return number
    }

    /// Appends the packets recorded since the last call to `packets`, in sending order (the records themselves: the
    /// sent-packet path reads the ring and adds nothing per packet to the send). Returns how many were forgotten
    /// before they were taken — the ring reused their slots, so more than `capacity` packets left between two calls.
    mutating func takeSent(into packets: inout [SentPacket]) -> Int {
        let oldest = max(nextUntaken, nextSequenceNumber - Int64(Self.capacity))
        let forgotten = Int(oldest - nextUntaken)
        for number in oldest ..< nextSequenceNumber {
            // Present by construction: a slot holds the newest of the last `capacity` numbers.
            if let record = records[Int(number & Int64(Self.capacity - 1))] { packets.append(record.packet) }
        }
        nextUntaken = nextSequenceNumber
        return forgotten
    }

    /// The 16-bit wire number as the unwrapped number nearest the last one sent.
    func unwrap(_ wire: UInt16) -> Int64 {
        let reference = nextSequenceNumber - 1
        let delta = Int16(bitPattern: wire &- UInt16(truncatingIfNeeded: reference))
        return reference + Int64(delta)
    }

    /// The fate of packet `number` as a report told it, or nil when it was never sent or is forgotten.
    private mutating func result(_ number: Int64, arrival: Instant?, now: Instant) -> PacketResult? {
        guard number >= 0, number < nextSequenceNumber else { return nil }
        let slot = Int(number & Int64(Self.capacity - 1))
        guard var record = records[slot], record.packet.sequenceNumber == number,
              now - record.packet.sendTime <= Self.maxAge else { return nil }
        if !record.reported {
            record.reported = true
            bytesInFlight -= record.packet.size
            records[slot] = record
        }
        return PacketResult(sent: record.packet, arrival: arrival)
    }

    /// A transport-cc report, normalised. Arrival times: the reference time (unwrapped across its 24-bit wrap
    /// against the last report's) plus the deltas, on the receiver's clock.
    mutating func feedback(_ report: TransportCCFeedback, now: Instant) -> TransportPacketsFeedback {
        let reference = Self.unwrap(Int64(report.referenceTime), modulus: TransportCCFeedback.referenceTimeModulus,
                                    near: lastReferenceTime)
        lastReferenceTime = reference
        // Wrapping: only differences between arrivals mean something, and hostile reports can walk the unwrapped
        // reference far (found by the mutation test).
        var arrival = Instant(nanoseconds: reference &* TransportCCFeedback.referenceTimeUnit.nanoseconds)
        let base = unwrap(report.baseSequenceNumber)
        var packets: [PacketResult] = []
        packets.reserveCapacity(report.statuses.count)
        for (index, status) in report.statuses.enumerated() {
            var arrived: Instant?
            if let ticks = status.deltaTicks {
                arrival += TransportCCFeedback.deltaTick * ticks
                arrived = arrival
            }
            if let result = result(base + Int64(index), arrival: arrived, now: now) { packets.append(result) }
        }
        return TransportPacketsFeedback(feedbackTime: now, packets: packets, bytesInFlight: bytesInFlight)
    }

    /// An RFC 8888 report, normalised: the blocks about SSRCs we send on, each packet found by its RTP sequence
    /// number; arrival = report timestamp (unwrapped against the last) − the offset. Packets come out in
    /// transport-wide order.
    mutating func feedback(_ report: CongestionControlFeedback, now: Instant) -> TransportPacketsFeedback {
        let timestamp = Self.unwrap(Int64(report.reportTimestamp), modulus: 1 << 32, near: lastReportTimestamp)
        lastReportTimestamp = timestamp
        // 1/65536 s to ns, wrapping (see the transport-cc case); the remainder part cannot overflow.
        let reportTime = Instant(nanoseconds: (timestamp >> 16) &* 1_000_000_000 &+ ((timestamp & 0xFFFF) * 1_000_000_000) >> 16)
        var found: [(Int64, Instant?)] = []
        for block in report.reportBlocks {
            guard let index = rtpIndex.first(where: { $0.ssrc == block.ssrc })?.numbers else { continue }
            for (offset, metric) in block.metrics.enumerated() {
                let number = index[Int(block.beginSequence &+ UInt16(truncatingIfNeeded: offset))]
                guard number >= 0 else { continue }
                var arrival: Instant?
                if metric.isReceived {
                    // An offset over range or unavailable still says "received"; its time is the report's.
                    arrival = reportTime - (metric.arrivalBeforeReport ?? .zero)
                }
                found.append((number, arrival))
            }
        }
        found.sort { $0.0 < $1.0 }
        var packets: [PacketResult] = []
        for (number, arrival) in found {
            if let result = result(number, arrival: arrival, now: now) { packets.append(result) }
        }
        return TransportPacketsFeedback(feedbackTime: now, packets: packets, bytesInFlight: bytesInFlight)
    }

    /// `value` (modulo `modulus`) as the unwrapped value nearest `previous`.
    static func unwrap(_ value: Int64, modulus: Int64, near previous: Int64?) -> Int64 {
        guard let previous else { return value }
        var delta = (value - previous) % modulus
        if delta < 0 { delta += modulus }
        if delta >= modulus / 2 { delta -= modulus }
        return previous + delta
    }
}
