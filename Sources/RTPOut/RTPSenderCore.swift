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

    init(configuration: RTPSenderConfiguration, state: consuming sending SenderState, rtpSocket: UDPSocket, rtcpSocket: UDPSocket,
         wake: WakeSignal, callbacks: Callbacks) {
        self.configuration = configuration
        self.state = Mutex(state)
        self.rtpSocket = rtpSocket
        self.rtcpSocket = rtcpSocket
        self.wake = wake
        self.callbacks = callbacks
    }

    func runLoop() {
        let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.maxRTCPDatagram, alignment: 8)
        defer { receiveBuffer.deallocate() }
        var warnings: [String] = []
        var poller = Poller(readable: [rtcpSocket.fileDescriptor, wake.fileDescriptor],
                            writable: rtpSocket === rtcpSocket ? nil : rtpSocket.fileDescriptor)
        while true {
            let now = wallClockNow()
            let (wait, blocked, done) = state.withLock { state in
                state.service(now: now, rtp: rtpSocket, rtcp: rtcpSocket, warnings: &warnings)
            }
            for warning in warnings { callbacks.onWarning?(warning) }
            warnings.removeAll()
            if done { return }
            poller.watchWritable(blocked)
            poller.wait(timeout: min(wait, Self.maxWait))
            if poller.isReadable(wake.fileDescriptor) { wake.drain() }
            if poller.isReadable(rtcpSocket.fileDescriptor) { readRTCP(into: receiveBuffer) }
        }
    }

    /// Reads every waiting RTCP datagram; acts on the feedback; runs the encoder callbacks outside the lock.
    private func readRTCP(into buffer: UnsafeMutableRawBufferPointer) {
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
        wake.signal()  // retransmissions may have been queued
    }
}
