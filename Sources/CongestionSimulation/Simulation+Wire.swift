import CongestionControl
import MediaCore
import RTP

/// The sender's side of feedback on the wire (`FeedbackPath.transportCC`, `.congestionControlFeedback`): what it sent,
/// probes as the session's padding, and the session's reports on the policy's clock.
extension Simulation {
    /// The packet the send session just transmitted, as the policy's `observe(sent:)` hears it: numbered in sending
    /// order as the session's `SentPacketHistory` numbers it (one number per RTP datagram: media, RTX, padding), its
    /// size as the session counts it, padding-only packets on RTX tagged with the probe cluster they were queued for.
    func sentOnTheWire(_ datagram: [UInt8], flow: MediaFlow) -> SentPacket {
        let ssrc = datagram.count >= 12 ? UInt32(datagram[8]) << 24 | UInt32(datagram[9]) << 16 | UInt32(datagram[10]) << 8 | UInt32(datagram[11]) : 0
        let onRTX = flow.sender.configuration.rtx?.ssrc == ssrc
        let isPadding = onRTX && datagram[0] & 0x20 != 0  // P: only the session's padding sets it on RTX
        var cluster: Int?
        if isPadding, flow.queuedPaddingHead < flow.queuedPadding.count {
            cluster = flow.queuedPadding[flow.queuedPaddingHead]
            flow.queuedPaddingHead += 1
            if flow.queuedPaddingHead > 1024 {
                flow.queuedPadding.removeFirst(flow.queuedPaddingHead)
                flow.queuedPaddingHead = 0
            }
        }
        return SentPacket(sequenceNumber: flow.nextTransportSequence, sendTime: instant(now), size: datagram.count,
                          kind: isPadding ? .padding : onRTX ? .retransmission : .media, probeClusterID: cluster)
    }

    /// One packet of a probe cluster's share: padding-only packets queued in the session (the pacer runs at the
    /// cluster's rate meanwhile), then whatever the pacer lets go now.
    func sendPadding(_ flow: MediaFlow, bytes: Int, cluster: Int) throws(SimulationError) {
        let queued: Int
        do {
            queued = try flow.sender.enqueuePadding(bytes: bytes, probeClusterID: cluster, at: rtp(now))
        } catch {
            throw .make(.session, "flow \(flow.index) refused padding: \(error)")
        }
        flow.queuedPadding += repeatElement(Optional(cluster), count: queued)
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
