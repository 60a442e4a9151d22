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

    /// Paced: packetizes into the queue for the I/O thread. A full queue drops the packet and counts it — a live
    /// stream must not stall its encoder behind a slow link, and a late packet is worth little anyway.
    mutating func enqueue(_ nalUnits: [ArraySlice<UInt8>], rtpTimestamp: UInt32, captureTime: RTPInstant) throws(RTPError) {
        var dropped = 0
        let queue = self.queue
        try packetizer.packetize(nalUnits, timestamp: rtpTimestamp) { bytes, sequenceNumber, _ in
            if !queue.pushBack(bytes, info: Self.info(bytes, sequenceNumber, rtpTimestamp, captureTime)) { dropped += 1 }
        }
        stats.packetsDropped += dropped
        countAccessUnit(nalUnits)
    }

    /// Unpaced: packetizes into the queue and sends the whole access unit now, on the caller's thread, with as few
    /// sendmmsg(2) calls as the batch size allows. Nothing is dropped: a full queue (an access unit larger than
    /// the queue) is sent before packetizing goes on, and a full socket is waited for (`drain`), so a file-to-file
    /// caller is held back instead of losing packets. Only a socket that takes nothing for `unpacedStallLimit`
    /// loses the rest of the access unit (counted, with a warning).
    mutating func sendUnpaced(_ nalUnits: [ArraySlice<UInt8>], rtpTimestamp: UInt32, captureTime: RTPInstant, socket: UDPSocket,
                              warnings: inout [String]) throws(RTPError) {
        let queue = self.queue, packetizer = self.packetizer
        var dropped = 0
        try packetizer.packetize(nalUnits, timestamp: rtpTimestamp) { bytes, sequenceNumber, _ in
            if queue.isFull { drain(socket: socket, warnings: &warnings) }
            if !queue.pushBack(bytes, info: Self.info(bytes, sequenceNumber, rtpTimestamp, captureTime)) { dropped += 1 }
        }
        stats.packetsDropped += dropped
        countAccessUnit(nalUnits)
        drain(socket: socket, warnings: &warnings)
    }

    /// A socket that takes no datagram for this long (never seen on a working interface) makes an unpaced send
    /// give up on what is queued rather than hang its caller.
    static let unpacedStallLimit: Duration = .seconds(2)

    /// Sends everything queued, waiting for writability whenever the socket is full (unpaced mode only: the pacer
    /// lets everything through).
    private mutating func drain(socket: UDPSocket, warnings: inout [String]) {
        var now = wallClockNow()
        var stalledSince: RTPInstant?
        while !queue.isEmpty {
            let before = queue.count
            switch sendQueued(now: now, socket: socket, refusalLimit: nil, warnings: &warnings) {
            case .empty, .paced: return  // .paced cannot happen: the unpaced pacer lets everything through
            case .blocked: break
            }
            if queue.count < before { stalledSince = nil }
            let since = stalledSince ?? now
            stalledSince = since
            if now - since >= Self.unpacedStallLimit {
                stats.packetsDropped += queue.count
                queue.popFront(queue.count)
                warnOnce("stall", "RTP socket took nothing for \(Self.unpacedStallLimit); queued packets dropped", &warnings)
                return
            }
            _ = socket.waitUntilWritable(timeout: SenderCore.maxWait)
            now = wallClockNow()
        }
    }

    private static func info(_ bytes: UnsafeRawBufferPointer, _ sequenceNumber: UInt16, _ rtpTimestamp: UInt32,
                             _ captureTime: RTPInstant) -> PacketQueue.Info {
        PacketQueue.Info(sequenceNumber: sequenceNumber, payloadBytes: bytes.count - RTPHeader.fixedSize,
                         rtpTimestamp: rtpTimestamp, captureTime: captureTime)
    }

    private mutating func countAccessUnit(_ nalUnits: [ArraySlice<UInt8>]) {
        stats.accessUnitsSent += 1
        if nalUnits.contains(where: { $0.first.map { H264NAL.type($0) == H264NAL.idrSlice } ?? false }) { stats.keyframesSent += 1 }
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

    enum SendResult { case empty, paced, blocked }

    /// Sends queued packets while the pacer allows, in sendmmsg batches. ECONNREFUSED reports an ICMP error for an
    /// earlier datagram and sends nothing, so the batch is tried again: each refusal consumes one pending error,
    /// so the next call makes progress. `refusalLimit` bounds that per call on the I/O thread (which comes back
    /// soon); the unpaced caller passes nil and goes on until its access unit is out.
    private mutating func sendQueued(now: RTPInstant, socket: UDPSocket, refusalLimit: Int?, warnings: inout [String]) -> SendResult {
        let destination = configuration.rtcpMux ? configuration.destination : nil
        var refusals = 0
        while !queue.isEmpty {
            var count = 0
            var unprotectable = false
            var plan = pacer  // charged for real only with what the socket took
            while count < min(queue.count, Int(CUDP_MAX_BATCH)), plan.nextSendTime(now: now) <= now {
                var (bytes, _) = queue.peek(count)
                if let srtp, let wire {
                    do throws(RTPError) { bytes = try wire.protect(rtp: bytes, slot: count, with: srtp) } catch {
                        stats.sendErrors += 1
                        warnOnce("srtp", "SRTP protection failed, packet dropped: \(error)", &warnings)
                        unprotectable = true
                        break
                    }
                }
                batch.datagrams[count] = cudp_datagram(base: bytes.baseAddress, length: bytes.count)
                plan.didSend(bytes: bytes.count, now: now)
                count += 1
            }
            if unprotectable, count == 0 {
                queue.popFront(1)  // it can never be sent; the ones behind it can
                continue
            }
            guard count > 0 else { return .paced }
            let outcome: UDPSocket.SendOutcome
            do throws(RTPError) {
                outcome = try socket.sendBatch(UnsafeBufferPointer(rebasing: batch.datagrams[0 ..< count]), to: destination,
                                               segmented: segmentationOffload)
            } catch {
                // An error that is not about the peer (EPERM from a firewall, EMSGSIZE…): drop the batch, go on.
                stats.sendErrors += 1
                warnOnce("send", "RTP send failed, packets dropped: \(error)", &warnings)
                queue.popFront(count)
                continue
            }
            switch outcome {
            case .sent(let sent):
                for i in 0 ..< sent { pacer.didSend(bytes: batch.datagrams[i].length, now: now) }
                record(sent, now: now)
                queue.popFront(sent)
                guard sent > 0 else { return .blocked }
                refusedAfterLastSend = false
                // Fewer than given: the kernel stopped at an error (ICMP refusal or a full buffer), which the next
                // call reports, so go round again rather than wait.
            case .wouldBlock:
                return .blocked
            case .segmentationUnsupported:
                segmentationOffload = false  // for good: the same batch goes again, one datagram per message
            case .connectionRefused:
                stats.icmpErrors += 1
                refusedAfterLastSend = true
                warnOnce("icmp", "peer \(configuration.destination) not listening (ICMP port unreachable); still sending", &warnings)
                refusals += 1
                if let refusalLimit, refusals > refusalLimit { return .blocked }
            }
        }
        return .empty
    }

    private mutating func record(_ count: Int, now: RTPInstant) {
        for i in 0 ..< count {
            let (bytes, info) = queue.peek(i)
            if info.isRetransmission {
                stats.packetsRetransmitted += 1
            } else {
                history.store(bytes, sequenceNumber: info.sequenceNumber, sentAt: now)
                rtcp.rtpSent(payloadBytes: info.payloadBytes, rtpTimestamp: info.rtpTimestamp, captureTime: info.captureTime, now: now)
            }
            let wireBytes = bytes.count + (srtp?.suite.rtpTagLength ?? 0)
            stats.packetsSent += 1
            stats.bytesSent += wireBytes
            rate.add(wireBytes, now: now)
        }
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
