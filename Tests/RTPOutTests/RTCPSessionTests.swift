import Testing
@testable import RTP
@testable import RTPOut

let t0 = RTPInstant(secondsSinceEpoch: 1_800_000_000)

struct ReceptionStatisticsTests {
    @Test func extendedSequenceAndLossAcrossWrap() {
        var stats = ReceptionStatistics(ssrc: 9)
        for seq: UInt16 in [65533, 65534, 65535, 1, 2] {  // 0 missing
            stats.received(sequenceNumber: seq, rtpTimestamp: 0, arrival: t0)
        }
        let block = stats.makeReportBlock(now: t0)
        #expect(block.extendedHighestSequenceNumber == 65536 + 2)
        #expect(block.cumulativeLost == 1)
        #expect(block.fractionLost == UInt8(1 * 256 / 6))  // 1 of 6 expected
        // Next interval: no new loss.
        stats.received(sequenceNumber: 3, rtpTimestamp: 0, arrival: t0)
        #expect(stats.makeReportBlock(now: t0).fractionLost == 0)
    }

    @Test func jitterFollowsRFC3550A8() {
        var stats = ReceptionStatistics(ssrc: 9)
        stats.received(sequenceNumber: 1, rtpTimestamp: 0, arrival: t0)
        // Sent 3000 units (33.3 ms) later, arrived 43.3 ms later: D = 900 units; J = 900/16.
        stats.received(sequenceNumber: 2, rtpTimestamp: 3000, arrival: t0 + .microseconds(43_333) + .nanoseconds(334))
        #expect(abs(stats.jitter - 900.0 / 16) < 0.1)
        // Steady arrivals leave J decaying, never growing.
        stats.received(sequenceNumber: 3, rtpTimestamp: 6000, arrival: t0 + .microseconds(76_667) + .nanoseconds(334))
        #expect(stats.jitter < 900.0 / 16)
    }

    @Test func lastSenderReportAndDelay() {
        var stats = ReceptionStatistics(ssrc: 9)
        stats.received(sequenceNumber: 1, rtpTimestamp: 0, arrival: t0)
        let ntp = NTPTime(t0)
        stats.senderReportReceived(ntp, at: t0)
        let block = stats.makeReportBlock(now: t0 + .milliseconds(500))
        #expect(block.lastSenderReport == ntp.middle32)
        #expect(block.delaySinceLastSenderReport == 32768)
    }
}

struct RTCPSenderSessionTests {
    func session(_ minInterval: Duration = .milliseconds(300)) -> RTCPSenderSession {
        RTCPSenderSession(configuration: .init(ssrc: 0xAAAA, cname: "rtenc@test", minKeyframeRequestInterval: minInterval))
    }

    @Test func senderReportsOncePerSecondWithRTPMapping() throws {
        var s = session()
        #expect(s.makeReportIfDue(now: t0) == nil)  // nothing sent yet
        s.rtpSent(payloadBytes: 1000, rtpTimestamp: 1000, captureTime: t0, now: t0)
        s.rtpSent(payloadBytes: 200, rtpTimestamp: 1000, captureTime: t0, now: t0)
        #expect(s.makeReportIfDue(now: t0 + .milliseconds(499)) == nil)  // the first half an interval after media
        let firstMaybe = s.makeReportIfDue(now: t0 + .milliseconds(500))
        let first = try #require(firstMaybe)
        // The next one interval later, randomized in [0.5, 1.5] s (RFC 3550 §6.3.1).
        let next = try #require(s.nextReportTime)
        #expect(next >= t0 + .milliseconds(1000) && next <= t0 + .milliseconds(2000))
        #expect(s.makeReportIfDue(now: next - .milliseconds(1)) == nil)
        #expect(s.makeReportIfDue(now: next) != nil)
        let packets = try RTCPCompound.parse(first)
        guard case .senderReport(let sr) = packets[0] else { Issue.record("no SR first"); return }
        #expect(sr.ntpTime == NTPTime(t0 + .milliseconds(500)))
        #expect(sr.rtpTimestamp == 1000 + 45000)
        #expect(sr.packetCount == 2 && sr.octetCount == 1200)
        #expect(packets[1] == .sourceDescription(.cname(ssrc: 0xAAAA, "rtenc@test")))
    }

    @Test func roundTripTimeFromLSRAndDLSR() throws {
        var s = session()
        let srTime = t0
        let block = ReportBlock(ssrc: 0xAAAA, fractionLost: 128, cumulativeLost: 7, extendedHighestSequenceNumber: 10,
                                jitter: 900, lastSenderReport: NTPTime(srTime).middle32,
                                delaySinceLastSenderReport: 65536 / 5)  // 200 ms held at the receiver
        let rr = try RTCPCompound.marshal([.receiverReport(.init(ssrc: 0xBBBB, reports: [block]))])
        _ = try s.receive(rr[...], now: srTime + .milliseconds(250))
        let rtt = try #require(s.peer.roundTripTime)
        #expect(abs(rtt.seconds - 0.050) < 0.001)
        #expect(s.peer.fractionLost == 0.5)
        #expect(s.peer.cumulativeLost == 7)
        #expect(s.peer.jitter == 0.01)
    }

    @Test func keyframeRequestsAreThrottled() throws {
        var s = session()
        let pli = try RTCPPacket.pictureLossIndication(.init(senderSSRC: 0xBBBB, mediaSSRC: 0xAAAA)).marshal()
        var requests: [Int] = []
        for ms in [0, 100, 299, 350, 400, 700] {
            if try s.receive(pli[...], now: t0 + .milliseconds(ms)).contains(.requestKeyframe) { requests.append(ms) }
        }
        #expect(requests == [0, 350, 700])
        #expect(s.peer.keyframeRequestsReceived == 6)
        #expect(s.peer.keyframeRequestsThrottled == 3)
        // A PLI for another SSRC is not ours.
        let other = try RTCPPacket.pictureLossIndication(.init(senderSSRC: 0xBBBB, mediaSSRC: 0x1)).marshal()
        #expect(try s.receive(other[...], now: t0 + .seconds(5)).isEmpty)
    }

    @Test func firIsDeduplicatedBySequenceNumber() throws {
        var s = session(.zero)
        var requests = 0
        for (i, seq) in [UInt8(1), 1, 2, 2, 3].enumerated() {
            let fir = try RTCPPacket.fullIntraRequest(.init(senderSSRC: 0xBBBB, entries: [.init(ssrc: 0xAAAA, sequenceNumber: seq)])).marshal()
            requests += try s.receive(fir[...], now: t0 + .seconds(i)).filter { $0 == .requestKeyframe }.count
        }
        #expect(requests == 3)
    }

    @Test func nackREMBAndTMMBR() throws {
        var s = session()
        let datagram = try RTCPCompound.marshal([
            .receiverReport(.init(ssrc: 0xBBBB)),
            .genericNACK(GenericNACK(senderSSRC: 0xBBBB, mediaSSRC: 0xAAAA, lost: [10, 12])),
            .receiverEstimatedMaximumBitrate(.init(senderSSRC: 0xBBBB, bitrate: 800_000, ssrcs: [0xAAAA])),
            .temporaryMaximumBitrateRequest(.init(senderSSRC: 0xBBBB, entries: [.init(ssrc: 0xAAAA, bitrate: 500_000, overhead: 40)])),
        ])
        let actions = try s.receive(datagram[...], now: t0)
        #expect(actions.prefix(3) == [.retransmit([10, 12]), .limitBitrate(800_000), .limitBitrate(500_000)])
        guard case .reply(let reply) = actions.last else { Issue.record("no TMMBN"); return }
        let packets = try RTCPCompound.parse(reply)
        #expect(packets.last == .temporaryMaximumBitrateNotification(.init(senderSSRC: 0xAAAA, entries: [.init(ssrc: 0xBBBB, bitrate: 500_000, overhead: 40)])))
        #expect(s.peer.nackedPackets == 2)
    }

    @Test func receiverSessionTalksToSenderSession() throws {
        var sender = session()
        var receiver = RTCPReceiverSession(configuration: .init(ssrc: 0xBBBB, cname: "rx"))
        for i in 0 ..< 10 where i != 4 {
            receiver.rtpReceived(RTPHeader(payloadType: 96, sequenceNumber: UInt16(100 + i), timestamp: UInt32(i * 3000), ssrc: 0xAAAA),
                                 arrival: t0 + .milliseconds(33 * i))
            sender.rtpSent(payloadBytes: 100, rtpTimestamp: UInt32(i * 3000), captureTime: t0 + .milliseconds(33 * i), now: t0 + .milliseconds(33 * i))
        }
        let srMaybe = sender.makeReportIfDue(now: t0 + .milliseconds(500))
        let sr = try #require(srMaybe)
        try receiver.receive(sr[...], now: t0 + .milliseconds(510))  // 10 ms one way
        let rrMaybe = receiver.makeReportIfDue(now: t0 + .milliseconds(1510))  // held 1 s
        let rr = try #require(rrMaybe)
        _ = try sender.receive(rr[...], now: t0 + .milliseconds(1520))  // 10 ms back
        #expect(abs(try #require(sender.peer.roundTripTime).seconds - 0.020) < 0.001)
        #expect(sender.peer.cumulativeLost == 1)
        let pliMaybe = receiver.makePictureLossIndication(now: t0 + .seconds(2))
        let pli = try #require(pliMaybe)
        #expect(receiver.makePictureLossIndication(now: t0 + .seconds(2) + .milliseconds(100)) == nil)
        #expect(try sender.receive(pli[...], now: t0 + .seconds(2)).contains(.requestKeyframe))
        let nackMaybe = receiver.makeNACK(lost: [104], now: t0 + .seconds(2))
        let nack = try #require(nackMaybe)
        #expect(try sender.receive(nack[...], now: t0 + .seconds(2)).contains(.retransmit([104])))
    }
}

struct PacketHistoryTests {
    @Test func storesLooksUpAndOverwrites() {
        let history = PacketHistory(capacity: 4, maxPacketSize: 16)
        for seq: UInt16 in 0 ..< 6 {
            [UInt8(seq), 1, 2].withUnsafeBytes { history.store($0, sequenceNumber: seq, sentAt: t0) }
        }
        #expect(history.withPacket(5) { bytes, _ in Array(bytes) } == [5, 1, 2])
        #expect(history.withPacket(2) { bytes, _ in Array(bytes) } == [2, 1, 2])
        #expect(history.withPacket(1) { _, _ in true } == nil)  // overwritten by 5
        #expect(history.withPacket(9) { _, _ in true } == nil)
    }

    @Test func rtxPacketCarriesOriginalSequenceNumber() throws {
        let original: [UInt8] = [
            0x80, 0xE0, 0x12, 0x34,  // M=1 PT=96 seq 0x1234
            0x00, 0x00, 0x0B, 0xB8,  // ts 3000
            0x00, 0x00, 0xAA, 0xAA,  // SSRC
            0x65, 0x01,  // payload
        ]
        var rtx = RTXEncoder(payloadType: 97, ssrc: 0xBBBB, sequencer: RTPSequencer(initial: 7))
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = try original.withUnsafeBytes { source in try buffer.withUnsafeMutableBytes { try rtx.encode(source, into: $0) } }
        #expect(Array(buffer[0 ..< n]) == [
            0x80, 0xE1, 0x00, 0x07,  // M=1 PT=97 seq 7
            0x00, 0x00, 0x0B, 0xB8,  // same timestamp
            0x00, 0x00, 0xBB, 0xBB,  // RTX SSRC
            0x12, 0x34,  // OSN
            0x65, 0x01,  // original payload
        ])
    }
}
