import CUDPShim

/// Everything mutable of an `RTPSender`, used only under its lock: packetizer, queue, pacer, history, RTCP, stats.
struct SenderState: ~Copyable {
    let configuration: RTPSenderConfiguration
    let packetizer: H264Packetizer
    let queue: PacketQueue
    let history: PacketHistory
    let batch: DatagramBatch
    var pacer: Pacer
    let paced: Bool
    var rtcp: RTCPSenderSession
    var rtx: RTXEncoder?
    var rtxBuffer: [UInt8]
    var stats = RTPSenderStatistics()
    var rate = RateMeter()
    var closeDeadline: RTPInstant?
    /// When the queue was found empty after `close()`; the BYE follows `goodbyeDelay` later.
    var drainedAt: RTPInstant?
    var writeBlocked = false
    /// The RTP socket reported ICMP port unreachable after our last successful send: nobody listens (for now).
    var refusedAfterLastSend = false
    /// Send runs of equal-sized packets as UDP GSO messages until the kernel says it cannot (`UDPSocket.sendBatch`).
    var segmentationOffload = true
    var warned: Set<String> = []
    /// SRTP: the crypto context and where packets are protected on their way out (RTP: one slot per batch entry,
    /// RTCP: one more slot after those). Queue and history hold plaintext; see `SRTPWireBuffer`.
    let srtp: SRTPSession?
    let wire: SRTPWireBuffer?

    /// Largest RTCP compound we send (SR + SDES + BYE, or a reply) before SRTCP adds its trailer.
    static let maxRTCPPacket = 1500

    /// Slot size: the largest packet the payloader makes (+2 for the RTX OSN).
    init(configuration: RTPSenderConfiguration, packetizer: H264Packetizer) throws(RTPError) {
        self.configuration = configuration
        self.packetizer = packetizer
        let slot = RTPHeader.fixedSize + configuration.payloader.maxPayloadSize + 2
        queue = PacketQueue(capacity: configuration.queueCapacity, slotSize: slot)
        history = PacketHistory(capacity: configuration.historySize, maxPacketSize: slot)
        batch = DatagramBatch()
        switch configuration.pacing {
        case .unpaced:
            pacer = .unpaced
            paced = false
        case .paced(let bitrate, let factor):
            pacer = Pacer(targetBitrate: bitrate, pacingFactor: factor)
            paced = true
        }
        rtcp = RTCPSenderSession(configuration: .init(
            ssrc: configuration.ssrc, cname: configuration.cname, reportInterval: configuration.reportInterval,
            minKeyframeRequestInterval: configuration.minKeyframeRequestInterval))
        rtx = configuration.rtx.map { RTXEncoder(payloadType: $0.payloadType, ssrc: $0.ssrc) }
        rtxBuffer = [UInt8](repeating: 0, count: slot + 2)
        if let keys = configuration.srtp {
            srtp = try SRTPSession(configuration: keys, replayWindow: max(configuration.historySize, SRTPSession.defaultReplayWindow))
            wire = SRTPWireBuffer(slots: Int(CUDP_MAX_BATCH) + 1, maxPacketSize: max(slot + 2, Self.maxRTCPPacket),
                                  trailer: SRTPSession.maxRTCPTrailer)
        } else {
            srtp = nil
            wire = nil
        }
    }

    mutating func setTargetBitrate(_ bitsPerSecond: UInt64) {
        if paced { pacer.setTargetBitrate(bitsPerSecond) }
    }

    /// One turn of the I/O loop: due RTCP, then the packets the pacer allows. Returns how long the loop may sleep,
    /// whether it should wait for the socket to become writable, and whether the sender is done (closed).
    mutating func service(now: RTPInstant, rtp: UDPSocket, rtcp rtcpSocket: UDPSocket, warnings: inout [String]) -> (Duration, Bool, Bool) {
        if let report = rtcp.makeReportIfDue(now: now) { sendRTCP(report, on: rtcpSocket, warnings: &warnings) }
        writeBlocked = !queue.isEmpty && sendQueued(now: now, socket: rtp, refusalLimit: 3, warnings: &warnings) == .blocked
        if let deadline = closeDeadline {
            if queue.isEmpty, drainedAt == nil { drainedAt = now }
            var byeTime = drainedAt.map { min($0 + configuration.goodbyeDelay, deadline) } ?? deadline
            if queue.isEmpty, now < byeTime, peerIsNotListening(rtp) { byeTime = now }
            if now >= byeTime {
                sendRTCP(rtcp.makeGoodbye(now: now), on: rtcpSocket, warnings: &warnings)
                return (.zero, false, true)
            }
            if queue.isEmpty { return (byeTime - now, false, false) }
        }
        var wait = SenderCore.maxWait
        if !queue.isEmpty && !writeBlocked { wait = min(wait, pacer.nextSendTime(now: now) - now) }
        if let next = rtcp.nextReportTime { wait = min(wait, next - now) }
        return (max(wait, .zero), writeBlocked, false)
    }

    /// The BYE linger (`goodbyeDelay`) is for a receiver still reading our last packets; with nobody listening it
    /// only makes `close()` slow. Nobody listens when the last datagrams were refused (ICMP port unreachable,
    /// reported on the connected RTP socket: by a send, or pending and checked here — the loop comes back at
    /// least every `SenderCore.maxWait`, so an ICMP error arriving during the linger ends it) and the peer never
    /// sent RTCP. With rtcp-mux the socket is not connected, no refusal is ever reported, and the linger stays.
    private mutating func peerIsNotListening(_ rtp: UDPSocket) -> Bool {
        guard stats.rtcpPacketsReceived == 0 else { return false }
        if !refusedAfterLastSend, rtp.takePendingRefusal() {
            stats.icmpErrors += 1
            refusedAfterLastSend = true
        }
        return refusedAfterLastSend
    }

    private mutating func sendRTCP(_ bytes: [UInt8], on socket: UDPSocket, warnings: inout [String]) {
        let target = configuration.destinationRTCP
        let srtp = self.srtp, wire = self.wire
        let result: Result<UDPSocket.SendOutcome, RTPError> = bytes.withUnsafeBytes { buffer in
            do throws(RTPError) {
                // SRTCP goes through the wire buffer's last slot (the RTP batch uses the others).
                let datagram = if let srtp, let wire { try wire.protect(rtcp: buffer, slot: wire.slots - 1, with: srtp) } else { buffer }
                return .success(try socket.send(datagram, to: target))
            } catch { return .failure(error) }
        }
        switch result {
        case .success(.connectionRefused): stats.icmpErrors += 1
        case .success: break
        case .failure(let error):
            stats.sendErrors += 1
            warnOnce("rtcp", "RTCP send failed: \(error)", &warnings)
        }
    }

    mutating func handleRTCP(_ datagram: [UInt8], from: SocketAddress, now: RTPInstant, rtcp rtcpSocket: UDPSocket,
                             keyframe: inout Bool, limits: inout [UInt64]) {
        // Any source port of the peer's host (GStreamer sends from an ephemeral port); other hosts are ignored.
        guard from.sameHost(as: configuration.destination) else {
            stats.rtcpPacketsIgnored += 1
            return
        }
        var datagram = datagram
        if let srtp {
            // SRTCP: nothing unauthenticated is parsed, let alone acted on (a forged PLI or REMB would steer us).
            let unprotected: Result<Int, RTPError> = datagram.withUnsafeMutableBytes { buffer in
                do throws(RTPError) { return .success(try srtp.unprotectRTCP(buffer, length: buffer.count)) } catch { return .failure(error) }
            }
            let length: Int
            switch unprotected {
            case .success(let count): length = count
            case .failure:
                // Forged, replayed, plain RTCP, or too short to carry an SRTCP trailer: all unauthenticated.
                stats.rtcpPacketsUnauthenticated += 1
                return
            }
            datagram.removeLast(datagram.count - length)
        }
        let actions: [RTCPSenderSession.FeedbackAction]
        do throws(RTPError) { actions = try rtcp.receive(datagram[...], now: now) } catch {
            stats.rtcpPacketsMalformed += 1
            return
        }
        stats.rtcpPacketsReceived += 1
        var unused: [String] = []
        for action in actions {
            switch action {
            case .requestKeyframe:
                keyframe = true
                stats.keyframeRequestsForwarded += 1
            case .limitBitrate(let bitrate):
                limits.append(bitrate)
                setTargetBitrate(bitrate)
            case .retransmit(let sequenceNumbers):
                for sequenceNumber in sequenceNumbers.reversed() { retransmit(sequenceNumber) }
            case .reply(let bytes):
                sendRTCP(bytes, on: rtcpSocket, warnings: &unused)
            }
        }
    }

    /// Puts a NACKed packet at the front of the queue, as RTX (RFC 4588) when negotiated.
    private mutating func retransmit(_ sequenceNumber: UInt16) {
        let queue = self.queue
        var rtx = self.rtx
        var rtxBuffer = self.rtxBuffer
        let found: Bool? = history.withPacket(sequenceNumber) { bytes, _ in
            let info = PacketQueue.Info(sequenceNumber: sequenceNumber, isRetransmission: true)
            guard rtx != nil else { return queue.pushFront(bytes, info: info) }
            let length: Int? = rtxBuffer.withUnsafeMutableBytes { out in try? rtx?.encode(bytes, into: out) }
            guard let length else { return false }
            return rtxBuffer.withUnsafeBytes { queue.pushFront(UnsafeRawBufferPointer(rebasing: $0[0 ..< length]), info: info) }
        }
        self.rtx = rtx
        self.rtxBuffer = rtxBuffer
        if found != true { stats.retransmissionsMissed += 1 }
    }

    mutating func snapshot(now: RTPInstant) -> RTPSenderStatistics {
        var s = stats
        s.bitrate = rate.bitsPerSecond(now: now)
        let peer = rtcp.peer
        s.keyframeRequestsReceived = peer.keyframeRequestsReceived
        s.nackedPackets = peer.nackedPackets
        s.lastBitrateLimit = peer.lastBitrateLimit
        s.roundTripTime = peer.roundTripTime
        s.fractionLost = peer.fractionLost
        s.cumulativeLost = peer.cumulativeLost
        s.jitter = peer.jitter
        s.queuedPackets = queue.count
        return s
    }

    mutating func warnOnce(_ kind: String, _ message: String, _ warnings: inout [String]) {
        if warned.insert(kind).inserted { warnings.append(message) }
    }
}

/// The sendmmsg(2) descriptor array, allocated once.
final class DatagramBatch {
    let datagrams = UnsafeMutableBufferPointer<cudp_datagram>.allocate(capacity: Int(CUDP_MAX_BATCH))
    deinit { datagrams.deallocate() }
}
