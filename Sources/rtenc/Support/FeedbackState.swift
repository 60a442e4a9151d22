import Synchronization

/// What the peer's RTCP asked for, set on the sender's I/O thread and taken by the encode loop between frames.
final class FeedbackState: Sendable {
    private let keyframeRequested = Atomic<Bool>(false)
    /// REMB/TMMBR limit in bits/s; 0 = none received since the last take.
    private let bitrateLimit = Atomic<UInt64>(0)

    /// PLI/FIR (already throttled by the sender): force an IDR on the next frame.
    func requestKeyframe() { keyframeRequested.store(true, ordering: .relaxed) }

    /// Keeps the smallest limit seen since the last take: REMB and TMMBR in one compound packet (or two packets
    /// between frames) both bind, so the tighter one wins.
    func limitBitrate(_ bitsPerSecond: UInt64) {
        let value = max(bitsPerSecond, 1)
        var current = bitrateLimit.load(ordering: .relaxed)
        while current == 0 || value < current {
            let (exchanged, original) = bitrateLimit.compareExchange(
                expected: current, desired: value, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    func takeKeyframeRequest() -> Bool { keyframeRequested.exchange(false, ordering: .relaxed) }

    func takeBitrateLimit() -> UInt64? {
        let value = bitrateLimit.exchange(0, ordering: .relaxed)
        return value == 0 ? nil : value
    }
}
