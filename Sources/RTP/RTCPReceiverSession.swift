/// The receiver's side of RTCP: receiver reports, and PLI/NACK feedback (RFC 4585) when media is lost.
///
/// Pure, like `RTCPSenderSession`: time comes in, datagrams to send come out.
public struct RTCPReceiverSession: Sendable {
    public struct Configuration: Sendable {
        public var ssrc: UInt32
        public var cname: String
        public var reportInterval: Duration
        /// PLIs closer together than this are not sent again.
        public var minPictureLossInterval: Duration
        public init(ssrc: UInt32, cname: String, reportInterval: Duration = .seconds(1),
                    minPictureLossInterval: Duration = .milliseconds(300)) {
            self.ssrc = ssrc
            self.cname = cname
            self.reportInterval = reportInterval
            self.minPictureLossInterval = minPictureLossInterval
        }
    }

    public let configuration: Configuration
    package private(set) var source: ReceptionStatistics?
    public private(set) var nextReportTime: RTPInstant?
    public private(set) var goodbyeReceived = false
    public private(set) var picturesLossesSent = 0
    public private(set) var nacksSent = 0
    private var lastPictureLoss: RTPInstant?

    public init(configuration: Configuration) { self.configuration = configuration }

    public mutating func rtpReceived(_ header: RTPHeader, arrival: RTPInstant) {
        if source?.ssrc != header.ssrc { source = ReceptionStatistics(ssrc: header.ssrc) }
        source?.received(sequenceNumber: header.sequenceNumber, rtpTimestamp: header.timestamp, arrival: arrival)
        if nextReportTime == nil { nextReportTime = arrival + configuration.reportInterval }
    }

    /// Reads an RTCP datagram from the sender (SR for LSR/DLSR, BYE for the end).
    public mutating func receive(_ datagram: ArraySlice<UInt8>, now: RTPInstant) throws(RTPError) {
        receive(try RTCPCompound.parse(datagram), now: now)
    }

    /// The packets of an RTCP compound from the sender, parsed by the caller.
    public mutating func receive(_ packets: [RTCPPacket], now: RTPInstant) {
        for packet in packets {
            switch packet {
            case .senderReport(let sr) where sr.ssrc == source?.ssrc: source?.senderReportReceived(sr.ntpTime, at: now)
            case .goodbye(let bye) where source.map({ bye.sources.contains($0.ssrc) }) ?? false: goodbyeReceived = true
            default: break
            }
        }
    }

    private mutating func reportPackets(now: RTPInstant) -> [RTCPPacket] {
        var blocks: [ReportBlock] = []
        if let block = source?.makeReportBlock(now: now) { blocks.append(block) }
        return [.receiverReport(ReceiverReport(ssrc: configuration.ssrc, reports: blocks)),
                .sourceDescription(.cname(ssrc: configuration.ssrc, configuration.cname))]
    }

    public mutating func makeReportIfDue(now: RTPInstant) -> [UInt8]? {
        guard let due = nextReportTime, now >= due || due - now > configuration.reportInterval else { return nil }
        nextReportTime = now + configuration.reportInterval
        return try? RTCPCompound.marshal(reportPackets(now: now))
    }

    /// RR + SDES + PLI, unless a PLI went out less than `minPictureLossInterval` ago.
    public mutating func makePictureLossIndication(now: RTPInstant) -> [UInt8]? {
        guard let media = source?.ssrc else { return nil }
        if let last = lastPictureLoss, now >= last, now - last < configuration.minPictureLossInterval { return nil }
        lastPictureLoss = now
        picturesLossesSent += 1
        let packets = reportPackets(now: now) + [.pictureLossIndication(.init(senderSSRC: configuration.ssrc, mediaSSRC: media))]
        return try? RTCPCompound.marshal(packets)
    }

    /// RR + SDES + generic NACK for `lost`.
    public mutating func makeNACK(lost: [UInt16], now: RTPInstant) -> [UInt8]? {
        guard let media = source?.ssrc, !lost.isEmpty else { return nil }
        nacksSent += 1
        let packets = reportPackets(now: now) + [.genericNACK(GenericNACK(senderSSRC: configuration.ssrc, mediaSSRC: media, lost: lost))]
        return try? RTCPCompound.marshal(packets)
    }
}
