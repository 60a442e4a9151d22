import Glibc
import RTPOut
import Synchronization

/// What a WebRTC transport's I/O thread needs, and nothing more — the socket, the wake-up, the sans-IO state under its
/// lock, the stop flag — and the thread itself, which this core starts, stops and joins for its transport
/// (`WebRTCServer`, `WebRTCPublisher`).
///
/// The thread holds this core, never the transport object: the transport's `deinit` runs when its owner drops it (and
/// stops the thread here), and the socket closes when the joined thread has let go of the core. So a transport never
/// outlives its owner's last reference, and its `deinit` never runs on its own I/O thread.
final class TransportCore<State: DatagramMachine & ~Copyable>: @unchecked Sendable {
    let socket: UDPSocket
    let wake: WakeSignal
    let state: Mutex<State>
    private let stopping = Atomic<Bool>(false)
    /// Written once by `start` before the core is handed out; read and cleared only by the one `stop()` that turned
    /// the stop flag (the exchange orders the two), so it needs no lock of its own.
    private var thread: BackgroundThread?

    private init(socket: UDPSocket, wake: WakeSignal, state: consuming sending State) {
        self.socket = socket
        self.wake = wake
        self.state = Mutex(state)
    }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Starts the I/O thread (`DatagramIOLoop`), named `name` (at most 15 bytes: what `top -H` and /proc show).
    static func start(socket: UDPSocket, wake: WakeSignal, state: consuming sending State, threadName name: String)
        throws(WebRTCTransportError) -> TransportCore
    {
        let core = TransportCore(socket: socket, wake: wake, state: state)
        do {
            core.thread = try BackgroundThread {
                nameThisThread(name)
                DatagramIOLoop.run(socket: core.socket, wake: core.wake, state: core.state, now: ServerTime.now,
                                   isStopping: { core.isStopping })
            }
        } catch {
            throw WebRTCTransportError(code: .transport, reason: "I/O thread: \(error)")
        }
        return core
    }

    /// Sets the stop flag, wakes the thread (it says goodbye: RTCP BYE after the queue drained, DTLS close_notify, for
    /// at most `DatagramIOLoop.stopDrain`) and joins it. Idempotent: only the first call joins; a later one, or one
    /// made at the same time from another thread, returns at once.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        thread?.join()
        thread = nil
    }
}

/// Names the calling thread (Linux keeps 15 bytes): pthread_setname_np needs _GNU_SOURCE, which Glibc's module map
/// does not define, so through procfs (Linux 3.17+). A failure leaves the name as it was.
private func nameThisThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}
