import MediaCore

extension RTPSendSession {
    /// Bytes waiting in the queue for the pacer (RTP headers and payloads; retransmissions and padding included).
    public var queuedBytes: Int { queue.bytes }

    /// How long what is queued now takes to leave at the pacing rate: the wait of the last packet queued (libwebrtc's
    /// `PacingController::ExpectedQueueTime`, queue size over pacing rate). A live encoder reads it to push back when
    /// it makes more than the pacer lets out (`QueuePushback` and `FrameDecider` in CongestionControl). Nil when
    /// unpaced (nothing waits for a pacer). Pure: no clock, computed from the queue and the rate in force.
    public var expectedQueueTime: Duration? {
        guard paced, let rate = pacer.pacingRate, rate > 0 else { return nil }
        // bytes / (bytes per second): at most 2^63 ns for any queue that fits in memory at ≥ 1 B/s.
        return .nanoseconds(Int64(min(Double(queue.bytes) / rate * 1e9, Double(Int64.max))))
    }

    /// Gives up what is queued: drops it (counted in `packetsDropped`) and retransmits nothing sent before `now`, so
    /// NACKs for the abandoned pictures do not fill the queue again (they are answered as missed). For a live sender
    /// whose queue grew far past any useful latency (a retransmission storm into a narrow link): the caller sends an
    /// IDR next, which needs none of it. Returns how many packets were dropped (none while a batch is out).
    @discardableResult
    public mutating func flushQueue(at now: RTPInstant) -> Int {
        observe(now)
        retransmitsSentAfter = now
        retransmissionRequests.removeAll()
        return dropUnsent()
    }
}
