#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Threads

/// What the opener hands over: a reader (or an overlay's) the frame thread adopts, or releases when the frame thread
/// no longer wants it by the time it is open.
protocol OpenedReader: AnyObject {
    /// Gives the reader's buffers back to the pool; it is not used after this.
    func release()
}

extension ItemReader: OpenedReader {}

/// One reader being opened on a thread of its own: libavformat's open, the decoder's, the seek and the first frame
/// decoded — tens of milliseconds at 720p, more on a busy disk, which used to be the worst frames of a live stream
/// (wall p99 34.7 ms against 3.3 ms of CPU). The frame thread polls it (`take`) and never waits for it live; offline
/// (`render`: deterministic, never drops) it waits (`wait`).
final class PendingOpen<Value: OpenedReader>: Sendable {
    /// The value in transit. @unchecked: made on the opening thread and stored here whole; from then on that thread
    /// keeps no reference, and the one thread that takes it out is its only owner.
    private struct Handoff: @unchecked Sendable {
        let value: Value
    }

    private enum State: Sendable {
        case opening
        /// The frame thread gave up on it (its window closed, an edit or a seek left it out): released when done.
        case abandoned
        case finished(Result<Handoff, CompositionError>)
        case taken
    }

    private let state = Mutex<State>(.opening)

    /// Called once by the opening thread.
    func finish(_ result: Result<Value, CompositionError>) {
        let handoff = result.map { Handoff(value: $0) }
        let unwanted: Handoff? = state.withLock { state in
            guard case .abandoned = state else {
                state = .finished(handoff)
                return nil
            }
            state = .taken
            return try? handoff.get()
        }
        unwanted?.value.release()
    }

    /// The reader if it is open (or the reason it could not be opened), nil while it is still opening.
    func take() -> Result<Value, CompositionError>? {
        let result: Result<Handoff, CompositionError>? = state.withLock { state in
            guard case let .finished(result) = state else { return nil }
            state = .taken
            return result
        }
        return result.map { $0.map(\.value) }
    }

    /// Sleeps 0.2 ms at a time until the reader is open (offline only: a render waits rather than drop a frame).
    func wait() -> Result<Value, CompositionError> {
        while true {
            if let result = take() { return result }
            usleep(200)
        }
    }

    /// The frame thread no longer wants it: released now if open, else by the opening thread when it is.
    func abandon() {
        let unwanted: Handoff? = state.withLock { state in
            defer { state = .abandoned }
            guard case let .finished(result) = state else { return nil }
            return try? result.get()
        }
        unwanted?.value.release()
    }
}

/// Threads for `PendingOpen`s: one detached POSIX thread per open, which ends when the reader is handed over. The
/// plan opens a reader at most every few hundred milliseconds (windows pre-rolled 1 s, at most three sequence
/// readers plus the overlays), so a thread per open costs nothing that matters and needs no shutdown protocol; the
/// cooperative pool is left alone, since an open blocks on the disk (and a test's slow opener sleeps). The thread is
/// started by the `Threads` target, whose trampoline RTPOut's `BackgroundThread` shares.
enum ReaderOpener {
    /// Runs `body` on a new thread. False when the system could start none (then `body` has not run).
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        do {
            try POSIXThread.start(detached: true, body)
            return true
        } catch {
            return false
        }
    }
}
