import Bitstream

extension RTPReceiveSession {
    /// One RTP datagram (plaintext: SRTP already removed) that arrived at `now`. Returns whether it was taken (an
    /// RTP packet of the configured payload type): the driver answers the first such packet's source.
    @discardableResult
    public mutating func handle(rtp datagram: [UInt8], at now: RTPInstant) -> Bool {
        let packet: RTPPacket
        do throws(RTPError) {
            packet = try RTPPacket(parsing: datagram[...])
        } catch {
            statistics.malformedPackets += 1
            events.push(.warning(.malformedPacket(error.code, reason: error.reason)))
            return false
        }
        // Feedback covers every packet of the transport (RTX and padding too), whatever its payload type.
        congestionFeedback?.record(packet.header, at: now)
        if let payloadType = configuration.payloadType, packet.header.payloadType != payloadType {
            statistics.otherPayloadTypes += 1
            if otherPayloadTypesSeen.insert(packet.header.payloadType).inserted {
                events.push(.warning(.otherPayloadType(packet.header.payloadType)))
            }
            return false
        }
        statistics.packetsReceived += 1
        statistics.bytesReceived += datagram.count
        if configuration.codec == .h264, OtherCodecPayload.isHEVCParameterSets(receivedAsH264: packet.payload) {
            statistics.otherCodecPackets += 1
            if statistics.otherCodecPackets == 1 { events.push(.warning(.otherCodec(.hevc))) }
        }
        rtcp.rtpReceived(packet.header, arrival: now)
        let payload = try? depacketizer.content(of: packet.payload)
        if depacketizer.isAwaitingEarlierPackets {
            var released: [DepacketizerEvent] = []  // handled after: the depacketizer is busy
            depacketizer.expire(now: now) { released.append($0) }  // their deadline may have passed
            for event in released { handle(event, now: now) }
        }
        let startPacket = startPacketsAwaited.remove(packet.header.sequenceNumber) != nil
        let (late, duplicates) = (depacketizer.latePackets, depacketizer.duplicatePackets)
        if let payload { expectEarlierPackets(before: packet, payload, now: now) }
        // Ask as soon as a packet shows there is nothing to decode from, not only once its access unit is complete —
        // unless the parameter sets missing are being asked for with a NACK (the PLI comes if it goes unanswered).
        if configuration.sendPictureLossOnDrop, let payload,
           let reason = recovery.packetReceived(nalUnitTypes: payload.startingNALUnitTypes(configuration.codec)),
           !(reason == .noParameterSets && depacketizer.isAwaitingEarlierPackets) {
            sendPictureLoss(reason, now: now)
        }
        var released: [DepacketizerEvent] = []  // handled after: the depacketizer is busy
        depacketizer.push(packet, arrival: now) { released.append($0) }
        for event in released { handle(event, now: now) }
        if startPacket, depacketizer.latePackets == late, depacketizer.duplicatePackets == duplicates {
            statistics.startPacketsRecovered += 1
        }
        // Once the first access unit is out, what was asked for at the start has come or been given up on.
        if statistics.accessUnits + statistics.accessUnitsDropped > 0 { startPacketsAwaited = [] }
        requestRetransmissions(now: now)
        return true
    }

    /// At the first packet: if it shows that the packets before it are missing (`StartOfStreamNACK`), await them
    /// (the depacketizer holds everything behind them for one NACK retry interval) so that they are NACKed at once.
    private mutating func expectEarlierPackets(before packet: RTPPacket, _ payload: RTPPayloadContent, now: RTPInstant) {
        guard configuration.sendNACK, depacketizer.awaitsFirstPacket,
              let count = StartOfStreamNACK.count(firstPacket: payload, codec: configuration.codec,
                                                  parameterSetsKnown: recovery.hasParameterSets) else { return }
        let awaited = depacketizer.expectEarlierPackets(count, before: packet.header.sequenceNumber,
                                                        until: now + nacks.retryInterval)
        startPacketsAwaited = Set(awaited)
        statistics.startPacketsRequested += awaited.count
    }

    /// What the depacketizer released: counted, turned into events, and a PLI where a picture is now needed.
    mutating func handle(_ event: DepacketizerEvent, now: RTPInstant) {
        switch event {
        case .accessUnit(let unit):
            statistics.accessUnits += 1
            // No decodable IDR yet (joined late, the first IDR or its parameter sets lost) or none since a loss:
            // asked again with every access unit, throttled like all PLIs.
            let codec = configuration.codec
            let types = unit.nalUnits.map { $0.first.map { codec.nalUnitType(firstByte: $0) } ?? 0 }
            if let reason = recovery.accessUnitReceived(nalUnitTypes: types, timestamp: unit.timestamp),
               configuration.sendPictureLossOnDrop {
                sendPictureLoss(reason, now: now)
            }
            let primed = primer?.missingParameterSets(for: unit, nalUnitTypes: types) ?? []
            events.push(.accessUnit(DeliveredAccessUnit(received: unit, primedParameterSets: primed)))
        case .packetsLost(let lost):
            // Given up on: the NACKs went out while the hole was open (`requestRetransmissions`); one now would only
            // bring a packet the depacketizer would drop as late.
            statistics.packetsLost += lost.count
            events.push(.packetsLost(lost))
        case .accessUnitDropped(let timestamp, let reason):
            statistics.accessUnitsDropped += 1
            events.push(.accessUnitDropped(rtpTimestamp: timestamp, reason: reason))
            let recoveryReason = recovery.accessUnitLost()
            if configuration.sendPictureLossOnDrop { sendPictureLoss(recoveryReason, now: now) }
        case .malformedPayload(let error):
            statistics.malformedPackets += 1
            events.push(.warning(.malformedPayload(error.code, reason: error.reason)))
        }
    }
}
