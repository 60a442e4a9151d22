import Synchronization

/// The sessions waiting for a worker under `--schedule edf`, each with the due time of its next frame; a worker takes
/// the one due soonest (earliest deadline first). Session `i`'s frame `tick` falls due at
/// `start + (tick + phase_i) / fps`, where `phase_i` is `i / sessions` of a frame period when staggered (sources on
/// independent phases, as with a thread per session) and 0 otherwise.
///
/// A session is in the queue or in one worker's hands, never both, so its frames are encoded in order. A plain array
/// scanned for the minimum: with ~100 sessions the scan is ~100 comparisons under the lock, nothing beside a frame's
/// encode.
final class DeadlineQueue: Sendable {
    struct Job: Equatable {
        var due: Double
        var session: Int
        var tick: Int
    }

    private let waiting: Mutex<[Job]>
    private let start: Double
    private let fps: Double
    private let phases: [Double]

    init(sessions: Int, start: Double, fps: Double, staggered: Bool) {
        self.start = start
        self.fps = fps
        phases = (0..<sessions).map { staggered ? Double($0) / Double(sessions) : 0 }
        let phases = phases
        waiting = Mutex((0..<sessions).map { Job(due: start + phases[$0] / fps, session: $0, tick: 0) })
    }

    /// The job due soonest (ties: the lower session index), or nil when no session is waiting — every session left
    /// is then in another worker's hands, and that worker carries it to its end.
    func takeEarliest() -> Job? {
        waiting.withLock { jobs in
            guard var best = jobs.indices.first else { return nil }
            for index in jobs.indices.dropFirst() {
                let job = jobs[index]
                if job.due < jobs[best].due || (job.due == jobs[best].due && job.session < jobs[best].session) {
                    best = index
                }
            }
            return jobs.swapRemoveAt(best)
        }
    }

    /// Puts `session` back with its frame `tick` (its next one).
    func put(session: Int, tick: Int) {
        let job = Job(due: start + (Double(tick) + phases[session]) / fps, session: session, tick: tick)
        waiting.withLock { $0.append(job) }
    }
}

extension Array {
    /// Removes the element at `index` in O(1) by moving the last one into its place (order is not kept).
    fileprivate mutating func swapRemoveAt(_ index: Int) -> Element {
        swapAt(index, count - 1)
        return removeLast()
    }
}
