import Synchronization

/// The sent-packet path of one sender (issue 17): what `RTPSender(onPacketsSent:)` hears. At the end of each turn,
/// under the session's lock, the packets that left are taken from the session (`pollSentPackets`, in sending order,
/// read from the records its feedback history keeps anyway); outside that lock, whichever thread delivers next hands
/// them to the handler in one call, before the turn's events — so a rate controller always hears of a packet before
/// the feedback report that covers it.
///
/// Allocation: the buffer keeps its capacity (`initialCapacity`, more only after a longer turn), so the path costs an
/// append per packet and a lock per turn. Lock order: the session's, then this one (taking); this one, then the
/// handler's own (delivering) — the handler must not call into the sender.
final class SentPacketOutbox: Sendable {
    /// Packets of about 30 ms at 300 Mb/s: more than any turn sends at the rates rtenc streams at.
    static let initialCapacity = 1024

    private let packets: Mutex<[SentPacket]>
    private let handler: @Sendable ([SentPacket]) -> Void

    init(handler: @escaping @Sendable ([SentPacket]) -> Void) {
        var packets: [SentPacket] = []
        packets.reserveCapacity(Self.initialCapacity)
        self.packets = Mutex(packets)
        self.handler = handler
    }

    /// Under the session's lock: the packets sent since the last take.
    func take(from session: inout RTPSendSession) {
        packets.withLock { session.pollSentPackets(into: &$0) }
    }

    /// Outside the session's lock: hands what was taken to the handler, in one call (none when nothing was).
    func deliver() {
        packets.withLock { packets in
            guard !packets.isEmpty else { return }
            handler(packets)
            packets.removeAll(keepingCapacity: true)
        }
    }
}
