import Synchronization

/// The driver of an `RTPReceiver`'s `RTPReceiveSession`: its thread reads the sockets, unprotects SRTP/SRTCP,
/// feeds the session under the lock, and — after letting go of it — sends the session's RTCP (SRTCP-protected) and
/// hands access units to `onAccessUnit`. No lock is held across a system call: the lock guards the session alone,
/// and the application's calls (`requestKeyframe`, `decoderFailed`, `statistics`) only take it briefly and wake the
/// thread, which sends what they queued. (`@unchecked Sendable`, as `SenderCore`: the lets are thread-safe or
/// confined to the I/O thread, see below.)
final class ReceiverCore: @unchecked Sendable {
    struct State: Sendable {
        var session: RTPReceiveSession
        /// SRTP/SRTCP datagrams dropped before the session saw them (the session never sees ciphertext).
        var authenticationFailures = 0
        var replayedPackets = 0
        var undecryptable = 0
        var closing = false

        /// The session's counts with the driver's.
        var statistics: RTPReceiver.Statistics {
            var statistics = session.statistics
            statistics.authenticationFailures = authenticationFailures
            statistics.replayedPackets = replayedPackets
            statistics.malformedPackets += undecryptable
            return statistics
        }
    }

    /// What the session produced for one turn of the loop, taken out under the lock and acted on after it.
    struct Output {
        var transmits: [[UInt8]] = []
        var accessUnits: [ReceivedAccessUnit] = []

        mutating func drain(_ session: inout RTPReceiveSession, now: RTPInstant) {
            while let datagram = session.pollTransmit(at: now) { transmits.append(datagram) }
            while let event = session.pollEvent() {
                if case .accessUnit(let unit) = event { accessUnits.append(unit.received) }
            }
        }
    }

    static let maxDatagram = 65536
    /// Longest wait in `poll` when the session wants nothing sooner.
    static let idleWait: Duration = .milliseconds(50)
    let configuration: RTPReceiver.Configuration
    let state: Mutex<State>
    let rtp: UDPSocket
    let rtcp: UDPSocket
    let wake: WakeSignal
    let onAccessUnit: @Sendable (ReceivedAccessUnit) -> Void
    /// SRTP contexts and the buffer our SRTCP is built in: used on the I/O thread only (every unprotect and
    /// protect happens there), so they need no lock.
    let srtp: SRTPSession?
    let rtcpWire: SRTPWireBuffer?
    /// Where our RTCP goes: RTP's source port + 1 (or the same port with rtcp-mux), then wherever the sender's
    /// reports come from. I/O thread only.
    private var remoteRTCP: SocketAddress?

    init(configuration: RTPReceiver.Configuration, rtp: UDPSocket, rtcp: UDPSocket, wake: WakeSignal,
         onAccessUnit: @escaping @Sendable (ReceivedAccessUnit) -> Void) throws(RTPError) {
        self.configuration = configuration
        srtp = try configuration.srtp.map { keys throws(RTPError) in try SRTPSession(configuration: keys) }
        state = Mutex(State(session: RTPReceiveSession(configuration: configuration.session)))
        rtcpWire = srtp.map { _ in SRTPWireBuffer(slots: 1, maxPacketSize: 1500, trailer: SRTPSession.maxRTCPTrailer) }
        self.rtp = rtp
        self.rtcp = rtcp
        self.wake = wake
        self.onAccessUnit = onAccessUnit
    }

    func runLoop() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.maxDatagram, alignment: 8)
        defer { buffer.deallocate() }
        var poller = Poller(readable: rtcp === rtp ? [rtp.fileDescriptor, wake.fileDescriptor]
                                                   : [rtp.fileDescriptor, wake.fileDescriptor, rtcp.fileDescriptor])
        while true {
            let now = wallClockNow()
            var output = Output()
            let (closing, next) = state.withLock { state in
                if state.closing { state.session.close(at: now) }
                state.session.handleTimeout(at: now)
                output.drain(&state.session, now: now)
                return (state.closing, state.session.nextTimeout())
            }
            act(on: output)
            if closing { return }
            let wait = next.map { min(Self.idleWait, max(.zero, $0 - wallClockNow())) } ?? Self.idleWait
            poller.wait(timeout: wait)
            if poller.isReadable(wake.fileDescriptor) { wake.drain() }
            if poller.isReadable(rtp.fileDescriptor) { drain(rtp, buffer) }
            if rtcp !== rtp, poller.isReadable(rtcp.fileDescriptor) { drain(rtcp, buffer) }
        }
    }

    /// Reads what the socket holds, one datagram at a time: received and unprotected without the lock, handled by
    /// the session under it, answered after it.
    private func drain(_ socket: UDPSocket, _ buffer: UnsafeMutableRawBufferPointer) {
        while true {
            let received: (count: Int, from: SocketAddress)?
            do throws(RTPError) { received = try socket.receive(into: buffer) } catch { break }
            guard let (count, from) = received else { break }
            let now = wallClockNow()
            // RFC 5761 §4: with rtcp-mux, RTCP is told apart by its packet type (192…223 in the second byte),
            // which SRTP and SRTCP leave in the clear.
            let isRTCP = socket === rtcp && (socket !== rtp || (count > 1 && (192 ... 223).contains(buffer[1])))
            // Decrypted and copied out of the receive buffer before the lock is taken.
            let datagram = unprotect(buffer, count: count, isRTCP: isRTCP).map { Array(UnsafeRawBufferPointer(rebasing: buffer[0 ..< $0])) }
            var output = Output()
            let (accepted, isSenderReport) = state.withLock { state -> (Bool, Bool) in
                let bytes: [UInt8]
                switch datagram {
                case .success(let plaintext): bytes = plaintext
                case .failure(let error):
                    switch error.code {
                    case .authenticationFailed: state.authenticationFailures += 1
                    case .replayed: state.replayedPackets += 1
                    default: state.undecryptable += 1
                    }
                    return (false, false)
                }
                defer { output.drain(&state.session, now: now) }
                return isRTCP ? (true, state.session.handle(rtcp: bytes, at: now)) : (state.session.handle(rtp: bytes, at: now), false)
            }
            if isSenderReport {
                remoteRTCP = from  // answer where the sender's reports come from
            } else if !isRTCP, accepted, remoteRTCP == nil {
                remoteRTCP = configuration.rtcpMux ? from : from.withPort(from.port &+ 1)
            }
            act(on: output)
        }
    }

    /// SRTP/SRTCP: authenticates and decrypts in place; a failure (to count) for a packet that must go no further —
    /// an unauthenticated packet is never parsed, never decoded and never changes where our RTCP goes.
    private func unprotect(_ buffer: UnsafeMutableRawBufferPointer, count: Int, isRTCP: Bool) -> Result<Int, RTPError> {
        guard let srtp else { return .success(count) }
        do throws(RTPError) {
            return .success(isRTCP ? try srtp.unprotectRTCP(buffer, length: count) : try srtp.unprotect(rtp: buffer, length: count))
        } catch {
            return .failure(error)
        }
    }

    private func act(on output: Output) {
        for datagram in output.transmits { send(rtcp: datagram) }
        for unit in output.accessUnits { onAccessUnit(unit) }
    }

    private func send(rtcp datagram: [UInt8]) {
        guard let target = remoteRTCP else { return }
        datagram.withUnsafeBytes { buffer in
            do throws(RTPError) {
                let wire = if let srtp, let rtcpWire { try rtcpWire.protect(rtcp: buffer, slot: 0, with: srtp) } else { buffer }
                _ = try rtcp.send(wire, to: target)
            } catch {}  // RTCP is best effort: the next report or request goes out anyway
        }
    }
}
