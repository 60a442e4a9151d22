import Glibc

/// A joinable POSIX thread running one closure: the RTP I/O loops need a thread of their own (they block in
/// poll(2)), and RTPOut does not pull in Foundation for `Thread`.
final class BackgroundThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private var thread: pthread_t?

    init(_ body: @escaping () -> Void) throws(RTPError) {
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

    /// Waits for the closure to return. Call once.
    func join() {
        guard let thread else { return }
        self.thread = nil
        pthread_join(thread, nil)
    }
}
