import Glibc

/// A joinable POSIX thread running one closure: the RTP I/O loops need a thread of their own (they block in
/// poll(2)), and RTPOut does not pull in Foundation for `Thread`.
package final class BackgroundThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private var thread: pthread_t?

    package init(_ body: @escaping () -> Void) throws(RTPError) {
        let box = Unmanaged.passRetained(Body(body))
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw .system("pthread_create", errno: result)
        }
        self.thread = thread
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
