import MediaCore

/// The BYE linger, and the rule that skips it when nobody listens.
///
/// After `close` the BYE waits `goodbyeDelay` from the moment the queue drained: a receiver may still be reading the
/// last packets, and one that sees the BYE first may stop early (ffmpeg ends its input on a BYE). Nobody reads when
/// **no RTCP ever came from the peer** (a receiver that reports — from the start or joined late — always gets its
/// linger) **and the peer's host refused a datagram after the last one the socket took** (ICMP port unreachable:
/// reported by a send, found pending on the socket, or drawn by a refusal probe). Then the BYE goes at once.
///
/// Refusal probes: hosts rate-limit ICMP errors (Linux: per destination host 1 a second after a burst of 6,
/// `icmp_ratelimit`; host-wide 1000 a second in 20 ms steps after a burst of 50, `icmp_msgs_per_sec`, on older
/// kernels for loopback too), so after a burst to a closed port the last datagrams often draw no refusal and a verdict
/// on them alone kept the whole linger for nobody. So when the stream was refused before (`icmpErrors` > 0) but not
/// after its last datagrams, the session asks its driver for a probe (`refusalProbeIsDue`): one empty UDP datagram to
/// the peer's RTP port — RFC 6263 §4.1's keepalive, which an RTP receiver drops as no RTP packet (RFC 3550 §A.1;
/// measured: ffmpeg decodes on silently, GStreamer's `rtph264depay` warns "Received invalid RTP payload, dropping") —
/// at the linger's start and `refusalProbeOffsets` after it, while the linger lasts. A refusal of one ends the
/// linger; a receiver that reads gets at most three empty datagrams and its whole linger. A refusal seen some time
/// during the stream is not enough on its own: a receiver started late that sends no RTCP (a plain `udpsrc`) reads
/// the end of the stream and would lose its linger.
extension RTPSendSession {
    /// When the refusal probes go, from the linger's start: at once, after the host-wide ICMP budget's next refill
    /// (20 ms steps) with room to spare, and after the per-host one (1 s).
    public static let refusalProbeOffsets: [Duration] = [.zero, .milliseconds(100), .milliseconds(1100)]

    /// The peer's host refused our datagrams (ICMP port unreachable, reported by a send or found pending on the
    /// socket): nobody listens there, for now. Counted in `icmpErrors` and warned about once; the stream goes on.
    /// Report it before `didTransmit(0, …)` when a send came back refused.
    public mutating func peerRefused(at now: RTPInstant, peer: String = "peer") {
        observe(now)
        stats.icmpErrors += 1
        refusedAfterLastSend = true
        warnOnce(.peerNotListening, "\(peer) not listening (ICMP port unreachable); still sending")
    }

    /// True while the session lingers before its BYE and a refusal would end that early (nothing sent is pending,
    /// no RTCP ever came, no refusal seen since the last datagram taken): a driver whose socket reports refusals only
    /// on request (SO_ERROR) should check and call `peerRefused` — the BYE linger is for a receiver still reading,
    /// and nobody does.
    public var wantsRefusalCheck: Bool {
        closeDeadline != nil && !isClosed && queue.isEmpty && outstanding == nil && stats.rtcpPacketsReceived == 0 && !refusedAfterLastSend
    }

    /// True when the driver should send a refusal probe now: an empty datagram to the peer's RTP port (on the
    /// socket that reports its refusals), then `didSendRefusalProbe`, then the usual check. Only while lingering
    /// with a refusal seen earlier in the stream and none since the last datagram (see the type's rule).
    public func refusalProbeIsDue(at now: RTPInstant) -> Bool {
        refusalProbeTime.map { now >= $0 } ?? false
    }

    /// The driver sent the probe that was due (or tried: a send that failed counts too, so the next one is later).
    public mutating func didSendRefusalProbe(at now: RTPInstant) {
        observe(now)
        refusalProbesSent += 1
    }

    /// When the next probe is due, for `nextTimeout`: only after the driver sent one, so a driver that never probes
    /// (no socket that reports refusals) is not woken for them.
    var nextRefusalProbe: RTPInstant? { refusalProbesSent > 0 ? refusalProbeTime : nil }

    /// When the next probe is due: nil when none is wanted (see the type's rule), all were sent, or the linger ends
    /// first.
    private var refusalProbeTime: RTPInstant? {
        guard wantsRefusalCheck, stats.icmpErrors > 0, let drainedAt, let deadline = closeDeadline,
              refusalProbesSent < Self.refusalProbeOffsets.count else { return nil }
        let due = drainedAt + Self.refusalProbeOffsets[refusalProbesSent]
        return due < min(drainedAt + configuration.goodbyeDelay, deadline) ? due : nil
    }

    /// The BYE linger: `goodbyeDelay` after the queue drained (at the deadline at the latest), at once when
    /// nobody listens.
    mutating func goodbyeIsDue(now: RTPInstant) -> Bool {
        guard let deadline = closeDeadline else { return false }
        if queue.isEmpty, drainedAt == nil { drainedAt = now }
        guard let drainedAt else { return now >= deadline }
        if queue.isEmpty, refusedAfterLastSend, stats.rtcpPacketsReceived == 0 { return true }
        return now >= min(drainedAt + configuration.goodbyeDelay, deadline)
    }
}
