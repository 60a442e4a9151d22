import Glibc
import Threads

/// A joinable POSIX thread running one closure: the RTP I/O loops need a thread of their own (they block in
/// poll(2)), and RTPOut does not pull in Foundation for `Thread`. Started by the `Threads` target's trampoline, which
/// Composition's reader opens share.
package final class BackgroundThread {
    private var thread: pthread_t?

    package init(_ body: @escaping () -> Void) throws(RTPError) {
        do {
            thread = try POSIXThread.start(body)
        } catch {
            throw .system("pthread_create", errno: error.errno)
        }
    }

    /// True when called on this thread.
    package var isCurrent: Bool { thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }

    /// Waits for the closure to return. Call once. On the thread itself (the last reference to its owner released
    /// from one of its own callbacks) it cannot wait for itself: the thread is detached and ends on its own.
    package func join() {
        guard let thread else { return }
        self.thread = nil
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }
}
