import CongestionControl
import MediaCore
import RTP

/// Hand-made packet series for rtenc's controller: packets sent on the sender's clock, arrivals on a receiver clock
/// 7 s away (so a piece that mixed the clocks would fail), times in ms.
enum RtencTestPackets {
    static let receiverOffset: Int64 = 7_000_000_000
    static let epoch: Int64 = 1_000_000_000

    static func instant(ms: Double) -> Instant { Instant(nanoseconds: epoch + Int64((ms * 1e6).rounded())) }

    /// A packet sent at `sent` ms of `bytes`, arriving `delay` ms later (nil: lost).
    static func packet(_ sequence: Int64, sent: Double, delay: Double?, bytes: Int = 1200) -> PacketResult {
        PacketResult(sent: SentPacket(sequenceNumber: sequence, sendTime: instant(ms: sent), size: bytes),
                     arrival: delay.map { Instant(nanoseconds: instant(ms: sent + $0).nanoseconds + receiverOffset) })
    }

    /// `count` packets every `spacing` ms from `start`, each arriving after `delay(i)` ms.
    static func series(from start: Double, count: Int, spacing: Double, firstSequence: Int64 = 0, bytes: Int = 1200,
                       delay: (Int) -> Double?) -> [PacketResult] {
        (0 ..< count).map { packet(firstSequence + Int64($0), sent: start + Double($0) * spacing, delay: delay($0), bytes: bytes) }
    }

    static func report(_ packets: [PacketResult], at ms: Double) -> TransportPacketsFeedback {
        TransportPacketsFeedback(feedbackTime: instant(ms: ms), packets: packets, bytesInFlight: 0)
    }
}
