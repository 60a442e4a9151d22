import MediaCore

/// RTCP from the peer: receiver reports, keyframe requests, NACK, REMB/TMMBR (RFC 3550 §6.4, RFC 4585, RFC 5104).
extension RTPSendSession {
    /// Why a driver dropped an RTCP datagram before the session saw it (counted in the statistics).
    public enum DiscardedRTCP: Sendable, Equatable {
        /// From a host other than the peer's.
        case otherHost
        /// SRTCP that failed authentication or the replay check (or plain RTCP where SRTCP is expected).
        case unauthenticated
    }

    /// One plaintext RTCP compound from the peer (SRTCP already removed and checked by the driver). Receiver reports
    /// update RTT and loss; PLI/FIR become a `.keyframeRequested` event (throttled); NACKed packets go to the front
    /// of the queue from the history (as RTX when negotiated; a number no longer held, or never sent, is counted in
    /// `retransmissionsMissed` with a `.retransmissionMissed` event); REMB/TMMBR become a `.bitrateLimit` event, and
    /// a TMMBR is answered with a TMMBN (RFC 5104 §4.2.2.1) through `pollTransmit`. A malformed datagram is counted
    /// and changes nothing.
    public mutating func handle(rtcp datagram: ArraySlice<UInt8>, at now: RTPInstant) {
        observe(now)
        let actions: [RTCPSenderSession.FeedbackAction]
        do throws(RTPError) { actions = try rtcp.receive(datagram, now: now) } catch {
            stats.rtcpPacketsMalformed += 1
            return
        }
        stats.rtcpPacketsReceived += 1
        for action in actions {
            switch action {
            case .requestKeyframe:
                stats.keyframeRequestsForwarded += 1
                events.append(.keyframeRequested)
            case .limitBitrate(let bitrate):
                events.append(.bitrateLimit(bitrate))
            case .retransmit(let sequenceNumbers):
                retransmissionRequests.append(contentsOf: sequenceNumbers)
            case .reply(let bytes):
                pendingRTCP.append(bytes)
            case .transportFeedback(let report):
                if let normalised = sentPackets?.feedback(report, now: Instant(now)) { deliver(normalised) }
            case .congestionControlFeedback(let report):
                if let normalised = sentPackets?.feedback(report, now: Instant(now)) { deliver(normalised) }
            }
        }
        takeRetransmissionRequests()
    }

    /// The sent-packet path (issue 17): the packets that left since the last call — media, retransmissions, padding,
    /// each with its transport-wide number, wire size, send time and probe cluster, as the feedback reports will
    /// name them — appended to `packets` in sending order, for a rate controller's `observe(sent:)` (GCC's ALR
    /// detector, rtenc's pacer backlog). Read from `SentPacketHistory`, which records them anyway: a driver that
    /// never asks pays nothing, one that asks pays an append per packet (none if `packets` keeps its capacity).
    /// Only with transport-wide numbering or RFC 8888 (`Configuration.tracksSentPackets`); else nothing. Packets
    /// the history forgot before a call (more than 2^15 between two calls) are counted in `sentPacketsUnreported`.
    public mutating func pollSentPackets(into packets: inout [SentPacket]) {
        // Optional chaining mutates the history in place (an `if let` would copy its ring).
        stats.sentPacketsUnreported += sentPackets?.takeSent(into: &packets) ?? 0
    }

    /// A feedback report, counted and handed to the application (a report about nothing we remember is dropped).
    private mutating func deliver(_ feedback: TransportPacketsFeedback) {
        stats.feedbackReports += 1
        guard !feedback.packets.isEmpty else { return }
        let received = feedback.packets.reduce(0) { $0 + ($1.isReceived ? 1 : 0) }
        stats.feedbackPacketsReceived += received
        stats.feedbackPacketsLost += feedback.packets.count - received
        events.append(.transportFeedback(feedback))
    }

    /// Counts an RTCP datagram the driver dropped unread.
    public mutating func discarded(rtcp reason: DiscardedRTCP) {
        switch reason {
        case .otherHost: stats.rtcpPacketsIgnored += 1
        case .unauthenticated: stats.rtcpPacketsUnauthenticated += 1
        }
    }

    /// Puts the requested retransmissions at the front of the queue, first lost first, unless an RTP batch is out
    /// (its views point at the head, which a push in front would move): then they wait for its report. RTX sequence
    /// numbers follow the sending order.
    mutating func takeRetransmissionRequests() {
        guard !retransmissionRequests.isEmpty else { return }
        if case .rtp = outstanding { return }
        var held: [UInt16] = []  // the rare path (NACK): an allocation is fine
        for sequenceNumber in retransmissionRequests {
            if history.withPacket(sequenceNumber, { _, sentAt in sentAt >= (retransmitsSentAfter ?? sentAt) }) == true {
                held.append(sequenceNumber)
            } else {
                stats.retransmissionsMissed += 1
                events.append(.retransmissionMissed(sequenceNumber: sequenceNumber))
            }
        }
        retransmissionRequests.removeAll(keepingCapacity: true)
        // Each goes to the front in turn, so the last pushed (the first lost) leaves first.
        guard configuration.retransmitsOnRTX, rtx != nil else {
            for sequenceNumber in held.reversed() { retransmit(sequenceNumber, rtxSequenceNumber: nil) }
            return
        }
        let firstRTXSequenceNumber = rtx?.sequencer.nextSequenceNumber ?? 0
        for (index, sequenceNumber) in held.enumerated().reversed() {
            retransmit(sequenceNumber, rtxSequenceNumber: firstRTXSequenceNumber &+ UInt16(truncatingIfNeeded: index))
        }
        rtx?.sequencer = RTPSequencer(initial: firstRTXSequenceNumber &+ UInt16(truncatingIfNeeded: held.count))
    }

    /// One NACKed packet from the history to the front of the queue: as RTX (RFC 4588) under `rtxSequenceNumber`,
    /// or as it was first sent when that is nil.
    private mutating func retransmit(_ sequenceNumber: UInt16, rtxSequenceNumber: UInt16?) {
        let queue = self.queue, rtxBuffer = self.rtxBuffer
        var rtx = rtxSequenceNumber == nil ? nil : self.rtx
        if let rtxSequenceNumber { rtx?.sequencer = RTPSequencer(initial: rtxSequenceNumber) }
        let queued: Bool? = history.withPacket(sequenceNumber) { bytes, _ in
            let info = PacketQueue.Info(sequenceNumber: sequenceNumber, isRetransmission: true)
            guard rtx != nil else { return queue.pushFront(bytes, info: info) }
            let length: Int? = try? rtx?.encode(bytes, into: rtxBuffer)
            guard let length else { return false }
            return queue.pushFront(UnsafeRawBufferPointer(rebasing: rtxBuffer[0 ..< length]), info: info)
        }
        if rtxSequenceNumber != nil { self.rtx = rtx }
        if queued != true {
            stats.retransmissionsMissed += 1
            events.append(.retransmissionMissed(sequenceNumber: sequenceNumber))
        }
    }
}
