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
/// `wire` are used only by the holder of the session's one outstanding transmit (see `transmitDue`).
final class SenderCore: @unchecked Sendable {
    struct Callbacks: Sendable {
        var onKeyframeRequest: (@Sendable () -> Void)?
        var onBitrateLimit: (@Sendable (UInt64) -> Void)?
        var onTransportFeedback: (@Sendable (TransportPacketsFeedback) -> Void)? = nil
        var onWarning: (@Sendable (String) -> Void)?
        var onPacketsSent: (@Sendable ([SentPacket]) -> Void)? = nil
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
    /// Nobody owns the rate (no `onBitrateLimit` handler): a REMB/TMMBR limit moves the pacer here.
    let followsPeerLimits: Bool
    /// The sent-packet path, when there is an `onPacketsSent` handler and the session numbers its packets.
    let sentPackets: SentPacketOutbox?
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

    init(configuration: RTPSenderConfiguration, payloader: sending any RTPPayloader, rtpSocket: UDPSocket, rtcpSocket: UDPSocket,
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
        followsPeerLimits = callbacks.onBitrateLimit == nil
        sentPackets = sessionConfiguration.tracksSentPackets ? callbacks.onPacketsSent.map { SentPacketOutbox(handler: $0) } : nil
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
        while true {
            let turn = transmitDue(refusalLimit: nil)
            deliver(turn.events)
            if turn.packetsSent > 0 { stalledSince = nil }
            if turn.busy {
                sched_yield()  // the I/O thread is sending a retransmission or a report: microseconds
            } else if turn.blocked {
                let now = wallClockNow()
                let since = stalledSince ?? now
                stalledSince = since
                if now - since >= Self.unpacedStallLimit {
                    let events = session.withLock { session in
                        session.transportStalled(for: Self.unpacedStallLimit, at: now)
                        return Self.takeEvents(&session, followLimits: followsPeerLimits, sent: sentPackets)
                    }
                    deliver(events)
                    return
                }
                _ = rtpSocket.waitUntilWritable(timeout: Self.maxWait)
            } else {
                return
            }
        }
    }

    // MARK: Transmitting

    /// How a run of transmits ended, with what the caller needs next, gathered under the run's last lock.
    struct TurnEnd {
        var events: [RTPSendEvent] = []
        var packetsSent = 0
        /// The socket is full (or refused too often this turn): wait for writability.
        var blocked = false
        /// Another thread holds the session's transmit.
        var busy = false
        var wantsRefusalCheck = false
        /// A refusal probe is due (`RTPSendSession.refusalProbeIsDue`).
        var refusalProbeDue = false
        var next: RTPInstant?
        var done = false
    }

    /// What the socket did with a transmit.
    private enum Report {
        case sent(Int, socketFull: Bool)
        case refused
        case segmentationUnsupported
        case failed(RTPSendSession.TransmitFailure, dropping: Int)
    }

    /// Sends what is due, one transmit at a time: each is polled under the lock, protected and sent outside it, and
    /// reported under it together with the poll for the next one (one lock per transmit). `batch` and `wire` are the
    /// current transmit's: the session hands out no other until it is reported. Ends when nothing is due, another
    /// thread holds the transmit, or the socket is full; `refusalLimit` bounds the ECONNREFUSED retries (each
    /// consumes one pending ICMP error), nil = until the queue is out.
    func transmitDue(refusalLimit: Int?) -> TurnEnd {
        var refusals = 0
        var packetsSent = 0
        var (transmit, end) = session.withLock { session in
            Self.pollOrEnd(&session, now: wallClockNow(), followLimits: followsPeerLimits, sent: sentPackets)
        }
        while let current = transmit {
            let report = current.kind == .rtp ? sendRTP(current) : sendRTCP(current)
            var blocked = false
            switch report {
            case .sent(let count, let socketFull) where current.kind == .rtp:
                packetsSent += count
                blocked = socketFull
            case .refused:
                refusals += 1
                if let refusalLimit, refusals > refusalLimit { blocked = true }
            case .segmentationUnsupported:
                segmentationOffload.store(false, ordering: .relaxed)  // for good: the same batch goes again, unsegmented
            default: break
            }
            let now = wallClockNow()
            (transmit, end) = session.withLock { session in
                switch report {
                case .sent(let count, let socketFull): session.didTransmit(count, at: now, socketFull: socketFull)
                case .refused:
                    session.peerRefused(at: now, peer: peerDescription)
                    session.didTransmit(0, at: now)
                case .segmentationUnsupported: session.didTransmit(0, at: now)
                case .failed(let failure, let dropping): session.didFailTransmit(failure, dropping: dropping, at: now)
                }
                guard !blocked else {
                    return (nil, Self.end(&session, now: now, blocked: true, followLimits: followsPeerLimits, sent: sentPackets))
                }
                return Self.pollOrEnd(&session, now: now, followLimits: followsPeerLimits, sent: sentPackets)
            }
        }
        var result = end ?? TurnEnd()
        result.packetsSent = packetsSent
        return result
    }

    private static func pollOrEnd(_ session: inout RTPSendSession, now: RTPInstant, followLimits: Bool,
                                  sent: SentPacketOutbox?) -> (RTPTransmit?, TurnEnd?) {
        if let transmit = session.pollTransmit(at: now) { return (transmit, nil) }
        return (nil, end(&session, now: now, blocked: false, followLimits: followLimits, sent: sent))
    }

    private static func end(_ session: inout RTPSendSession, now: RTPInstant, blocked: Bool, followLimits: Bool,
                            sent: SentPacketOutbox?) -> TurnEnd {
        TurnEnd(events: takeEvents(&session, followLimits: followLimits, sent: sent), blocked: blocked, busy: session.hasOutstandingTransmit,
                wantsRefusalCheck: session.wantsRefusalCheck, refusalProbeDue: session.refusalProbeIsDue(at: now),
                next: session.nextTimeout(), done: session.isClosed)
    }

    /// The session's events. A bitrate limit also moves the pacing rate when nobody owns the rate (`followLimits`: no
    /// `onBitrateLimit` handler); an application with a handler sets the pacing rate itself, together with the
    /// encoder's (`LiveBitrateController`), so the rate has one owner (as `onBitrateLimit` documents). The packets
    /// sent are taken first: a report among the events covers none that is not among them (or delivered before).
    private static func takeEvents(_ session: inout RTPSendSession, followLimits: Bool, sent: SentPacketOutbox?) -> [RTPSendEvent] {
        sent?.take(from: &session)
        var events: [RTPSendEvent] = []
        while let event = session.pollEvent() {
            if followLimits, case .bitrateLimit(let bitrate) = event { session.setTargetBitrate(bitrate) }
            events.append(event)
        }
        return events
    }

    /// The application's callbacks, outside the lock: the packets sent, then the events.
    private func deliver(_ events: [RTPSendEvent]) {
        sentPackets?.deliver()
        for event in events {
            switch event {
            case .keyframeRequested: callbacks.onKeyframeRequest?()
            case .bitrateLimit(let bitrate): callbacks.onBitrateLimit?(bitrate)
            case .transportFeedback(let feedback): callbacks.onTransportFeedback?(feedback)
            case .warning(let warning): callbacks.onWarning?(warning.message)
            case .retransmissionMissed, .goodbyeSent: break
            }
        }
    }

    private func sendRTCP(_ transmit: RTPTransmit) -> Report {
        do throws(RTPError) {
            var datagram = transmit.datagrams[0]
            // SRTCP goes through the wire buffer's last slot (the RTP batch uses the others).
            if let srtp, let wire { datagram = try wire.protect(rtcp: datagram, slot: wire.slots - 1, with: srtp) }
            switch try rtcpSocket.send(datagram, to: configuration.destinationRTCP) {
            case .sent(let count): return .sent(count, socketFull: false)
            case .connectionRefused: return .refused
            case .wouldBlock, .segmentationUnsupported: return .sent(0, socketFull: false)  // a report is not sent twice
            }
        } catch {
            return .failed(.sendFailed("\(error)"), dropping: 1)
        }
    }

    private func sendRTP(_ transmit: RTPTransmit) -> Report {
        var count = 0
        for packet in transmit.datagrams {
            var bytes = packet
            if let srtp, let wire {
                do throws(RTPError) { bytes = try wire.protect(rtp: packet, slot: count, with: srtp) } catch {
                    guard count == 0 else { break }  // send the ones before it; it comes first next time
                    return .failed(.protectionFailed("\(error)"), dropping: 1)
                }
            }
            batch.datagrams[count] = cudp_datagram(base: bytes.baseAddress, length: bytes.count)
            count += 1
        }
        let destination = configuration.rtcpMux ? configuration.destination : nil
        do throws(RTPError) {
            let outcome = try rtpSocket.sendBatch(UnsafeBufferPointer(rebasing: batch.datagrams[0 ..< count]), to: destination,
                                                  segmented: segmentationOffload.load(ordering: .relaxed))
            switch outcome {
            // Fewer than given: the kernel stopped at an error (ICMP refusal or a full buffer), which the next call
            // reports, so go round again rather than wait.
            case .sent(let sent): return .sent(sent, socketFull: sent == 0)
            case .wouldBlock: return .sent(0, socketFull: true)
            case .segmentationUnsupported: return .segmentationUnsupported
            case .connectionRefused: return .refused
            }
        } catch {
            // An error that is not about the peer (EPERM from a firewall, EMSGSIZE…): drop the batch, go on.
            return .failed(.sendFailed("\(error)"), dropping: count)
        }
    }

    // MARK: The I/O thread's turn

    /// One turn: everything due goes out (RTCP, what the pacer allows, the BYE), then the events go to the
    /// application. Returns how long the sender may be left alone, whether it waits for its RTP socket to become
    /// writable, and whether it is done (closed).
    func serviceOnce(now: RTPInstant) -> (wait: Duration, blocked: Bool, done: Bool) {
        let turn = transmitDue(refusalLimit: Self.refusalsPerTurn)
        deliver(turn.events)
        // The BYE linger ends early when nobody listens (`RTPSendSession+Goodbye`): an ICMP error pending on the
        // connected RTP socket says so, for the last datagrams or for a refusal probe (with rtcp-mux the socket is not
        // connected, no refusal is ever reported, and the linger stays).
        if turn.wantsRefusalCheck, !configuration.rtcpMux, rtpSocket.takePendingRefusal() || (turn.refusalProbeDue && probeRefused()) {
            session.withLock { $0.peerRefused(at: wallClockNow(), peer: peerDescription) }
            return serviceOnce(now: wallClockNow())  // the BYE is due now; no second check (the refusal is seen)
        }
        let wait = turn.next.map { $0 - wallClockNow() } ?? Self.maxWait
        return (min(max(wait, .zero), Self.maxWait), turn.blocked, turn.done)
    }

    /// Sends a refusal probe, an empty datagram, on the connected RTP socket: true when it came back refused. Over
    /// loopback the ICMP error is pending when the send returns; from further away a later turn's check finds it.
    private func probeRefused() -> Bool {
        let outcome = try? rtpSocket.send(UnsafeRawBufferPointer(start: nil, count: 0))
        session.withLock { $0.didSendRefusalProbe(at: wallClockNow()) }
        return outcome == .connectionRefused || rtpSocket.takePendingRefusal()
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
