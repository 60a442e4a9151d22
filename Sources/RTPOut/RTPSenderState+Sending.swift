import CUDPShim

/// How media packets reach the socket: packetizing into the queue (paced) or straight onto the wire (unpaced), and
/// the sendmmsg loop both share.
extension SenderState {
    /// Paced: packetizes into the queue for the I/O thread. A full queue drops the packet and counts it — a live
    /// stream must not stall its encoder behind a slow link, and a late packet is worth little anyway.
    mutating func enqueue(_ nalUnits: [ArraySlice<UInt8>], rtpTimestamp: UInt32, isKeyframe: Bool, captureTime: RTPInstant)
        throws(RTPError) {
        var dropped = 0
        let queue = self.queue
        try packetizer.packetize(nalUnits, timestamp: rtpTimestamp) { bytes, sequenceNumber, _ in
            if !queue.pushBack(bytes, info: Self.info(bytes, sequenceNumber, rtpTimestamp, captureTime)) { dropped += 1 }
        }
        stats.packetsDropped += dropped
        countAccessUnit(isKeyframe: isKeyframe)
    }

    /// Unpaced: packetizes into the queue and sends the whole access unit now, on the caller's thread, with as few
    /// sendmmsg(2) calls as the batch size allows. Nothing is dropped: a full queue (an access unit larger than
    /// the queue) is sent before packetizing goes on, and a full socket is waited for (`drain`), so a file-to-file
    /// caller is held back instead of losing packets. Only a socket that takes nothing for `unpacedStallLimit`
    /// loses the rest of the access unit (counted, with a warning).
    mutating func sendUnpaced(_ nalUnits: [ArraySlice<UInt8>], rtpTimestamp: UInt32, isKeyframe: Bool, captureTime: RTPInstant,
                              socket: UDPSocket,
                              warnings: inout [String]) throws(RTPError) {
        let queue = self.queue, packetizer = self.packetizer
        var dropped = 0
        try packetizer.packetize(nalUnits, timestamp: rtpTimestamp) { bytes, sequenceNumber, _ in
            if queue.isFull { drain(socket: socket, warnings: &warnings) }
            if !queue.pushBack(bytes, info: Self.info(bytes, sequenceNumber, rtpTimestamp, captureTime)) { dropped += 1 }
        }
        stats.packetsDropped += dropped
        countAccessUnit(isKeyframe: isKeyframe)
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

    /// `isKeyframe` comes from whoever produced the access unit: the sender does not scan for it.
    private mutating func countAccessUnit(isKeyframe: Bool) {
        stats.accessUnitsSent += 1
        if isKeyframe { stats.keyframesSent += 1 }
    }

    enum SendResult { case empty, paced, blocked }

    /// Sends queued packets while the pacer allows, in sendmmsg batches. ECONNREFUSED reports an ICMP error for an
    /// earlier datagram and sends nothing, so the batch is tried again: each refusal consumes one pending error,
    /// so the next call makes progress. `refusalLimit` bounds that per call on the I/O thread (which comes back
    /// soon); the unpaced caller passes nil and goes on until its access unit is out.
    mutating func sendQueued(now: RTPInstant, socket: UDPSocket, refusalLimit: Int?, warnings: inout [String]) -> SendResult {
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
}
