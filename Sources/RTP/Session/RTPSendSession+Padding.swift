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
            let info = writePadding(padding, into: slot, rtx: &rtx, probeClusterID: probeClusterID)
            queue.commitBack(length: headerSize + padding, info: info)
            remaining -= padding
            queued += 1
        }
        self.rtx = rtx
        return queued
    }

    /// Starts sending `cluster` as padding-only packets on RTX at the cluster's own rate (`ProbeSchedule`, as
    /// libwebrtc's prober), ahead of queued media and outside the media pacer's rate: from `now`, or when the
    /// clusters before it are done. Each packet carries `maxPaddingPerPacket` bytes of padding and the cluster's id
    /// (`SentPacket.probeClusterID`), so the feedback on it gives the controller the rate the path took.
    /// - Returns: false when the cluster was not taken (`ProbeSchedule.maxClusters` are waiting).
    /// - Throws: `.unsupported` without RTX; `.invalidValue` for a rate, duration or packet count that is not positive;
    ///   `.closed` after `close`.
    @discardableResult
    public mutating func startProbe(_ cluster: ProbeCluster, at now: RTPInstant) throws(RTPError) -> Bool {
        guard closeDeadline == nil else { throw RTPError(code: .closed, reason: "probe after close()") }
        guard rtx != nil else { throw .make(.unsupported, "probe padding needs an RTX stream (rtx) to be sent on") }
        guard cluster.bitsPerSecond > 0, cluster.duration > .zero, cluster.minProbes > 0 else {
            throw .make(.invalidValue, "probe cluster \(cluster.id): \(cluster.bitsPerSecond) b/s for \(cluster.duration), \(cluster.minProbes) packets")
        }
        observe(now)
        return probes.add(cluster, at: now)
    }

    /// The probe packet due at `now`, if any, to the front of the queue (called while no batch is out, so no view
    /// points at the head). One per call: the driver calls `pollTransmit` again at once, and the next is due later.
    mutating func queueDueProbe(at now: RTPInstant) {
        guard let cluster = probes.due(at: now), var rtx else { return }
        let headerSize = RTPHeader.fixedSize + extensionLayout.size
        let padding = Self.maxPaddingPerPacket
        guard rtxBuffer.count >= headerSize + padding else { return }
        var info = writePadding(padding, into: rtxBuffer, rtx: &rtx, probeClusterID: cluster.id)
        info.bypassesPacer = true
        guard queue.pushFront(UnsafeRawBufferPointer(rebasing: rtxBuffer[0 ..< headerSize + padding]), info: info) else {
            return  // a full queue: the probe waits for room (paced, media is being dropped meanwhile anyway)
        }
        self.rtx = rtx
        probes.sent(wireBytes: headerSize + padding + configuration.wireOverhead, at: now)
    }

    /// Writes one padding-only packet with `padding` bytes of padding at the start of `slot` (which has the room)
    /// under RTX's next sequence number.
    private func writePadding(_ padding: Int, into slot: UnsafeMutableRawBufferPointer, rtx: inout RTXEncoder,
                              probeClusterID: Int?) -> PacketQueue.Info {
        let headerSize = RTPHeader.fixedSize + extensionLayout.size
        let sequenceNumber = rtx.sequencer.next()
        // The RTP timestamp of the last media sent: a padding packet carries no media time of its own.
        RTPHeader.writeFixed(into: slot, marker: false, payloadType: rtx.payloadType, sequenceNumber: sequenceNumber,
                             timestamp: lastQueuedTimestamp, ssrc: rtx.ssrc)
        slot[0] |= 0x20  // P
        RTPHeader.writeExtensionBlock(extensionLayout.template, into: slot)
        UnsafeMutableRawBufferPointer(rebasing: slot[headerSize ..< headerSize + padding]).initializeMemory(as: UInt8.self, repeating: 0)
        slot[headerSize + padding - 1] = UInt8(padding)
        return PacketQueue.Info(sequenceNumber: sequenceNumber, rtpTimestamp: lastQueuedTimestamp, isPadding: true,
                                probeClusterID: probeClusterID)
    }
}
