extension RTPReceiveSession {
    /// One RTCP datagram (plaintext: SRTCP already removed) from the sender, parsed once here: an SR gives
    /// LSR/DLSR for our next report (RFC 3550 §6.4.1), a BYE for our source ends the stream (`.goodbye`).
    /// Returns whether the compound began with a sender report: the driver answers where those come from.
    @discardableResult
    public mutating func handle(rtcp datagram: [UInt8], at now: RTPInstant) -> Bool {
        let packets: [RTCPPacket]
        do throws(RTPError) {
            packets = try RTCPCompound.parse(datagram[...])
        } catch {
            statistics.malformedPackets += 1
            events.push(.warning(.malformedRTCP(error.code, reason: error.reason)))
            return false
        }
        let hadGoodbye = rtcp.goodbyeReceived
        rtcp.receive(packets, now: now)
        let isSenderReport = if case .senderReport? = packets.first { true } else { false }
        if isSenderReport { statistics.senderReports += 1 }
        statistics.goodbyeReceived = rtcp.goodbyeReceived
        if rtcp.goodbyeReceived, !hadGoodbye { events.push(.goodbye) }
        return isSenderReport
    }
}
