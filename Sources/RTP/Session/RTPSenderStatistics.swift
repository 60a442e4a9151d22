import MediaCore

/// Live numbers of an `RTPSender`.
public struct RTPSenderStatistics: Sendable, Equatable {
    public var packetsSent = 0
    /// Whole RTP packets (headers included).
    public var bytesSent = 0
    /// Over the last second, headers included.
    public var bitrate = 0.0
    /// The pacer's rate in bits/s (the target × the pacing factor); nil when unpaced.
    public var pacingBitrate: Double?
    public var accessUnitsSent = 0
    public var keyframesSent = 0
    public var keyframeRequestsReceived = 0
    /// Requests passed on to the encoder after throttling.
    public var keyframeRequestsForwarded = 0
    public var nackedPackets = 0
    public var packetsRetransmitted = 0
    /// NACKed packets no longer in the history.
    public var retransmissionsMissed = 0
    public var lastBitrateLimit: UInt64?
    public var roundTripTime: Duration?
    public var fractionLost = 0.0
    public var cumulativeLost: Int32 = 0
    /// Seconds.
    public var jitter = 0.0
    public var rtcpPacketsReceived = 0
    /// RTCP from hosts other than the peer, ignored.
    public var rtcpPacketsIgnored = 0
    public var rtcpPacketsMalformed = 0
    /// SRTCP packets from the peer's host that failed authentication or replay checks (SRTP only), dropped.
    public var rtcpPacketsUnauthenticated = 0
    /// ICMP port unreachable reported by the kernel (the peer was not listening).
    public var icmpErrors = 0
    public var sendErrors = 0
    /// Packets dropped because the pacer queue was full (paced mode), or the socket took nothing for 2 s (unpaced).
    public var packetsDropped = 0
    public var queuedPackets = 0
    /// Congestion-control feedback reports (transport-cc, RFC 8888) read, and the packet results they gave for
    /// packets the session still remembered: received and reported lost.
    public var feedbackReports = 0
    public var feedbackPacketsReceived = 0
    public var feedbackPacketsLost = 0
    /// Padding-only packets sent (probes, `enqueuePadding`).
    public var paddingPacketsSent = 0
    /// Probe clusters sent whole (`RTPSendSession.startProbe`).
    public var probeClustersSent = 0
    /// Bytes sent that no feedback covered yet (with transport-wide numbering on).
    public var bytesInFlight = 0
    /// From `enqueue` to the first packet of a frame handed to the driver, over the last 64 frames (nil before the
    /// first): the wait for the pacer and for the driver's next turn.
    public var firstPacketDelay: RecentDurations.Summary?
    /// From `enqueue` to a frame's last packet (the marker) handed to the driver, over the last 64 frames: the
    /// pacer's spreading of the frame included.
    public var lastPacketDelay: RecentDurations.Summary?
    /// Sent packets the history forgot before `pollSentPackets` took them (a driver that asks too rarely).
    public var sentPacketsUnreported = 0
}
