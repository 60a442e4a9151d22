import CongestionControl
import DTLS
import MediaCore
import RTPOut
import WebRTC

/// What a peer's DTLS association and RTP session tell its owner (the server's state or the publisher's): the owner
/// keeps the log, the encoder's keyframe flag and target, and the routing tables; the link does the protocol work.
enum PeerLinkEvent: Sendable {
    /// DTLS finished and SRTP is keyed: media may start (at the next IDR). The text is for the log.
    case connected(String)
    /// The peer must end, for this reason (DTLS failed, SRTP could not be made, the peer closed DTLS).
    case mustEnd(String)
    /// PLI/FIR (already throttled by the session).
    case keyframeRequested
    /// A new REMB (stored in `peerLimit` already).
    case bitrateLimit(UInt64)
    /// The peer's own rate controller (transport-cc) moved its target: the encoder's target is decided again.
    case controllerTarget
    /// The goodbye went out (or the session closed): the link is closed; forget it.
    case finished
}

/// The per-peer work both transports share once ICE has a path: DTLS datagrams, SRTP keyed per direction from the
/// DTLS export, SRTCP in, paced SRTP out, the goodbye. Memory and CPU only (SRTP): called under the owner's lock,
/// datagrams returned in `out` for the I/O thread to send after it.
extension WebRTCPeerLink {
    /// A DTLS datagram from the peer.
    func receive(dtls datagram: ArraySlice<UInt8>, at now: ServerTime, into out: inout [OutgoingDatagram]) -> [PeerLinkEvent] {
        // A datagram the endpoint refuses (after close, not DTLS at all) is dropped: nothing to answer.
        try? dtls.handle(datagram: Array(datagram), at: now.instant)
        return pollDTLS(at: now, into: &out)
    }

    /// An SRTCP datagram from the peer, unprotected in `scratch` and handed to the session (an unauthenticated one is
    /// counted and dropped: forged feedback is never acted on).
    func receive(srtcp datagram: ArraySlice<UInt8>, scratch: inout [UInt8], at now: ServerTime, into out: inout [OutgoingDatagram])
        -> [PeerLinkEvent]?
    {
        guard let srtp, datagram.count <= scratch.count else { return nil }
        let length = scratch.withUnsafeMutableBytes { buffer -> Int? in
            buffer.copyBytes(from: datagram)
            return try? srtp.unprotectRTCP(buffer, length: datagram.count)
        }
        guard let length else {
            session.discarded(rtcp: .unauthenticated)
            return []
        }
        session.handle(rtcp: scratch[0 ..< length], at: now.rtp)
        return pollMedia(at: now, into: &out)
    }

    /// Lets time pass for DTLS (retransmissions), the session (pacer, RTCP reports) and the rate controller (its
    /// process interval).
    func handleTimeout(at now: ServerTime, into out: inout [OutgoingDatagram]) -> [PeerLinkEvent] {
        dtls.handleTimeout(at: now.instant)
        var events = pollDTLS(at: now, into: &out) + pollMedia(at: now, into: &out)
        if phase == .connected, rate != nil, decideRate(at: now) { events.append(.controllerTarget) }
        return events
    }

    /// The earliest of the DTLS, session and rate-controller timers (the agent's is the owner's to add).
    func nextTimeout(at now: ServerTime) -> Instant? {
        let session = srtp != nil ? self.session.nextTimeout().map { now.instant(at: $0) } : nil
        let process = phase == .connected && rate != nil ? (lastProcess ?? now.instant) + Self.processInterval : nil
        return [dtls.nextTimeout(), session, process].compactMap { $0 }.min()
    }

    /// libwebrtc's process interval: a controller with timers of its own (goog_cc) is asked again this often.
    static var processInterval: Duration { .milliseconds(25) }

    /// The peer's controller decides after feedback, when its process interval came, and before each frame (for the
    /// frame's budget); the pacer takes the pacing rate at once, and its probe clusters go out as padding on the peer's
    /// RTX stream (`RTPSendSession.startProbe`, as libwebrtc's prober pads on RTX), whose transport-cc feedback tells
    /// the controller what the path took. Without an RTX stream (the peer offered none) they cannot be sent: counted
    /// in `probesNotSent`. True when the controller's encoder target changed.
    func decideRate(at time: ServerTime) -> Bool {
        guard rate != nil else { return false }
        feedSentPackets(at: time)
        guard var controller = rate else { return false }
        let now = time.instant
        if !startProbesSent {
            // goog_cc's start probes come with its first allocation, made when the viewer was set up: sent now
            // that the peer is connected, as `LiveBitrateController` sends them at its first frame.
            startProbesSent = true
            startProbes(controller.current.probeClusters, at: time)
        }
        if lastProcess.map({ now - $0 >= Self.processInterval }) ?? true {
            controller.handle(.processInterval, at: now)
            lastProcess = now
        }
        let decision = controller.poll(at: now)
        rate = controller
        guard let decision, let allocation = decision.allocation else { return false }
        session.setTargetBitrate(allocation.pacingBitRate)
        startProbes(allocation.probeClusters, at: time)
        return decision.changesRate
    }

    /// The controller's probe clusters to the session, as RTX padding; refused ones (no RTX, after close,
    /// `ProbeSchedule.maxClusters` waiting) are counted in `probesNotSent`.
    private func startProbes(_ clusters: [ProbeClusterConfig], at time: ServerTime) {
        for cluster in clusters where (try? session.startProbe(cluster.packets, at: time.rtp)) != true {
            probesNotSent += 1
        }
    }

    /// The sent-packet path, as `LiveBitrateController` has it for plain RTP: what left since the last call goes to the
    /// peer's controller (`observe(sent:)`: GCC's ALR detector, rtenc's pacer backlog and budget savings), its send
    /// times moved onto the controller's clock — before any feedback report that may cover it, and before each
    /// decision.
    func feedSentPackets(at now: ServerTime) {
        guard rate != nil else { return }
        session.pollSentPackets(into: &sentPackets)
        guard !sentPackets.isEmpty else { return }
        let shift = now.controllerShift
        for i in sentPackets.indices { sentPackets[i] = sentPackets[i].shifted(by: shift) }
        rate?.handle(.packetsSent(sentPackets), at: now.instant)
        sentPackets.removeAll(keepingCapacity: true)
    }

    /// What the peer's controller allows the next frame (`BitrateAllocation.frameByteLimit`: nil no budget, 0 skip
    /// it); nil for a peer without one or not yet receiving media.
    var frameByteLimit: Int? { phase == .connected ? rate?.current.frameByteLimit : nil }

    /// The encoder skipped a frame: the peer's controller hears of it as a frame of 0 bytes (and is asked again for
    /// the next one's budget).
    func frameSkipped(at now: ServerTime) {
        guard phase == .connected else { return }
        rate?.handle(.encodedFrame(bytes: 0, isKeyframe: false), at: now.instant)
    }

    /// Drains the DTLS endpoint: its datagrams go to the latched address (none yet: they wait in the endpoint, and
    /// OpenSSL retransmits); a finished handshake keys SRTP, each direction with its own key (RFC 5764 §4.2).
    func pollDTLS(at now: ServerTime, into out: inout [OutgoingDatagram]) -> [PeerLinkEvent] {
        if let remote {
            while let datagram = dtls.pollTransmit() { out.append(OutgoingDatagram(bytes: datagram, destination: remote)) }
        }
        var events: [PeerLinkEvent] = []
        while let event = dtls.pollEvent() {
            switch event {
            case .connected(let connection):
                do {
                    let keys = connection.keys
                    srtp = try SRTPSession(outbound: SRTPConfiguration(masterKeyAndSalt: keys.outbound(for: role)),
                                           inbound: SRTPConfiguration(masterKeyAndSalt: keys.inbound(for: role)))
                } catch {
                    events.append(.mustEnd("SRTP set-up failed: \(error)"))
                    continue
                }
                phase = .connected
                events.append(.connected("DTLS \(role) \(connection.cipherSuite), \(connection.keys.profile); media starts at the next IDR"))
            case .failed(let error):
                events.append(.mustEnd("DTLS failed: \(error)"))
            case .closed:
                // The peer closed DTLS (close_notify: pc.close(), a closed tab without DELETE): stop sending now,
                // not when consent runs out 30 s later.
                events.append(.mustEnd("the peer closed DTLS (close_notify)"))
            }
        }
        return events
    }

    /// Drains the RTP session: due RTP and RTCP, SRTP-protected, to the latched address; its events.
    func pollMedia(at now: ServerTime, into out: inout [OutgoingDatagram]) -> [PeerLinkEvent] {
        guard let srtp, let remote else { return [] }
        while let transmit = session.pollTransmit(at: now.rtp) {
            for view in transmit.datagrams {
                let room = transmit.kind == .rtp ? SRTPSession.maxRTPTrailer : SRTPSession.maxRTCPTrailer
                var bytes = [UInt8](repeating: 0, count: view.count + room)
                let length = bytes.withUnsafeMutableBytes { buffer -> Int? in
                    buffer.copyMemory(from: view)
                    return transmit.kind == .rtp ? try? srtp.protect(rtp: buffer, length: view.count)
                        : try? srtp.protectRTCP(buffer, length: view.count)
                }
                guard let length else { continue }
                bytes.removeLast(bytes.count - length)
                out.append(OutgoingDatagram(bytes: bytes, destination: remote))
            }
            // Reported as sent: the datagrams leave right after the lock is released (a full socket drops them,
            // which NACK repairs).
            session.didTransmit(transmit.count, at: now.rtp)
        }
        feedSentPackets(at: now)  // before a feedback report below, which may cover them
        var events: [PeerLinkEvent] = []
        while let event = session.pollEvent() {
            switch event {
            case .keyframeRequested:
                keyframeRequests += 1
                events.append(.keyframeRequested)
            case .bitrateLimit(let limit):
                peerLimit = limit
                if rate != nil {
                    // REMB caps the peer's controller (a player may send both); the shared REMB policy ignores this peer.
                    rate?.handle(.peerLimit(bitsPerSecond: limit), at: now.instant)
                    if decideRate(at: now) { events.append(.controllerTarget) }
                } else {
                    events.append(.bitrateLimit(limit))
                }
            case .transportFeedback(let feedback):
                guard rate != nil else { break }
                rate?.handle(.transportFeedback(feedback.shifted(by: now.controllerShift)), at: now.instant)
                if decideRate(at: now) { events.append(.controllerTarget) }
            case .goodbyeSent:
                closeDTLS(at: now, into: &out)
                events.append(.finished)
            case .retransmissionMissed, .warning:
                break
            }
        }
        if session.isClosed, phase != .closed, !events.contains(where: { if case .finished = $0 { true } else { false } }) {
            closeDTLS(at: now, into: &out)
            events.append(.finished)
        }
        return events
    }

    /// Queues an access unit once SRTP is ready, from the first keyframe on. True when it was queued; throws when the
    /// session refuses it (the owner ends the peer).
    func enqueue(_ accessUnit: CodedAccessUnit, captureTime: RTPInstant, at now: ServerTime) throws -> Bool {
        guard phase == .connected else { return false }
        if awaitingKeyframe {
            guard accessUnit.isKeyframe else { return false }
            awaitingKeyframe = false
            if firstKeyframeAfter == nil { firstKeyframeAfter = now.instant - startedAt }
        }
        try session.enqueue(accessUnit, captureTime: captureTime, at: now.rtp)
        // The controller's budget for the next frame counts what this one took (rtenc's).
        rate?.handle(.encodedFrame(bytes: accessUnit.bytes.count, isKeyframe: accessUnit.isKeyframe), at: now.instant)
        return true
    }

    /// Gives up the peer's queue when it would take longer than `bound` to drain (`QueuePushback.flushBound`): a
    /// backlog that old — NACK retransmissions into a link that drops them again filled it to 15 s in one run behind
    /// an 800 kb/s link — is worth nothing to a live viewer. The packets are dropped, nothing sent before now is
    /// retransmitted, and the peer waits for the next IDR (true: the owner asks for one).
    func flushIfStale(bound: Duration, at now: ServerTime) -> Bool {
        guard phase == .connected, let queued = session.expectedQueueTime, queued > bound else { return false }
        let dropped = session.flushQueue(at: now.rtp)
        awaitingKeyframe = true
        queueFlushes += 1
        flushedPackets += dropped
        return true
    }

    /// Starts the end: RTCP BYE once the queue drained (at most 1 s), then DTLS close_notify (`.finished` from
    /// `pollMedia`). False when there is no SRTP to say goodbye with: the owner forgets the peer at once.
    func beginEnding(reason: String, at now: ServerTime) -> Bool {
        endReason = reason
        guard srtp != nil, remote != nil else { return false }
        phase = .closing
        session.close(at: now.rtp, drainTimeout: .seconds(1))
        return true
    }

    /// DTLS close_notify (queued here, sent with the rest).
    func closeDTLS(at now: ServerTime, into out: inout [OutgoingDatagram]) {
        dtls.close(at: now.instant)
        if let remote {
            while let datagram = dtls.pollTransmit() { out.append(OutgoingDatagram(bytes: datagram, destination: remote)) }
        }
    }

    /// The numbers `--stats-json` and embedders read.
    func statistics(at now: ServerTime) -> WebRTCViewerStatistics {
        let s = session.statistics(at: now.rtp)
        return WebRTCViewerStatistics(
            id: id, state: phase.rawValue, remote: remote?.description, bitrate: s.bitrate, peerLimit: peerLimit,
            nackedPackets: s.nackedPackets, keyframeRequests: keyframeRequests, keyframesSent: s.keyframesSent,
            packetsSent: s.packetsSent, firstKeyframeAfter: firstKeyframeAfter, congestionController: rate?.policyName,
            controllerTarget: rate?.current.encoderBitRate, queueTime: session.expectedQueueTime,
            rtxSSRC: session.configuration.rtx?.ssrc, retransmissionsSent: s.packetsRetransmitted,
            probeClustersSent: s.probeClustersSent, paddingPacketsSent: s.paddingPacketsSent, probesNotSent: probesNotSent,
            feedbackPacketsReceived: s.feedbackPacketsReceived,
            controllerFrameBudget: rate?.current.frameByteLimit,
            firstPacketDelay: s.firstPacketDelay, lastPacketDelay: s.lastPacketDelay)
    }
}

extension RTPSendSession {
    /// A WebRTC peer's RTP stream: paced at the encoder's target, random sequence number and timestamp offset, room
    /// left for the SRTP tag, abs-send-time when negotiated (the receive-side estimator behind REMB reads it), the
    /// transport-wide sequence number when transport-cc is, playout-delay min = max = 0 when negotiated; paced with
    /// libwebrtc's 40 ms burst. `codec` picks the payloader: RFC 6184 (FU-A, STAP-A) or
    /// RFC 7798 (FU, AP, no DONL), either putting the parameter sets (with the VPS for HEVC) in front of a keyframe
    /// that lacks them. With a negotiated RTX stream (RFC 4588) NACKed packets are re-sent on it and probe clusters
    /// go out on it as padding; without one they are re-sent as they were and probes cannot be sent.
    static func webRTC(
        payloadType: UInt8, ssrc: UInt32, cname: String, absSendTimeID: UInt16?, maxPayloadSize: Int, targetBitrate: UInt64,
        sequenceParameterSet: [UInt8]?, pictureParameterSet: [UInt8]?, codec: VideoCodec = .h264,
        videoParameterSet: [UInt8]? = nil, transportCCExtensionID: UInt16? = nil, playoutDelayID: UInt16? = nil,
        retransmission: WebRTCSDP.NegotiatedRetransmission? = nil, using random: inout some RandomNumberGenerator
    ) throws -> RTPSendSession {
        var configuration = RTPSendSession.Configuration(
            payloadType: payloadType, ssrc: ssrc, cname: cname,
            payloader: .init(maxPayloadSize: maxPayloadSize),
            pacing: .paced(targetBitrate: targetBitrate),
            rtx: retransmission.map { (payloadType: $0.payloadType, ssrc: $0.ssrc) },
            initialSequenceNumber: .random(in: 0 ... .max, using: &random),
            timestampOffset: .random(in: 0 ... .max, using: &random),
            wireOverhead: SRTPConfiguration.Suite.aesCM128HMACSHA1_80.rtpTagLength, codec: codec)
        // transport-cc: every packet numbered (the session keeps what it sent and turns the peer's reports into
        // `.transportFeedback` events for the peer's controller).
        configuration.headerExtensions = RTPSendHeaderExtensions(
            transportSequenceNumberID: transportCCExtensionID.flatMap(UInt8.init(exactly:)),
            absoluteSendTimeID: absSendTimeID.flatMap(UInt8.init(exactly:)),
            playoutDelay: playoutDelayID.flatMap(UInt8.init(exactly:)).map { .immediate(id: $0) })
        // libwebrtc's send burst interval: a delta frame leaves whole when the queue was idle, only a larger one
        // (a keyframe) is spread out.
        configuration.pacingBurst = Pacer.libWebRTCBurst
        return try RTPSendSession(
            configuration: configuration, videoParameterSet: videoParameterSet,
            sequenceParameterSet: sequenceParameterSet, pictureParameterSet: pictureParameterSet)
    }
}
