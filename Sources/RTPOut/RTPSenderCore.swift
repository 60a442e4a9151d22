import CUDPShim
import Synchronization

/// The part of an `RTPSender` the I/O thread shares: the locked state, the sockets and the callbacks.
///
/// `@unchecked Sendable`: the sockets and the wake signal are file-descriptor wrappers whose calls are thread-safe
/// in the kernel and which are immutable after init; everything mutable lives in `state`, behind its lock.
final class SenderCore: @unchecked Sendable {
    struct Callbacks: Sendable {
        var onKeyframeRequest: (@Sendable () -> Void)?
        var onBitrateLimit: (@Sendable (UInt64) -> Void)?
        var onWarning: (@Sendable (String) -> Void)?
    }

    /// The loop never sleeps longer than this, so close() and clock jumps are noticed.
    static let maxWait: Duration = .milliseconds(50)
    /// Largest datagram read from the RTCP socket.
    static let maxRTCPDatagram = 2048

    let configuration: RTPSenderConfiguration
    let state: Mutex<SenderState>
    let rtpSocket: UDPSocket
    let rtcpSocket: UDPSocket
    let wake: WakeSignal
    let callbacks: Callbacks
    /// The shared loop serving this sender (`RTPSenderIOLoop`), or nil when it has a thread of its own.
    let sharedLoop: SharedSenderLoop?
    /// Set when this sender has work the shared loop must not wait for (a new access unit, close, feedback).
    let pending = Atomic<Bool>(false)

    init(configuration: RTPSenderConfiguration, state: consuming sending SenderState, rtpSocket: UDPSocket, rtcpSocket: UDPSocket,
         wake: WakeSignal, callbacks: Callbacks, sharedLoop: SharedSenderLoop? = nil) {
        self.configuration = configuration
        self.state = Mutex(state)
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

    /// One turn: due RTCP and what the pacer allows, warnings reported outside the lock. Returns how long the
    /// sender may be left alone, whether it waits for its RTP socket to become writable, and whether it is done.
    func serviceOnce(now: RTPInstant, warnings: inout [String]) -> (wait: Duration, blocked: Bool, done: Bool) {
        let result = state.withLock { state in
            state.service(now: now, rtp: rtpSocket, rtcp: rtcpSocket, warnings: &warnings)
        }
        for warning in warnings { callbacks.onWarning?(warning) }
        warnings.removeAll()
        return result
    }

    func runLoop() {
        let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.maxRTCPDatagram, alignment: 8)
        defer { receiveBuffer.deallocate() }
        var warnings: [String] = []
        var poller = Poller(readable: [rtcpSocket.fileDescriptor, wake.fileDescriptor],
                            // With rtcp-mux the same descriptor again, in a POLLOUT entry of its own (poll(2)
                            // takes a descriptor twice): a full socket is then waited for, not retried after maxWait.
                            writable: rtpSocket.fileDescriptor)
        while true {
            let (wait, blocked, done) = serviceOnce(now: wallClockNow(), warnings: &warnings)
            if done { return }
            poller.watchWritable(blocked)
            poller.wait(timeout: min(wait, Self.maxWait))
            if poller.isReadable(wake.fileDescriptor) { wake.drain() }
            if poller.isReadable(rtcpSocket.fileDescriptor) { readRTCP(into: receiveBuffer) }
        }
    }

    /// Reads every waiting RTCP datagram; acts on the feedback; runs the encoder callbacks outside the lock.
    func readRTCP(into buffer: UnsafeMutableRawBufferPointer) {
        var keyframe = false
        var limits: [UInt64] = []
        while true {
            let received: (count: Int, from: SocketAddress)?
            do throws(RTPError) { received = try rtcpSocket.receive(into: buffer) } catch { break }
            guard let (count, from) = received else { break }
            let datagram = Array(UnsafeRawBufferPointer(rebasing: buffer[0 ..< count]))
            let now = wallClockNow()
            state.withLock { state in
                state.handleRTCP(datagram, from: from, now: now, rtcp: rtcpSocket, keyframe: &keyframe, limits: &limits)
            }
        }
        if keyframe { callbacks.onKeyframeRequest?() }
        for limit in limits { callbacks.onBitrateLimit?(limit) }
        requestService()  // retransmissions may have been queued
    }
}
