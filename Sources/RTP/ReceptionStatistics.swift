/// What a receiver knows about one RTP source, and the report block it derives (RFC 3550 §6.4.1, A.1, A.3, A.8).
///
/// Simplified A.1: no probation; a jump of more than `maxDropout` ahead or `maxMisorder` behind restarts the
/// sequence state (the source restarted), as the RFC's `bad_seq` logic would after two packets.
package struct ReceptionStatistics: Sendable {
    package static let maxDropout: UInt16 = 3000
    package static let maxMisorder: UInt16 = 100

    package let ssrc: UInt32
    package let clockRate: Int64

    package private(set) var packetsReceived: Int64 = 0
    private var started = false
    private var baseSequence: UInt32 = 0
    private var maxSequence: UInt16 = 0
    private var cycles: UInt32 = 0
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0
    private var lastTransit: Int64?
    /// Interarrival jitter J in timestamp units, kept as a Double; A.8's integer form loses the low bits.
    package private(set) var jitter: Double = 0
    private var lastSenderReport: (ntp: NTPTime, arrival: RTPInstant)?

    package init(ssrc: UInt32, clockRate: Int64 = RTPClock.h264ClockRate) {
        self.ssrc = ssrc
        self.clockRate = clockRate
    }

    package var extendedHighestSequenceNumber: UInt32 { cycles &+ UInt32(maxSequence) }

    /// Packets expected minus packets received since the start (RFC 3550 A.3); negative with duplicates.
    package var cumulativeLost: Int64 {
        guard started else { return 0 }
        return Int64(extendedHighestSequenceNumber) - Int64(baseSequence) + 1 - packetsReceived
    }

    package mutating func received(sequenceNumber: UInt16, rtpTimestamp: UInt32, arrival: RTPInstant) {
        defer { updateJitter(rtpTimestamp: rtpTimestamp, arrival: arrival) }
        guard started else {
            restart(at: sequenceNumber)
            return
        }
        let delta = sequenceNumber &- maxSequence
        if delta < Self.maxDropout {
            if sequenceNumber < maxSequence { cycles &+= 1 << 16 }
            maxSequence = sequenceNumber
        } else if delta <= UInt16.max - Self.maxMisorder {
            restart(at: sequenceNumber)  // a big jump: the source restarted its numbering
            return
        }
        // else: a late or duplicate packet within maxMisorder, counted but not moving the maximum.
        packetsReceived += 1
    }

    private mutating func restart(at sequenceNumber: UInt16) {
        started = true
        baseSequence = UInt32(sequenceNumber)
        maxSequence = sequenceNumber
        cycles = 0
        packetsReceived = 1
        expectedPrior = 0
        receivedPrior = 0
    }

    /// A.8: D(i-1,i) = (Rj - Ri) - (Sj - Si) in timestamp units; J += (|D| - J) / 16.
    private mutating func updateJitter(rtpTimestamp: UInt32, arrival: RTPInstant) {
        // ns × rate formed in 128 bits: no overflow for any Int64 time.
        let (arrivalUnits, _) = Int64(1_000_000_000).dividingFullWidth(arrival.nanosecondsSinceEpoch.multipliedFullWidth(by: clockRate))
        let transit = arrivalUnits - Int64(rtpTimestamp)
        if let last = lastTransit {
            // RTP timestamps wrap at 2^32; fold the difference back into ±2^31.
            let d = Double(Int32(truncatingIfNeeded: transit - last).magnitude)
            jitter += (d - jitter) / 16
        }
        lastTransit = transit
    }

    package mutating func senderReportReceived(_ ntp: NTPTime, at arrival: RTPInstant) {
        lastSenderReport = (ntp, arrival)
    }

    /// The report block for this source, and the start of the next reporting interval (A.3).
    package mutating func makeReportBlock(now: RTPInstant) -> ReportBlock {
        let expected = started ? Int64(extendedHighestSequenceNumber) - Int64(baseSequence) + 1 : 0
        let expectedInterval = expected - expectedPrior
        let receivedInterval = packetsReceived - receivedPrior
        expectedPrior = expected
        receivedPrior = packetsReceived
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 = expectedInterval <= 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        var lsr: UInt32 = 0
        var dlsr: UInt32 = 0
        if let sr = lastSenderReport {
            lsr = sr.ntp.middle32
            let delay = max(0, (now - sr.arrival).nanoseconds)
            dlsr = UInt32(truncatingIfNeeded: delay * 65536 / 1_000_000_000)
        }
        return ReportBlock(
            ssrc: ssrc, fractionLost: fraction,
            cumulativeLost: Int32(clamping: cumulativeLost), extendedHighestSequenceNumber: extendedHighestSequenceNumber,
            jitter: UInt32(jitter), lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }
}
