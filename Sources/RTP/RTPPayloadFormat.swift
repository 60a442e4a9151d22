import MediaCore

/// One RTP payload format as the codec-neutral depacketizer (`AccessUnitDepacketizer`) reads it: the codec, and how
/// one payload splits into whole NAL units or a fragment of one. RFC 6184 (`H264PayloadFormat`) and RFC 7798
/// (`H265PayloadFormat`) are the two.
public protocol RTPPayloadFormat: Sendable {
    static var codec: VideoCodec { get }
    /// Reads one payload. Slices of the input where the format allows.
    /// - Throws: `.malformedPayload`, `.truncated`, `.limitExceeded`, `.unsupported` for what breaks the format.
    static func content(of payload: ArraySlice<UInt8>) throws(RTPError) -> RTPPayloadContent
    /// The NAL unit type that begins a stream a receiver can join (H.264's SPS, HEVC's VPS): a packet starting one
    /// ends the wait for packets before the first one seen (`expectEarlierPackets`).
    static var streamStartNALUnitType: UInt8 { get }
}

/// What one RTP payload holds, codec-neutrally: whole NAL units (single NAL unit packet or aggregate), or a fragment.
public enum RTPPayloadContent: Sendable {
    case single(ArraySlice<UInt8>)
    case aggregate([ArraySlice<UInt8>])
    /// One fragment of a NAL unit; `nalHeader` is the unit's rebuilt header (1 byte for H.264, 2 for HEVC), which
    /// goes in front of the first fragment's data.
    case fragment(nalHeader: RebuiltNALHeader, start: Bool, end: Bool, data: ArraySlice<UInt8>)

    /// The types of the NAL units that begin in this payload (none for a fragment after the first).
    func startingNALUnitTypes(_ codec: VideoCodec) -> [UInt8] {
        let type = { (unit: ArraySlice<UInt8>) in unit.first.map { codec.nalUnitType(firstByte: $0) } }
        switch self {
        case .single(let unit): return type(unit).map { [$0] } ?? []
        case .aggregate(let units): return units.compactMap(type)
        case .fragment(let header, let start, _, _): return start ? [codec.nalUnitType(firstByte: header.first)] : []
        }
    }
}

/// The NAL unit header a fragmentation unit rebuilds from its own headers: one or two bytes, without an allocation.
public struct RebuiltNALHeader: Sendable, Equatable {
    public let first: UInt8
    public let second: UInt8?

    public init(_ first: UInt8, _ second: UInt8? = nil) {
        self.first = first
        self.second = second
    }

    var count: Int { second == nil ? 1 : 2 }
}

/// RFC 6184 (H.264) for the codec-neutral depacketizer: `H264Payload` read, the SPS as the start of a stream.
public enum H264PayloadFormat: RTPPayloadFormat {
    public static var codec: VideoCodec { .h264 }
    public static var streamStartNALUnitType: UInt8 { 7 }  // SPS

    public static func content(of payload: ArraySlice<UInt8>) throws(RTPError) -> RTPPayloadContent {
        switch try H264Payload(parsing: payload) {
        case .single(let unit): .single(unit)
        case .aggregate(let units): .aggregate(units)
        case .fragment(let header, let start, let end, let data): .fragment(nalHeader: RebuiltNALHeader(header), start: start, end: end, data: data)
        }
    }
}

/// RFC 7798 (HEVC) for the codec-neutral depacketizer: `H265Payload` read, the VPS as the start of a stream.
public enum H265PayloadFormat: RTPPayloadFormat {
    public static var codec: VideoCodec { .hevc }
    public static var streamStartNALUnitType: UInt8 { 32 }  // VPS_NUT

    public static func content(of payload: ArraySlice<UInt8>) throws(RTPError) -> RTPPayloadContent {
        switch try H265Payload(parsing: payload) {
        case .single(let unit): .single(unit)
        case .aggregate(let units): .aggregate(units)
        case .fragment(let header, let start, let end, let data):
            .fragment(nalHeader: RebuiltNALHeader(header.bytes.0, header.bytes.1), start: start, end: end, data: data)
        }
    }
}
