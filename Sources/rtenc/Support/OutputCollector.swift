import EncoderSession
import Synchronization

/// Collects what a `CompressionSession` delivers during `encode()`, for the caller's thread to take afterwards.
///
/// The session calls its output handler synchronously inside `encode()`; sinks (files, the RTP sender) are not
/// `Sendable`, so the handler only queues and the loop that called `encode()` drains the queue and writes.
final class OutputCollector: Sendable {
    private let pending = Mutex<[EncoderOutput]>([])

    var handler: CompressionSession.OutputHandler {
        { [self] output in pending.withLock { $0.append(output) } }
    }

    func drain() -> [EncoderOutput] {
        pending.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
    }
}
