import MediaCore

/// How long recent frames waited in a send session before going out: from `enqueue` to the frame's first packet
/// handed to the driver (the driver's next turn and what the pacer still owed) and to its last, the marker (plus
/// the pacer's spreading of the frame). Fed by every media packet sent, in order; retransmissions and padding are
/// not frames and are not fed.
struct FrameSendDelays: Sendable {
    private(set) var firstPacket = RecentDurations()
    private(set) var lastPacket = RecentDurations()
    /// The RTP timestamp of the frame whose packets went out last.
    private var currentFrame: UInt32?

    /// A media packet of the frame `rtpTimestamp` went out at `now`; `marker` ends the frame (RFC 6184 §5.1).
    mutating func sent(rtpTimestamp: UInt32, marker: Bool, queuedAt: RTPInstant, now: RTPInstant) {
        if rtpTimestamp != currentFrame {
            currentFrame = rtpTimestamp
            firstPacket.record(now - queuedAt)
        }
        if marker { lastPacket.record(now - queuedAt) }
    }
}
