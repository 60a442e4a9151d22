import MediaCore

/// What goes on the wire, and what the driver reports back about it.
extension RTPSendSession {
    /// Why a transmit was not (all) sent, as the driver saw it.
    public enum TransmitFailure: Sendable, Equatable {
        /// The socket refused the datagrams with an error that is not about the peer (EPERM from a firewall,
        /// EMSGSIZE…): they are dropped, the stream goes on.
        case sendFailed(String)
        /// SRTP could not protect a packet: it is dropped (it could never be sent), the ones behind it can be.
        case protectionFailed(String)
    }

    /// What may go on the wire now, or nil (nothing due, or a transmit is still out). In order of precedence: an RTCP
    /// compound (TMMBN reply, due sender report), the BYE once the close deadline has passed (what is still queued
    /// is dropped and counted), then up to `batchSize` queued RTP packets as far as the pacer allows
    /// (retransmissions first), then the BYE once the queue drained and `goodbyeDelay` passed.
    ///
    /// The transmit's views stay valid until the driver reports back with `didTransmit` or `didFailTransmit`.
    public mutating func pollTransmit(at now: RTPInstant) -> RTPTransmit? {
        observe(now)
        guard outstanding == nil, !isClosed else { return nil }
        takeRetransmissionRequests()
        if pendingRTCP.isEmpty, let report = rtcp.makeReportIfDue(now: now) { pendingRTCP.append(report) }
        if !pendingRTCP.isEmpty { return reserveRTCP(pendingRTCP.removeFirst(), goodbye: false) }
        if let deadline = closeDeadline, now >= deadline { return goodbye(now: now) }
        queueDueProbe(at: now)
        if let batch = reserveRTP(now: now) { return batch }
        if closeDeadline != nil, goodbyeIsDue(now: now) { return goodbye(now: now) }
        return nil
    }

    /// The socket took the first `count` datagrams of the transmit that is out; the rest of an RTP batch stays at
    /// the head of the queue for the next `pollTransmit`. Sent packets charge the pacer, go into the history and
    /// the statistics. `socketFull`: the socket stopped taking datagrams (EAGAIN), so the pacer is no reason to
    /// call again before it is writable. An RTCP compound is done whatever `count` says (a report is not sent twice;
    /// the next one is scheduled), and the BYE closes the session.
    public mutating func didTransmit(_ count: Int, at now: RTPInstant, socketFull: Bool = false) {
        observe(now)
        guard let out = outstanding else { return }
        outstanding = nil
        switch out {
        case .rtp(let reserved):
            let sent = min(max(count, 0), reserved)
            record(sent, now: now)
            queue.popFront(sent)
            if sent > 0 { refusedAfterLastSend = false }
            writeBlocked = socketFull
        case .rtcp(let goodbye):
            if goodbye { finish() }
        }
        queue.releaseRetired()  // no view is out any more
        takeRetransmissionRequests()
    }

    /// The transmit that is out could not be sent (`failure`): for RTP, its first `dropping` packets are dropped
    /// (the rest stays queued); an RTCP compound is dropped (a BYE still closes the session). Counted in
    /// `sendErrors`, warned about once per kind.
    public mutating func didFailTransmit(_ failure: TransmitFailure, dropping: Int, at now: RTPInstant) {
        observe(now)
        guard let out = outstanding else { return }
        outstanding = nil
        stats.sendErrors += 1
        switch out {
        case .rtp(let reserved):
            queue.popFront(min(max(dropping, 0), reserved))
            switch failure {
            case .sendFailed(let reason): warnOnce(.sendFailed, "RTP send failed, packets dropped: \(reason)")
            case .protectionFailed(let reason): warnOnce(.protectionFailed, "SRTP protection failed, packet dropped: \(reason)")
            }
        case .rtcp(let goodbye):
            switch failure {
            case .sendFailed(let reason), .protectionFailed(let reason): warnOnce(.rtcpSendFailed, "RTCP send failed: \(reason)")
            }
            if goodbye { finish() }
        }
        queue.releaseRetired()
        takeRetransmissionRequests()
    }

    /// The socket took nothing for `duration` (the driver's stall limit, for a caller that waits for it): what is
    /// queued and not out is dropped and counted, with a warning once.
    public mutating func transportStalled(for duration: Duration, at now: RTPInstant) {
        observe(now)
        guard dropUnsent() > 0 else { return }
        warnOnce(.stalled, "RTP socket took nothing for \(duration); queued packets dropped")
    }

    /// Drops what is queued (none while a batch is out: that is its holder's to report), counted; how many.
    mutating func dropUnsent() -> Int {
        let reserved = if case .rtp(let count) = outstanding { count } else { 0 }
        let dropping = queue.count - reserved
        guard dropping > 0, reserved == 0 else { return 0 }
        stats.packetsDropped += dropping
        queue.popFront(dropping)
        return dropping
    }

    // MARK: Internals

    private mutating func reserveRTP(now: RTPInstant) -> RTPTransmit? {
        guard !queue.isEmpty else { return nil }
        var plan = pacer  // charged for real only with what the socket takes
        var count = 0
        let limit = min(queue.count, configuration.batchSize)
        let sendTime = RTPSendHeaderExtensions.absoluteSendTime(now)
        let firstNumber = sentPackets?.nextSequenceNumber ?? 0
        // A probe packet leaves when its cluster says (`ProbeSchedule`), not when the media pacer would; it still
        // charges the pacer, as libwebrtc's pacer counts probes against its media budget.
        while count < limit, queue.peek(count).info.bypassesPacer || plan.nextSendTime(now: now) <= now {
            let (bytes, _) = queue.peek(count)
            // The numbers this send would take; packets the socket does not take get the same ones next time.
            extensionLayout.stamp(UnsafeMutableRawBufferPointer(mutating: bytes),
                                  transportSequenceNumber: UInt16(truncatingIfNeeded: firstNumber + Int64(count)),
                                  absoluteSendTime: sendTime)
            views[count] = bytes
            plan.didSend(bytes: bytes.count + configuration.wireOverhead, now: now)
            count += 1
        }
        guard count > 0 else { return nil }
        outstanding = .rtp(count: count)
        return RTPTransmit(kind: .rtp, datagrams: UnsafeBufferPointer(UnsafeMutableBufferPointer(rebasing: views[0 ..< count])))
    }

    private mutating func reserveRTCP(_ bytes: [UInt8], goodbye: Bool) -> RTPTransmit? {
        // Our compounds are at most SR + SDES (≤ 255-byte CNAME) + BYE or TMMBN: always under maxRTCPPacket. An empty
        // one is what a failed marshal gives (RTCPSenderSession.marshal): nothing to send then.
        guard !bytes.isEmpty, bytes.count <= rtcpBuffer.count else {
            if goodbye { finish() }
            return nil
        }
        bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: rtcpBuffer[0 ..< $0.count]).copyMemory(from: $0) }
        views[0] = UnsafeRawBufferPointer(rebasing: rtcpBuffer[0 ..< bytes.count])
        outstanding = .rtcp(goodbye: goodbye)
        return RTPTransmit(kind: .rtcp, isGoodbye: goodbye, datagrams: UnsafeBufferPointer(UnsafeMutableBufferPointer(rebasing: views[0 ..< 1])))
    }

    private mutating func goodbye(now: RTPInstant) -> RTPTransmit? {
        if !queue.isEmpty {
            stats.packetsDropped += queue.count
            warnOnce(.closedWithPacketsQueued, "close: \(queue.count) packets still queued at the deadline, dropped")
            queue.popFront(queue.count)
        }
        return reserveRTCP(rtcp.makeGoodbye(now: now), goodbye: true)
    }

    private mutating func finish() {
        isClosed = true
        events.append(.goodbyeSent)
    }

    /// The packet's SSRC and sequence number as written (RTX has its own), under the next transport-wide number.
    private mutating func rememberSent(_ bytes: UnsafeRawBufferPointer, info: PacketQueue.Info, wireBytes: Int, now: RTPInstant) {
        let ssrc = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
        let sequenceNumber = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        let kind: SentPacket.Kind = info.isPadding ? .padding : info.isRetransmission ? .retransmission : .media
        sentPackets?.add(ssrc: ssrc, rtpSequenceNumber: sequenceNumber, size: wireBytes, sendTime: Instant(now), kind: kind,
                         probeClusterID: info.probeClusterID)
    }

    private mutating func record(_ count: Int, now: RTPInstant) {
        for i in 0 ..< count {
            let (bytes, info) = queue.peek(i)
            if info.isRetransmission {
                stats.packetsRetransmitted += 1
            } else if info.isPadding {
                stats.paddingPacketsSent += 1
            } else {
                history.store(bytes, sequenceNumber: info.sequenceNumber, sentAt: now)
                frameSendDelays.sent(rtpTimestamp: info.rtpTimestamp, marker: bytes[1] & 0x80 != 0, queuedAt: info.queuedAt, now: now)
                rtcp.rtpSent(payloadBytes: info.payloadBytes, rtpTimestamp: info.rtpTimestamp, captureTime: info.captureTime, now: now)
            }
            let wireBytes = bytes.count + configuration.wireOverhead
            if sentPackets != nil { rememberSent(bytes, info: info, wireBytes: wireBytes, now: now) }
            pacer.didSend(bytes: wireBytes, now: now)
            stats.packetsSent += 1
            stats.bytesSent += wireBytes
            rate.add(wireBytes, now: now)
        }
    }
}
