import CongestionControl
import MediaCore
import RTP

/// The sender's side of feedback on the wire (`FeedbackPath.transportCC`, `.congestionControlFeedback`): what it sent,
/// probes as the session's padding, and the session's reports on the policy's clock.
extension Simulation {
    /// The packets the send session just transmitted, as the policy's `observe(sent:)` hears them: taken from the
    /// session with `pollSentPackets` (its `SentPacketHistory`: transport-wide number, wire size, kind, probe cluster),
    /// exactly as a live sender's `RTPSender(onPacketsSent:)` takes them, and moved onto the policy's clock. One per
    /// RTP datagram of the transmit, in sending order; anything else is the session breaking its contract.
    func sentOnTheWire(_ flow: MediaFlow, datagrams: Int) throws(SimulationError) -> ArraySlice<SentPacket> {
        flow.sentPackets.removeAll(keepingCapacity: true)
        flow.sender.pollSentPackets(into: &flow.sentPackets)
        guard flow.sentPackets.count == datagrams else {
            throw .make(.session, "flow \(flow.index): the session reported \(flow.sentPackets.count) sent packets for \(datagrams) datagrams")
        }
        let shift = Duration.nanoseconds(Self.rtpEpoch - Self.policyEpoch)
        for i in flow.sentPackets.indices { flow.sentPackets[i].sendTime = flow.sentPackets[i].sendTime - shift }
        return flow.sentPackets[...]
    }

    /// A probe cluster as a live sender sends it (`LiveBitrateController` → `RTPSender.startProbe`): the session's
    /// prober sends it as padding on RTX at the cluster's own rate, ahead of the queued media (a probe queued behind
    /// the first keyframe and paced like media, as this simulator once sent it, measured the pacer, not the path:
    /// goog_cc's start probes on 5.1 found ~490 kb/s here and ~730 kb/s live). A cluster the session refuses (too
    /// many waiting) is dropped, as live.
    func startProbe(_ cluster: ProbeClusterConfig, flow: MediaFlow) throws(SimulationError) {
        do {
            _ = try flow.sender.startProbe(cluster.packets, at: rtp(now))
        } catch {
            throw .make(.session, "flow \(flow.index) refused a probe cluster: \(error)")
        }
        try serviceSender(flow)
    }

    /// A report from the send session, whose times are on the sessions' clock (`RTPInstant` since 1970), moved to
    /// the policy's (`instant(_:)`). Arrivals stay as the report gave them: on the receiver's clock, only their
    /// differences mean something.
    func onPolicyClock(_ report: TransportPacketsFeedback) -> TransportPacketsFeedback {
        let shift = Duration.nanoseconds(Self.rtpEpoch - Self.policyEpoch)
        var moved = report
        moved.feedbackTime = report.feedbackTime - shift
        for i in moved.packets.indices { moved.packets[i].sent.sendTime = report.packets[i].sent.sendTime - shift }
        return moved
    }
}
