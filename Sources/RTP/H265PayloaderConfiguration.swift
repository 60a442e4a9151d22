/// How an HEVC access unit becomes RTP payloads (RFC 7798 §4.4, §6). A `Sendable` value: build a new payloader to
/// change it. There is no DONL (`sprop-max-don-diff` = 0, RFC 7798 §7.1): NAL units go in decoding order, which is
/// what every receiver that does not reorder across packets (ffmpeg, GStreamer, libwebrtc) expects.
public struct H265PayloaderConfiguration: Sendable, Equatable {
    public static let defaultMaxPayloadSize = 1200
    /// An FU needs its 2-byte payload header, its 1-byte FU header and at least one byte of data.
    public static let minMaxPayloadSize = 4
    /// A UDP datagram holds 65 507 bytes over IPv4; minus the 12-byte RTP header. Also what an AP's 16-bit NALU
    /// size field can describe.
    public static let maxMaxPayloadSize = 65_495

    /// AP aggregation policy (the same three as for H.264's STAP-A).
    public var aggregation: RTPAggregation
    /// RTP payload bytes per packet (without the 12-byte RTP header). 1200 as libwebrtc.
    public var maxPayloadSize: Int
    /// Put the last VPS, SPS and PPS seen (or given) in front of an IRAP access unit that lacks them (GStreamer's
    /// rtph265pay `config-interval=-1`), so a receiver that joins at any random-access point can decode.
    public var insertParameterSetsBeforeIRAP: Bool

    public init(
        aggregation: RTPAggregation = .zeroLatency, maxPayloadSize: Int = defaultMaxPayloadSize,
        insertParameterSetsBeforeIRAP: Bool = true
    ) {
        self.aggregation = aggregation
        self.maxPayloadSize = maxPayloadSize
        self.insertParameterSetsBeforeIRAP = insertParameterSetsBeforeIRAP
    }
}
