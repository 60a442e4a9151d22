import Glibc
import MediaCore
import RTPOut
import Synchronization

/// What `WebRTCServer`'s I/O thread needs, and nothing more: the socket, the wake-up, the state and the stop flag.
/// The thread holds this, never the server, so the server's `deinit` runs when its owner drops it (and stops the
/// thread); the socket closes when the thread has let go of the core.
final class WebRTCServerCore: @unchecked Sendable {
    let socket: UDPSocket
    let wake: WakeSignal
    let state: Mutex<ServerState>
    let stopping = Atomic<Bool>(false)

    init(socket: UDPSocket, wake: WakeSignal, state: consuming ServerState) {
        self.socket = socket
        self.wake = wake
        self.state = Mutex(state)
    }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }
}

extension WebRTCServerCore {
    /// Datagrams read per turn before the machines are serviced (so a flood cannot starve the pacer).
    static let readBatch = 64
    /// The longest poll(2): the loop looks at the stop flag at least this often.
    static let idleWait: Duration = .milliseconds(100)
    /// How long `stop` lets the viewers' BYEs drain.
    static let stopDrain: Duration = .seconds(2)

    /// The I/O thread: read what arrived (outside the lock), run the sans-IO machines (inside), send what they
    /// produced (outside), sleep until the earliest timer — pacer, RTCP, DTLS retransmission, consent — or a
    /// datagram or a wake-up (an access unit queued, a session added or ended).
    func run() {
        var poller = Poller(readable: [socket.fileDescriptor, wake.fileDescriptor])
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
        defer { buffer.deallocate() }
        var stopDeadline: Instant?
        var received: [([UInt8], SocketAddress)] = []
        while true {
            received.removeAll(keepingCapacity: true)
            while received.count < Self.readBatch {
                guard let (count, from) = (try? socket.receive(into: buffer)) ?? nil else { break }
                received.append((Array(buffer[0 ..< count]), from))
            }
            if poller.isReadable(wake.fileDescriptor) { wake.drain() }
            let now = ServerTime.now()
            if stopDeadline == nil, isStopping {
                stopDeadline = now.instant + Self.stopDrain
                state.withLock { state in
                    for viewer in Array(state.viewers.values) { state.end(viewer, reason: "server stopping", at: now) }
                }
            }
            let (outgoing, next, remaining) = state.withLock { state -> ([OutgoingDatagram], Instant?, Int) in
                var out: [OutgoingDatagram] = []
                for (bytes, from) in received { state.handle(datagram: bytes[...], from: from, at: now, into: &out) }
                let next = state.service(at: now, into: &out)
                return (out, next, state.viewers.count)
            }
            for datagram in outgoing {
                // A failed send is a lost datagram: ICE retries, DTLS retransmits, NACK repairs media.
                _ = datagram.bytes.withUnsafeBytes { try? socket.send($0, to: datagram.destination) }
            }
            if let stopDeadline, remaining == 0 || now.instant >= stopDeadline { return }
            if received.count == Self.readBatch { continue }
            var wait = Self.idleWait
            if let next { wait = min(wait, max(.zero, next - now.instant)) }
            if let stopDeadline { wait = min(wait, max(.zero, stopDeadline - now.instant)) }
            poller.wait(timeout: wait)
        }
    }
}
