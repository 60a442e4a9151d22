import MediaCore

/// The receive session's depacketizer for the codec it was configured with: RFC 6184's (`H264Depacketizer`) or RFC
/// 7798's (`H265Depacketizer`), the same generic `AccessUnitDepacketizer` over each payload format. Exactly one of
/// the two is set; calls go to it through optional chaining, which mutates it in place (no copy of its buffers).
struct CodecDepacketizer: Sendable {
    private var h264: H264Depacketizer?
    private var h265: H265Depacketizer?
    let codec: VideoCodec

    init(codec: VideoCodec, reorderWindow: Int, maxReorderDelay: Duration?) {
        self.codec = codec
        switch codec {
        case .h264: h264 = H264Depacketizer(reorderWindow: reorderWindow, maxReorderDelay: maxReorderDelay)
        case .hevc: h265 = H265Depacketizer(reorderWindow: reorderWindow, maxReorderDelay: maxReorderDelay)
        }
    }

    /// One payload read as the codec's payload format.
    func content(of payload: ArraySlice<UInt8>) throws(RTPError) -> RTPPayloadContent {
        switch codec {
        case .h264: try H264PayloadFormat.content(of: payload)
        case .hevc: try H265PayloadFormat.content(of: payload)
        }
    }

    var nextDeadline: RTPInstant? { h264?.nextDeadline ?? h265?.nextDeadline }
    var missingSequenceNumbers: [Int64] { h264?.missingSequenceNumbers ?? h265?.missingSequenceNumbers ?? [] }
    var latePackets: Int { h264?.latePackets ?? h265?.latePackets ?? 0 }
    var duplicatePackets: Int { h264?.duplicatePackets ?? h265?.duplicatePackets ?? 0 }
    var awaitsFirstPacket: Bool { h264?.awaitsFirstPacket ?? h265?.awaitsFirstPacket ?? false }
    var isAwaitingEarlierPackets: Bool { h264?.isAwaitingEarlierPackets ?? h265?.isAwaitingEarlierPackets ?? false }

    mutating func expectEarlierPackets(_ count: Int, before sequenceNumber: UInt16, until deadline: RTPInstant?) -> [UInt16] {
        h264?.expectEarlierPackets(count, before: sequenceNumber, until: deadline)
            ?? h265?.expectEarlierPackets(count, before: sequenceNumber, until: deadline) ?? []
    }

    mutating func push(_ packet: RTPPacket, arrival: RTPInstant?, events: (DepacketizerEvent) -> Void) {
        h264?.push(packet, arrival: arrival, events: events)
        h265?.push(packet, arrival: arrival, events: events)
    }

    mutating func expire(now: RTPInstant, events: (DepacketizerEvent) -> Void) {
        h264?.expire(now: now, events: events)
        h265?.expire(now: now, events: events)
    }

    mutating func flush(events: (DepacketizerEvent) -> Void) {
        h264?.flush(events: events)
        h265?.flush(events: events)
    }
}
