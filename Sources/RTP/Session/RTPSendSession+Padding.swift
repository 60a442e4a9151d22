/// Padding-only packets (RFC 3550 §5.1: the P bit, the last byte counting the padding), which a congestion
/// controller sends to probe the path's capacity: queued behind the media and paced like it, numbered by the
/// transport like any packet, and remembered as `.padding` with their probe cluster.
extension RTPSendSession {
    /// The most padding one packet carries: the count is one byte.
    public static let maxPaddingPerPacket = 255

    /// Queues `bytes` of padding as padding-only packets on the RTX stream (RFC 4588's SSRC and payload type, its
    /// own sequence numbers — libwebrtc pads there too, so the media stream's numbering and the receiver's
    /// depacketizer never see them), each with the header extensions and up to `maxPaddingPerPacket` bytes.
    /// - Returns: the packets queued (fewer when a paced queue fills; those not queued are not counted as dropped).
    /// - Throws: `.unsupported` without RTX (padding on the media SSRC is not written: see the README's limits);
    ///   `.invalidValue` for bytes below 1; `.closed` after `close`.
    @discardableResult
    public mutating func enqueuePadding(bytes: Int, probeClusterID: Int? = nil, at now: RTPInstant) throws(RTPError) -> Int {
        guard closeDeadline == nil else { throw RTPError(code: .closed, reason: "padding after close()") }
        guard bytes >= 1 else { throw .make(.invalidValue, "padding of \(bytes) bytes") }
        guard var rtx else { throw .make(.unsupported, "padding-only packets need an RTX stream (rtx) to be sent on") }
        observe(now)
        let headerSize = RTPHeader.fixedSize + extensionLayout.size
        var remaining = bytes
        var queued = 0
        while remaining > 0, let slot = queue.reserveBack() {
            let padding = min(remaining, Self.maxPaddingPerPacket)
            guard slot.count >= headerSize + padding else { break }
            let sequenceNumber = rtx.sequencer.next()
            // The RTP timestamp of the last media sent: a padding packet carries no media time of its own.
            RTPHeader.writeFixed(into: slot, marker: false, payloadType: rtx.payloadType, sequenceNumber: sequenceNumber,
                                 timestamp: lastQueuedTimestamp, ssrc: rtx.ssrc)
            slot[0] |= 0x20  // P
            RTPHeader.writeExtensionBlock(extensionLayout.template, into: slot)
            UnsafeMutableRawBufferPointer(rebasing: slot[headerSize ..< headerSize + padding]).initializeMemory(as: UInt8.self, repeating: 0)
            slot[headerSize + padding - 1] = UInt8(padding)
            queue.commitBack(length: headerSize + padding, info: PacketQueue.Info(
                sequenceNumber: sequenceNumber, rtpTimestamp: lastQueuedTimestamp, isPadding: true, probeClusterID: probeClusterID))
            remaining -= padding
            queued += 1
        }
        self.rtx = rtx
        return queued
    }
}
