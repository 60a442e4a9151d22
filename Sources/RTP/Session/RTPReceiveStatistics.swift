/// What a receiver counted: the session's (`RTPReceiveSession.statistics`) and, for the SRTP fields, its driver's
/// (`RTPReceiver.statistics` adds them: the session only ever sees plaintext).
public struct RTPReceiveStatistics: Sendable, Equatable {
    public var packetsReceived = 0
    public var bytesReceived = 0
    public var accessUnits = 0
    public var accessUnitsDropped = 0
    public var packetsLost = 0
    public var malformedPackets = 0
    public var otherPayloadTypes = 0
    /// Packets of the configured payload type that are plainly another codec's: H.265 parameter sets received as
    /// H.264 (`OtherCodecPayload`). Depacketized as configured all the same; the owner decides (`rtenc receive` stops
    /// and says which `--codec` to give).
    public var otherCodecPackets = 0
    public var nacksSent = 0
    public var pictureLossIndicationsSent = 0
    /// The PLIs sent, by why they were wanted (the counts add up to `pictureLossIndicationsSent`).
    public var pictureLossReasons: [PictureRecovery.Reason: Int] = [:]
    /// Sequence numbers NACKed before the first packet seen, because it came without the parameter sets that
    /// begin a stream (`StartOfStreamNACK`), and how many of them came back.
    public var startPacketsRequested = 0
    public var startPacketsRecovered = 0
    public var senderReports = 0
    public var goodbyeReceived = false
    /// Congestion-control feedback packets sent (transport-cc or RFC 8888).
    public var congestionFeedbackSent = 0
    /// SRTP/SRTCP packets whose authentication tag did not match (forged, corrupted, another key): dropped.
    public var authenticationFailures = 0
    /// SRTP/SRTCP packets already received or older than the replay window (RFC 3711 §3.3.2): dropped.
    public var replayedPackets = 0

    public init() {}
}
