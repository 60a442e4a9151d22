/// How an access unit becomes RTP payloads (RFC 6184 §6). A `Sendable` value: build a new payloader to change it.
public struct H264PayloaderConfiguration: Sendable, Equatable {
    /// RFC 6184 §6.2 / §6.3. Interleaved mode (2) is not supported.
    public enum PacketizationMode: Int, Sendable {
        /// Single NAL unit mode: one NAL unit per packet, nothing else allowed.
        case singleNALUnit = 0
        /// Single NAL unit packets, STAP-A and FU-A.
        case nonInterleaved = 1
    }

    /// STAP-A aggregation policy (shared with RFC 7798's APs).
    public typealias Aggregation = RTPAggregation

    public static let defaultMaxPayloadSize = 1200
    /// FU-A needs its two header bytes and at least one byte of data.
    public static let minMaxPayloadSize = 3
    /// A UDP datagram holds 65 507 bytes over IPv4; minus the 12-byte RTP header.
    public static let maxMaxPayloadSize = 65_495

    public var packetizationMode: PacketizationMode
    public var aggregation: Aggregation
    /// RTP payload bytes per packet (without the 12-byte RTP header). 1200 as libwebrtc; leaves room for IP/UDP,
    /// SRTP and TURN overhead under a 1500-byte MTU.
    public var maxPayloadSize: Int
    /// Put the last SPS and PPS seen (or given) in front of an IDR access unit that lacks them (GStreamer's
    /// `config-interval=-1`), so a receiver that joins at any keyframe can decode.
    public var insertParameterSetsBeforeIDR: Bool

    public init(
        packetizationMode: PacketizationMode = .nonInterleaved, aggregation: Aggregation = .zeroLatency,
        maxPayloadSize: Int = defaultMaxPayloadSize, insertParameterSetsBeforeIDR: Bool = true
    ) {
        self.packetizationMode = packetizationMode
        self.aggregation = aggregation
        self.maxPayloadSize = maxPayloadSize
        self.insertParameterSetsBeforeIDR = insertParameterSetsBeforeIDR
    }
}
