import Foundation

/// Reads access units on a thread of its own, at most `capacity` ahead of the consumer, so that reading and
/// splitting the file overlaps sending it: `rtenc send --no-pacing` keeps both cores busy instead of alternating
/// between reading (≈ a quarter of its work) and sendmmsg on one. Paced sending does not need it (it waits for
/// each access unit's time anyway).
///
/// `@unchecked Sendable`: the reader is used only by the prefetch thread once `init` has handed it over; everything
/// the two threads share sits behind `condition`.
final class AccessUnitPrefetcher: @unchecked Sendable {
    private let condition = NSCondition()
    private var ready: [EncodedFileReader.AccessUnit] = []
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    private let capacity: Int
    private let reader: EncodedFileReader
    private let command: String

    init(reader: EncodedFileReader, command: String, capacity: Int = 32) {
        self.reader = reader
        self.command = command
        self.capacity = max(1, capacity)
        let thread = Thread { [self] in run() }
        thread.name = "rtenc-read"
        thread.start()
    }

    /// The next access unit in file order, nil at the end; rethrows the reader's error where it happened.
    func next() throws -> EncodedFileReader.AccessUnit? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty, !finished { condition.wait() }
        if !ready.isEmpty {
            condition.signal()  // room for the reader again
            return ready.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    /// Stops the reading thread (the consumer stopped early); it ends after the access unit it is reading.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    deinit { cancel() }

    private func run() {
        while true {
            let unit: EncodedFileReader.AccessUnit?
            do {
                unit = try reader.next(command: command)
            } catch {
                finish(failure: error)
                return
            }
            guard let unit else {
                finish(failure: nil)
                return
            }
            condition.lock()
            while ready.count >= capacity, !cancelled { condition.wait() }
            if cancelled {
                condition.unlock()
                return
            }
            ready.append(unit)
            condition.signal()
            condition.unlock()
        }
    }

    private func finish(failure: (any Error)?) {
        condition.lock()
        self.failure = failure
        finished = true
        condition.broadcast()
        condition.unlock()
    }
}
