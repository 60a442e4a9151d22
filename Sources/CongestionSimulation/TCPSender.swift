/// A packet-level TCP sender (RFC 5681 slow start, RFC 6582 NewReno fast retransmit and fast recovery with partial
/// ACKs, RFC 6298 RTO with Karn's rule and back-off) with NewReno's or CUBIC's (RFC 9438) congestion avoidance, and
/// its receiver, as the RFC 8867 §5.6/§5.7 cross traffic. Segments are counted in whole packets of `segmentBytes` on the wire; the receiver ACKs
/// every segment cumulatively (no delayed ACKs, no SACK). Sans-IO: the simulator hands in ACKs and timer expiries
/// with the time and sends what `poll` returns.
public struct TCPSender: Sendable {
    /// How the window grows in congestion avoidance and how far it falls on a loss.
    public enum Algorithm: String, Sendable, Hashable {
        /// RFC 5681: +1 segment per RTT, halved on loss.
        case newReno = "newreno"
        /// RFC 9438: W(t) = C·(t − K)³ + W_max with C = 0.4, ×0.7 on loss, never below the Reno-friendly estimate.
        case cubic
    }

    static let cubicC = 0.4
    static let cubicBeta = 0.7

    public let algorithm: Algorithm
    /// CUBIC's state: the window before the last reduction, when the epoch began, and the Reno-friendly estimate.
    private var windowMax = 0.0
    private var epochStart: Int64?
    private var renoEstimate = 0.0
    /// Bytes on the wire per data segment (MTU-sized, RFC 8868 §5).
    public static let segmentBytes = 1500
    public static let ackBytes = 40
    /// RFC 6928's initial window.
    public static let initialWindow = 10.0
    /// Linux's `tcp_rto_min`, a floor under the variance term: RTO = SRTT + max(4·RTTVAR, 200 ms). With RFC 6298's
    /// plain SRTT + 4·RTTVAR a steady 400 ms RTT (a full 300 ms queue) has RTTVAR near 0, and the timer fires just
    /// before a fast retransmission's ACK can come back — every loss would become a timeout.
    public static let minimumRTO: Int64 = 200_000_000
    public static let maximumRTO: Int64 = 60_000_000_000

    /// Congestion window, segments.
    public private(set) var congestionWindow = TCPSender.initialWindow
    public private(set) var slowStartThreshold = Double.greatestFiniteMagnitude
    /// The oldest unacknowledged segment.
    public private(set) var unacknowledged: Int64 = 0
    /// The next new segment to send.
    public private(set) var nextSegment: Int64 = 0
    /// Segments the application has asked to send in total (`.max` for a long-lived flow).
    public private(set) var limit: Int64
    private var duplicateACKs = 0
    private var recoveryPoint: Int64?
    private var smoothedRTT: Double?
    private var rttVariation = 0.0
    public private(set) var retransmissionTimeout: Int64 = 1_000_000_000
    /// When the retransmission timer fires (nil: nothing outstanding).
    public private(set) var timerDeadline: Int64?
    /// Send times of segments sent once (Karn: a retransmitted segment gives no RTT sample).
    private var sendTimes: [Int64: Int64] = [:]
    private var retransmitQueue: [Int64] = []
    public private(set) var retransmissions = 0
    public private(set) var timeouts = 0

    public init(segments: Int64 = .max, algorithm: Algorithm = .newReno) {
        limit = segments
        self.algorithm = algorithm
    }

    /// True when every segment of a finite transfer is acknowledged.
    public var isComplete: Bool { limit != .max && unacknowledged >= limit }

    /// Starts a new transfer of `segments` more (an on/off flow's next file), from a fresh window, as a new connection.
    public mutating func startTransfer(segments: Int64) {
        limit = nextSegment + segments
        unacknowledged = nextSegment
        congestionWindow = Self.initialWindow
        slowStartThreshold = .greatestFiniteMagnitude
        duplicateACKs = 0
        recoveryPoint = nil
        retransmitQueue.removeAll()
        epochStart = nil
        windowMax = 0
    }

    private var inFlight: Int64 { nextSegment - unacknowledged }

    /// Segments to send now: retransmissions first, then new data within the window.
    public mutating func poll(at now: Int64) -> [Int64] {
        var out = retransmitQueue
        retransmitQueue.removeAll()
        while Double(inFlight) < congestionWindow.rounded(.down), nextSegment < limit {
            sendTimes[nextSegment] = now
            out.append(nextSegment)
            nextSegment += 1
        }
        if !out.isEmpty && timerDeadline == nil { timerDeadline = now + retransmissionTimeout }
        return out
    }

    /// A cumulative ACK arrived: `next` is the receiver's next expected segment.
    public mutating func receiveACK(next: Int64, at now: Int64) {
        if next > unacknowledged {
            let newlyAcked = Double(next - unacknowledged)
            if let sent = sendTimes[next - 1] { sampleRTT(Double(now - sent)) }
            for segment in unacknowledged ..< min(next, unacknowledged + 100_000) { sendTimes[segment] = nil }
            unacknowledged = next
            if nextSegment < unacknowledged { nextSegment = unacknowledged }
            duplicateACKs = 0
            if let recover = recoveryPoint {
                if next > recover {
                    congestionWindow = slowStartThreshold  // full ACK: leave fast recovery (RFC 6582 §3.2 step 3)
                    recoveryPoint = nil
                } else {
                    // Partial ACK: retransmit the next hole, deflate by the amount acknowledged, add one back.
                    retransmit(next)
                    congestionWindow = max(1, congestionWindow - newlyAcked + 1)
                }
            } else if congestionWindow < slowStartThreshold {
                congestionWindow += newlyAcked
            } else if algorithm == .cubic {
                growCubic(acked: newlyAcked, at: now)
            } else {
                congestionWindow += newlyAcked / congestionWindow
            }
            timerDeadline = inFlight > 0 ? now + retransmissionTimeout : nil
        } else if next == unacknowledged, inFlight > 0 {
            duplicateACKs += 1
            if duplicateACKs == 3, recoveryPoint == nil {
                slowStartThreshold = reducedWindow()
                recoveryPoint = nextSegment - 1
                retransmit(unacknowledged)
                congestionWindow = slowStartThreshold + 3
                timerDeadline = now + retransmissionTimeout  // rearmed on the fast retransmit, as Linux does
            } else if duplicateACKs > 3, recoveryPoint != nil {
                congestionWindow += 1
            }
        }
    }

    /// The retransmission timer fired at `now` (ignored unless it is the deadline in force).
    public mutating func timerExpired(at now: Int64) {
        guard let deadline = timerDeadline, now >= deadline, inFlight > 0 else { return }
        timeouts += 1
        slowStartThreshold = reducedWindow()
        congestionWindow = 1
        recoveryPoint = nil
        duplicateACKs = 0
        // Go back N: everything after the hole is sent again as the window reopens; no RTT samples from them.
        for segment in unacknowledged ..< min(nextSegment, unacknowledged + 100_000) { sendTimes[segment] = nil }
        nextSegment = unacknowledged + 1
        retransmit(unacknowledged)
        retransmissionTimeout = min(Self.maximumRTO, retransmissionTimeout * 2)
        timerDeadline = now + retransmissionTimeout
    }

    /// The window after a loss: half the flight (NewReno), or 0.7 × the window with CUBIC's new epoch.
    private mutating func reducedWindow() -> Double {
        guard algorithm == .cubic else { return max(Double(inFlight) / 2, 2) }
        // RFC 9438 §4.7 fast convergence: a flow whose maximum shrank releases bandwidth to newcomers.
        windowMax = congestionWindow < windowMax ? congestionWindow * (1 + Self.cubicBeta) / 2 : congestionWindow
        epochStart = nil
        return max(congestionWindow * Self.cubicBeta, 2)
    }

    /// RFC 9438 §4.2–4.3: the cubic target one RTT ahead, approached by (target − cwnd)/cwnd per ACKed segment,
    /// never below the Reno-friendly estimate.
    private mutating func growCubic(acked: Double, at now: Int64) {
        let rtt = (smoothedRTT ?? 100_000_000) / 1e9
        if epochStart == nil {
            epochStart = now
            if windowMax < congestionWindow { windowMax = congestionWindow }
            renoEstimate = congestionWindow
        }
        let t = Double(now - epochStart!) / 1e9
        let k = Self.cubeRoot(windowMax * (1 - Self.cubicBeta) / Self.cubicC)
        let offset = t + rtt - k
        let target = Self.cubicC * offset * offset * offset + windowMax
        if target > congestionWindow {
            congestionWindow += min(target - congestionWindow, congestionWindow / 2) / congestionWindow * acked
        } else {
            congestionWindow += 0.01 * acked / congestionWindow
        }
        renoEstimate += 3 * (1 - Self.cubicBeta) / (1 + Self.cubicBeta) * acked / congestionWindow
        congestionWindow = max(congestionWindow, renoEstimate)
    }

    /// ∛x for x ≥ 0 by Newton's iteration (no libm, so runs match across platforms).
    static func cubeRoot(_ x: Double) -> Double {
        guard x > 0 else { return 0 }
        var y = max(1, x / 3)
        for _ in 0 ..< 100 {
            let next = (2 * y + x / (y * y)) / 3
            if abs(next - y) <= 1e-12 * y { return next }
            y = next
        }
        return y
    }

    private mutating func retransmit(_ segment: Int64) {
        sendTimes[segment] = nil
        retransmitQueue.append(segment)
        retransmissions += 1
    }

    /// RFC 6298 §2: SRTT, RTTVAR, RTO = SRTT + 4·RTTVAR, floored.
    private mutating func sampleRTT(_ rtt: Double) {
        if let srtt = smoothedRTT {
            rttVariation = 0.75 * rttVariation + 0.25 * abs(srtt - rtt)
            smoothedRTT = 0.875 * srtt + 0.125 * rtt
        } else {
            smoothedRTT = rtt
            rttVariation = rtt / 2
        }
        let rto = Int64(smoothedRTT! + max(4 * rttVariation, Double(Self.minimumRTO)))
        retransmissionTimeout = min(Self.maximumRTO, rto)
    }
}

/// The receiving end: cumulative ACK of the next expected segment, holding out-of-order segments.
public struct TCPReceiver: Sendable {
    public private(set) var expected: Int64 = 0
    private var outOfOrder: Set<Int64> = []

    public init() {}

    /// A data segment arrived; returns the cumulative ACK to send.
    public mutating func receive(segment: Int64) -> Int64 {
        if segment == expected {
            expected += 1
            while outOfOrder.remove(expected) != nil { expected += 1 }
        } else if segment > expected {
            outOfOrder.insert(segment)
        }
        return expected
    }
}
