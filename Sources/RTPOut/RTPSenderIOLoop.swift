import Synchronization

/// One I/O thread shared by many `RTPSender`s: an opt-in for processes that run tens of streams at once.
///
/// By default each sender owns a thread that wakes for every paced packet, every access unit and every RTCP
/// report. With 90 streams on 2 cores those threads and their wake-ups cost about a seventh of the CPU (measured
/// by bench's ScaleProbe, see BENCHMARKS.md "Scale"). A sender created with `ioLoop:` is served by this loop's one
/// thread instead: one poll(2) over every member's RTCP socket, each member serviced when its pacer or RTCP report
/// is due or when `send`/`close`/feedback asks for it, so pacing timers that fall within the same millisecond share
/// one wake-up. What a sender does on the wire is the same either way.
///
/// The loop's thread starts here and stops when the last reference goes; each sender holds one, so drop the loop
/// whenever convenient. Callbacks of every member run on this thread, so they must be quick (set a flag); one
/// slow callback delays the packets of all members. Never close a member from its callback (close waits for this
/// thread).
public final class RTPSenderIOLoop: Sendable {
    let engine: SharedSenderLoop
    private let thread: Mutex<BackgroundThread?>

    public init() throws(RTPError) {
        let engine = try SharedSenderLoop()
        self.engine = engine
        // The thread holds the engine, not this handle, so dropping the last handle stops it.
        thread = Mutex(try BackgroundThread { engine.run() })
    }

    /// Senders currently served (registered and not yet closed).
    public var memberCount: Int { engine.memberCount.load(ordering: .relaxed) }

    /// True on the loop's own thread (where a member's `close()` must not wait for the loop).
    var isCurrentThread: Bool { thread.withLock { $0?.isCurrent ?? false } }

    deinit {
        engine.stop()
        let thread = thread.withLock { thread in
            defer { thread = nil }
            return thread
        }
        thread?.join()
    }
}
