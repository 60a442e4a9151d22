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

    /// One packet of a probe cluster's share: padding-only packets queued in the session (the pacer runs at the
    /// cluster's rate meanwhile), then whatever the pacer lets go now.
    func sendPadding(_ flow: MediaFlow, bytes: Int, cluster: Int) throws(SimulationError) {
        do {
            // The session tags each padding packet with the cluster; `pollSentPackets` reports it so.
            _ = try flow.sender.enqueuePadding(bytes: bytes, probeClusterID: cluster, at: rtp(now))
        } catch {
            throw .make(.session, "flow \(flow.index) refused padding: \(error)")
        }
        try serviceSender(flow)
    }

    /// The pacer's rate: the allocation's, raised to a probe cluster's rate while one is sent (the session paces at
    /// its factor × the rate it is given, so it is given the cluster's rate ÷ that factor).
    func applyPacing(_ flow: MediaFlow) {
        var rate = flow.allocation.pacingBitRate
        if let probe = flow.probePacing {
            if now < probe.until {
                rate = max(rate, UInt64((Double(probe.bitsPerSecond) / Pacer.defaultPacingFactor).rounded(.up)))
            } else {
                flow.probePacing = nil
            }
        }
        flow.sender.setTargetBitrate(rate)
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
