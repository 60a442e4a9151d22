import CUDPShim
import Glibc
import Synchronization

/// The driver of one `RTPSendSession` over UDP: what an `RTPSender`'s I/O thread (or the shared loop) and, unpaced,
/// the caller's thread do with it. The session sits behind a lock taken only for its calls — never across a system
/// call: a transmit is polled under the lock, protected (SRTP) and sent outside it, and reported under it again;
/// RTCP is read and unprotected outside it and handled under it; events are polled under it and the application's
/// callbacks run outside it.
///
/// `@unchecked Sendable`: the sockets and the wake signal are file-descriptor wrappers whose calls are thread-safe
/// in the kernel and which are immutable after init; the session is behind its lock; the SRTP contexts are one per
/// direction (outbound used by whoever holds the session's transmit, inbound by the I/O thread only); `batch` and
/// `wire` are used only by the holder of the session's one outstanding transmit (see `transmitOnce`).
final class SenderCore: @unchecked Sendable {
    struct Callbacks: Sendable {
        var onKeyframeRequest: (@Sendable () -> Void)?
        var onBitrateLimit: (@Sendable (UInt64) -> Void)?
        var onWarning: (@Sendable (String) -> Void)?
    }

    /// The loop never sleeps longer than this, so close(), clock jumps and pending ICMP errors are noticed.
    static let maxWait: Duration = .milliseconds(50)
    /// Largest datagram read from the RTCP socket.
    static let maxRTCPDatagram = 2048
    /// A socket that takes no datagram for this long (never seen on a working interface) makes an unpaced send
    /// give up on what is queued rather than hang its caller.
    static let unpacedStallLimit: Duration = .seconds(2)
    /// ECONNREFUSED consumes one pending ICMP error per send attempt: the I/O thread retries this often per turn,
    /// then comes back later (an unpaced caller goes on until its access unit is out).
    static let refusalsPerTurn = 3

    let configuration: RTPSenderConfiguration
    let session: Mutex<RTPSendSession>
    let rtpSocket: UDPSocket
    let rtcpSocket: UDPSocket
    let wake: WakeSignal
    let callbacks: Callbacks
    /// The shared loop serving this sender (`RTPSenderIOLoop`), or nil when it has a thread of its own.
    let sharedLoop: SharedSenderLoop?
    /// Set when this sender has work the shared loop must not wait for (a new access unit, close, feedback).
    let pending = Atomic<Bool>(false)
    let paced: Bool
    /// SRTP/SRTCP: the crypto contexts, and where the transmit's packets are protected (RTP: one slot per batch
    /// entry; RTCP: the last slot). Queue and history keep plaintext; see `SRTPWireBuffer`.
    let srtp: SRTPSession?
    let wire: SRTPWireBuffer?
    let batch = DatagramBatch()
    /// Send runs of equal-sized packets as UDP GSO messages until the kernel says it cannot (`UDPSocket.sendBatch`).
    let segmentationOffload = Atomic<Bool>(true)
    private var peerDescription: String { "peer \(configuration.destination)" }

    init(configuration: RTPSenderConfiguration, payloader: sending H264Payloader, rtpSocket: UDPSocket, rtcpSocket: UDPSocket,
         wake: WakeSignal, callbacks: Callbacks, sharedLoop: SharedSenderLoop? = nil) throws(RTPError) {
        let srtp = try configuration.srtp.map { keys throws(RTPError) in
            try SRTPSession(configuration: keys, replayWindow: max(configuration.historySize, SRTPSession.defaultReplayWindow))
        }
        let sessionConfiguration = configuration.sessionConfiguration(batchSize: Int(CUDP_MAX_BATCH),
                                                                      wireOverhead: srtp?.suite.rtpTagLength ?? 0)
        let slot = payloader.headroom + payloader.maxPayloadSize + 2
        self.configuration = configuration
        session = Mutex(try RTPSendSession(configuration: sessionConfiguration, payloader: payloader))
        if case .unpaced = configuration.pacing { paced = false } else { paced = true }
        self.srtp = srtp
        wire = srtp.map { _ in
            SRTPWireBuffer(slots: Int(CUDP_MAX_BATCH) + 1, maxPacketSize: max(slot + 2, RTPSendSession.maxRTCPPacket),
                           trailer: SRTPSession.maxRTCPTrailer)
        }
        self.rtpSocket = rtpSocket
        self.rtcpSocket = rtcpSocket
        self.wake = wake
        self.callbacks = callbacks
        self.sharedLoop = sharedLoop
    }

    /// Asks whichever thread serves this sender to look at it now.
    func requestService() {
        guard let sharedLoop else { return wake.signal() }
        pending.store(true, ordering: .sequentiallyConsistent)
        sharedLoop.notify()
    }

    // MARK: Media in (caller's thread)

    /// Queues an access unit (`enqueue` runs under the lock) and gets it going: paced, the I/O thread is asked to
    /// look; unpaced, this thread sends it (`sendQueued`) before returning.
    func send<Result: Sendable>(_ enqueue: (inout RTPSendSession, RTPInstant) throws(RTPError) -> Result) throws(RTPError) -> Result {
        let now = wallClockNow()
        let (result, firstReportPending) = try session.withLock { session throws(RTPError) in
            (try enqueue(&session, now), session.rtcp.nextReportTime == nil)
        }
        guard !paced else {
            requestService()
            return result
        }
        sendQueued()
        // Nothing is left for the I/O thread but RTCP; it learns when the first report is due from a wake-up.
        if firstReportPending, session.withLock({ $0.rtcp.nextReportTime != nil }) { requestService() }
        return result
    }

    /// Unpaced: sends everything queued with as few sendmmsg(2) calls as the batch size allows. Nothing is dropped:
    /// a full socket is waited for (outside the lock), so a file-to-file caller is held back instead of losing
    /// packets. Only a socket that takes nothing for `unpacedStallLimit` loses what is queued (counted, warned).
    private func sendQueued() {
        var stalledSince: RTPInstant?
        var refusals = 0
        loop: while true {
            switch transmitOnce(refusals: &refusals) {
            case .idle:
                break loop
            case .busy:
                sched_yield()  // the I/O thread is sending a retransmission or a report: microseconds
            case .sent(let packets):
                if packets > 0 { stalledSince = nil }
            case .blocked:
                let now = wallClockNow()
                let since = stalledSince ?? now
                stalledSince = since
                if now - since >= Self.unpacedStallLimit {
                    session.withLock { $0.transportStalled(for: Self.unpacedStallLimit, at: now) }
                    break loop
                }
                _ = rtpSocket.waitUntilWritable(timeout: Self.maxWait)
            }
        }
        deliverEvents()
    }

    // MARK: One transmit

    enum Step {
        /// Nothing to send now.
        case idle
        /// Another thread holds the session's transmit.
        case busy
        /// Progress: this many RTP packets taken by the socket (0 after a refusal, a GSO fallback or a drop).
        case sent(Int)
        /// The socket is full.
        case blocked
    }

    /// Polls one transmit under the lock, protects and sends it outside, reports under the lock. `batch` and `wire`
    /// are this transmit's: the session hands out no other until the report.
    func transmitOnce(refusals: inout Int) -> Step {
        let now = wallClockNow()
        let (polled, busy) = session.withLock { session in
            let transmit = session.pollTransmit(at: now)
            return (transmit, transmit == nil && session.hasOutstandingTransmit)
        }
        guard let transmit = polled else { return busy ? .busy : .idle }
        switch transmit.kind {
        case .rtcp: return sendRTCP(transmit, now: now)
        case .rtp: return sendRTP(transmit, now: now, refusals: &refusals)
        }
    }

    private func sendRTCP(_ transmit: RTPTransmit, now: RTPInstant) -> Step {
        let outcome: Result<UDPSocket.SendOutcome, RTPError>
        do throws(RTPError) {
            var datagram = transmit.datagrams[0]
            // SRTCP goes through the wire buffer's last slot (the RTP batch uses the others).
            if let srtp, let wire { datagram = try wire.protect(rtcp: datagram, slot: wire.slots - 1, with: srtp) }
            outcome = .success(try rtcpSocket.send(datagram, to: configuration.destinationRTCP))
        } catch {
            outcome = .failure(error)
        }
        let sentAt = wallClockNow()
        session.withLock { session in
            switch outcome {
            case .success(.sent(let count)): session.didTransmit(count, at: sentAt)
            case .success(.connectionRefused):
                session.peerRefused(at: sentAt, peer: peerDescription)
                session.didTransmit(0, at: sentAt)
            case .success: session.didTransmit(0, at: sentAt)
            case .failure(let error): session.didFailTransmit(.sendFailed("\(error)"), dropping: 1, at: sentAt)
            }
        }
        return .sent(0)
    }

    private func sendRTP(_ transmit: RTPTransmit, now: RTPInstant, refusals: inout Int) -> Step {
        var count = 0
        for packet in transmit.datagrams {
            var bytes = packet
            if let srtp, let wire {
                do throws(RTPError) { bytes = try wire.protect(rtp: packet, slot: count, with: srtp) } catch {
                    guard count == 0 else { break }  // send the ones before it; it comes first next time
                    session.withLock { $0.didFailTransmit(.protectionFailed("\(error)"), dropping: 1, at: now) }
                    return .sent(0)
                }
            }
            batch.datagrams[count] = cudp_datagram(base: bytes.baseAddress, length: bytes.count)
            count += 1
        }
        let destination = configuration.rtcpMux ? configuration.destination : nil
        let segmented = segmentationOffload.load(ordering: .relaxed)
        let outcome: Result<UDPSocket.SendOutcome, RTPError>
        do throws(RTPError) {
            outcome = .success(try rtpSocket.sendBatch(UnsafeBufferPointer(rebasing: batch.datagrams[0 ..< count]), to: destination,
                                                       segmented: segmented))
        } catch {
            outcome = .failure(error)
        }
        let sentAt = wallClockNow()
        return session.withLock { session -> Step in
            switch outcome {
            case .success(.sent(let sent)):
                // Fewer than given: the kernel stopped at an error (ICMP refusal or a full buffer), which the next
                // call reports, so go round again rather than wait.
                session.didTransmit(sent, at: sentAt, socketFull: sent == 0)
                return sent > 0 ? .sent(sent) : .blocked
            case .success(.wouldBlock):
                session.didTransmit(0, at: sentAt, socketFull: true)
                return .blocked
            case .success(.segmentationUnsupported):
                segmentationOffload.store(false, ordering: .relaxed)  // for good: the same batch goes again, unsegmented
                session.didTransmit(0, at: sentAt)
                return .sent(0)
            case .success(.connectionRefused):
                session.peerRefused(at: sentAt, peer: peerDescription)
                session.didTransmit(0, at: sentAt)
                refusals += 1
                return refusals > Self.refusalsPerTurn && paced ? .blocked : .sent(0)
            case .failure(let error):
                // An error that is not about the peer (EPERM from a firewall, EMSGSIZE…): drop the batch, go on.
                session.didFailTransmit(.sendFailed("\(error)"), dropping: count, at: sentAt)
                return .sent(0)
            }
        }
    }

    // MARK: The I/O thread's turn

    /// One turn: everything due goes out (RTCP, what the pacer allows, the BYE), then the events go to the
    /// application. Returns how long the sender may be left alone, whether it waits for its RTP socket to become
    /// writable, and whether it is done (closed).
    func serviceOnce(now: RTPInstant) -> (wait: Duration, blocked: Bool, done: Bool) {
        var blocked = false
        var refusals = 0
        loop: while true {
            switch transmitOnce(refusals: &refusals) {
            case .idle, .busy: break loop
            case .blocked:
                blocked = true
                break loop
            case .sent: continue
            }
        }
        let (wantsRefusalCheck, next, done) = deliverEvents()
        // The BYE linger ends early when nobody listens: an ICMP error pending on the connected RTP socket says so
        // (with rtcp-mux the socket is not connected, no refusal is ever reported, and the linger stays).
        if wantsRefusalCheck, !configuration.rtcpMux, rtpSocket.takePendingRefusal() {
            session.withLock { $0.peerRefused(at: wallClockNow(), peer: peerDescription) }
            return serviceOnce(now: wallClockNow())  // the BYE is due now; no second check (the refusal is seen)
        }
        let wait = next.map { $0 - wallClockNow() } ?? Self.maxWait
        return (min(max(wait, .zero), Self.maxWait), blocked, done)
    }

    /// Takes the session's events under the lock and runs the callbacks outside it. A bitrate limit also moves the
    /// pacing rate (as `onBitrateLimit` documents). Returns what the turn needs next from the same lock.
    @discardableResult
    func deliverEvents() -> (wantsRefusalCheck: Bool, next: RTPInstant?, done: Bool) {
        let (events, wantsRefusalCheck, next, done) = session.withLock { session in
            var events: [RTPSendEvent] = []
            while let event = session.pollEvent() {
                if case .bitrateLimit(let bitrate) = event { session.setTargetBitrate(bitrate) }
                events.append(event)
            }
            return (events, session.wantsRefusalCheck, session.nextTimeout(), session.isClosed)
        }
        for event in events {
            switch event {
            case .keyframeRequested: callbacks.onKeyframeRequest?()
            case .bitrateLimit(let bitrate): callbacks.onBitrateLimit?(bitrate)
            case .warning(let warning): callbacks.onWarning?(warning.message)
            case .retransmissionMissed, .goodbyeSent: break
            }
        }
        return (wantsRefusalCheck, next, done)
    }

    func runLoop() {
        let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.maxRTCPDatagram, alignment: 8)
        defer { receiveBuffer.deallocate() }
        var poller = Poller(readable: [rtcpSocket.fileDescriptor, wake.fileDescriptor],
                            // With rtcp-mux the same descriptor again, in a POLLOUT entry of its own (poll(2)
                            // takes a descriptor twice): a full socket is then waited for, not retried after maxWait.
                            writable: rtpSocket.fileDescriptor)
        while true {
            let (wait, blocked, done) = serviceOnce(now: wallClockNow())
            if done { return }
            poller.watchWritable(blocked)
            poller.wait(timeout: wait)
            if poller.isReadable(wake.fileDescriptor) { wake.drain() }
            if poller.isReadable(rtcpSocket.fileDescriptor) { readRTCP(into: receiveBuffer) }
        }
    }

    // MARK: RTCP in (I/O thread)

    /// Reads every waiting RTCP datagram, checks the host and unprotects SRTCP outside the lock, and hands the
    /// plaintext to the session under it. The service turn that follows sends any reply and delivers the events.
    func readRTCP(into buffer: UnsafeMutableRawBufferPointer) {
        while true {
            let received: (count: Int, from: SocketAddress)?
            do throws(RTPError) { received = try rtcpSocket.receive(into: buffer) } catch { break }
            guard let (count, from) = received else { break }
            // Any source port of the peer's host (GStreamer sends from an ephemeral port); other hosts are ignored.
            guard from.sameHost(as: configuration.destination) else {
                session.withLock { $0.discarded(rtcp: .otherHost) }
                continue
            }
            var length = count
            if let srtp {
                // SRTCP: nothing unauthenticated is parsed, let alone acted on (a forged PLI or REMB would steer us).
                do throws(RTPError) { length = try srtp.unprotectRTCP(UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< count]), length: count) } catch {
                    // Forged, replayed, plain RTCP, or too short to carry an SRTCP trailer: all unauthenticated.
                    session.withLock { $0.discarded(rtcp: .unauthenticated) }
                    continue
                }
            }
            let datagram = Array(UnsafeRawBufferPointer(rebasing: buffer[0 ..< length]))
            let now = wallClockNow()
            session.withLock { $0.handle(rtcp: datagram[...], at: now) }
        }
    }
}

/// The sendmmsg(2) descriptor array, allocated once.
final class DatagramBatch {
    let datagrams = UnsafeMutableBufferPointer<cudp_datagram>.allocate(capacity: Int(CUDP_MAX_BATCH))
    deinit { datagrams.deallocate() }
}
