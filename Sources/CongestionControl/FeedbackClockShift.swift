import MediaCore
import RTP

// A live sender stamps its sent packets and feedback reports with the wall clock it reads (`RTPInstant`), while a
// controller runs on a monotonic clock of its own: rtenc's frame budget and silence timer compare those times with
// the `now` they are handed, so both drivers (`LiveBitrateController`, a WebRTC transport's peer) move them onto the
// controller's clock first, by the distance between the two clocks read together.

extension SentPacket {
    /// The same packet with its send time moved by `shift` (onto the controller's clock).
    package func shifted(by shift: Duration) -> SentPacket {
        var packet = self
        packet.sendTime = sendTime + shift
        return packet
    }
}

extension TransportPacketsFeedback {
    /// The same report with its time and every packet's send time moved by `shift` (onto the controller's clock).
    package func shifted(by shift: Duration) -> TransportPacketsFeedback {
        var moved = self
        moved.feedbackTime = feedbackTime + shift
        for i in moved.packets.indices { moved.packets[i].sent.sendTime = packets[i].sent.sendTime + shift }
        return moved
    }
}
