#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import FoundationEssentials
import Synchronization

/// Ctrl-C (SIGINT) and SIGTERM as a flag the streaming loop polls, so a stop is clean: the loop finishes its frame,
/// the sender drains and says BYE, final statistics are printed.
///
/// `@unchecked Sendable`: `sources` is written once in `init` and only kept alive afterwards; the flag is atomic.
final class StopSignal: @unchecked Sendable {
    private let stopped = Atomic<Bool>(false)
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                // The first signal asks for a clean stop; a second one (the loop may be blocked reading its input)
                // takes the default action and ends the process.
                signal(number, SIG_DFL)
                self?.stop()
            }
            source.resume()
            sources.append(source)
        }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    var isStopped: Bool { stopped.load(ordering: .relaxed) }

    /// Sleeps until `deadline` (monotonic seconds) or a stop, whichever comes first.
    func sleep(until deadline: Double) {
        while !isStopped {
            let remaining = deadline - MonotonicTime.now()
            if remaining <= 0 { return }
            usleep(UInt32(min(remaining, 0.05) * 1_000_000))
        }
    }
}

/// Seconds on the monotonic clock.
enum MonotonicTime {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
