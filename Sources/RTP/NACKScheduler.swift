/// When to ask for a missing packet again (RFC 4585 §6.2.1 generic NACK): at once when a hole is first seen, then
/// every `retryInterval` until `maxRequests` have gone out or the packet arrives (or is given up on).
///
/// A hole is NACKed while the packets behind it still wait in the reorder buffer, so the retransmission can fill it;
/// a NACK sent only when the hole is declared lost would bring a packet that is already too late. Pure: the caller
/// passes the missing sequence numbers and the time.
package struct NACKScheduler: Sendable {
    package var retryInterval: Duration
    package var maxRequests: Int
    /// Extended sequence number → (time of the last request, requests so far).
    private var requested: [Int64: (last: RTPInstant, count: Int)] = [:]
    /// How many of the numbers the last `due` returned were asked for again: holes a NACK did not fill within a
    /// retry interval (lost again, or its answer is late).
    package private(set) var retriesDue = 0

    package init(retryInterval: Duration = .milliseconds(100), maxRequests: Int = 3) {
        self.retryInterval = retryInterval
        self.maxRequests = maxRequests
    }

    /// When a hole asked for could be asked for again (it may have been filled since: `due` then forgets it).
    package var nextRetry: RTPInstant? {
        requested.values.lazy.filter { $0.count < self.maxRequests }.map { $0.last + self.retryInterval }.min()
    }

    /// The sequence numbers (as on the wire) to NACK now, given what is missing now.
    package mutating func due(missing: [Int64], now: RTPInstant) -> [UInt16] {
        // Forget holes that were filled or given up on; what remains is bounded by the reorder window.
        requested = requested.filter { missing.contains($0.key) }
        var due: [UInt16] = []
        retriesDue = 0
        for extended in missing {
            if let entry = requested[extended] {
                guard entry.count < maxRequests, now - entry.last >= retryInterval else { continue }
                requested[extended] = (now, entry.count + 1)
                retriesDue += 1
            } else {
                requested[extended] = (now, 1)
            }
            due.append(UInt16(truncatingIfNeeded: extended))
        }
        return due
    }
}
