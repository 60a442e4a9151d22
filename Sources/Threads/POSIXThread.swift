#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// pthread_create's error number when the system could start no thread (EAGAIN: a thread or memory limit).
package struct ThreadStartError: Error, Equatable {
    package let errno: Int32
}

/// One POSIX thread per closure: the one trampoline for the modules that need threads of their own — RTPOut's I/O
/// loops (joinable, its `BackgroundThread`) and Composition's reader opens (detached, its `ReaderOpener`). Neither
/// may import the other and MediaCore holds no C library, so it lives in this target of its own. No Foundation:
/// RTPOut and Composition pull in none.
package enum POSIXThread {
    /// The closure in transit to the new thread, which takes the only reference (retained once here, released there).
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Runs `body` on a new thread and returns it: joinable (the caller must join or detach it once) unless
    /// `detached`, when it ends on its own and the handle is only for comparison. On failure `body` has not run
    /// and is released.
    @discardableResult
    package static func start(detached: Bool = false,
                              _ body: @escaping () -> Void) throws(ThreadStartError) -> pthread_t {
        let box = Unmanaged.passRetained(Body(body))
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if detached { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            guard let context else { return nil }
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw ThreadStartError(errno: result)
        }
        return thread
    }
}
