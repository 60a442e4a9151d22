import MediaCore
import Testing
@testable import RTP
@testable import RTPOut

/// Probe clusters on the sans-IO send session (`startProbe`, `ProbeSchedule`): padding-only packets on RTX, tagged
/// with the cluster's id, at the cluster's rate whatever the media pacer's, ahead of queued media — manual time.
struct ProbeSessionTests {
    typealias T = RTPSendSessionTests
    static let start = TransportWideSessionTests.start
    static let rtx = TransportWideSessionTests.rtx
    /// The one-byte extension block for transport-wide 3 + abs-send-time 5 is 12 bytes: 12 + 12 + 255 on the wire.
    static let probeWireBytes = 12 + 12 + 255

    /// A paced session at `bitrate` with transport-wide numbering and RTX.
    static func session(bitrate: UInt64 = 100_000) throws -> RTPSendSession {
        var configuration = RTPSendSession.Configuration(
            payloadType: 96, ssrc: T.ssrc, cname: "probe@test", pacing: .paced(targetBitrate: bitrate), rtx: rtx,
            initialSequenceNumber: T.firstSequenceNumber, timestampOffset: T.offset)
        configuration.headerExtensions = .init(transportSequenceNumberID: 3, absoluteSendTimeID: 5)
        return try RTPSendSession(configuration: configuration, random: SeededGenerator(state: 7))
    }

    /// Drives the session in 100 µs steps up to `duration`, as a driver that sleeps until `nextTimeout` would
    /// (never later than it asks), and returns every RTP datagram with the time it left.
    static func run(_ session: inout RTPSendSession, for duration: Duration) -> [(time: Duration, datagram: [UInt8])] {
        var out: [(Duration, [UInt8])] = []
        var offset = Duration.zero
        while offset <= duration {
            for transmit in T.drain(&session, at: start + offset) where transmit.kind == .rtp {
                out += transmit.datagrams.map { (offset, $0) }
            }
            offset += .microseconds(100)
        }
        return out
    }

    static func isProbe(_ datagram: [UInt8]) -> Bool { T.ssrc(datagram) == rtx.ssrc }

    /// Case table: a cluster's rate, duration and packet minimum → the packets it takes (its bytes at its rate,
    /// at least `minProbes`, 279 bytes each) and when its last one leaves (k × 279 × 8 / rate after the first).
    static let clusters: [(ProbeCluster, packets: Int)] = [
        // 900 kb/s × 15 ms = 1687 bytes → 7 packets (6 would carry 1674); 2.48 ms apart.
        (ProbeCluster(id: 1, bitsPerSecond: 900_000, duration: .milliseconds(15), minProbes: 5), 7),
        // 200 kb/s × 15 ms = 375 bytes → 2 packets, but at least 5; 11.2 ms apart.
        (ProbeCluster(id: 2, bitsPerSecond: 200_000, duration: .milliseconds(15), minProbes: 5), 5),
        // 3 Mb/s × 15 ms = 5625 bytes → 21 packets (20 carry 5580); 0.744 ms apart.
        (ProbeCluster(id: 3, bitsPerSecond: 3_000_000, duration: .milliseconds(15), minProbes: 5), 21),
    ]

    @Test(arguments: clusters)
    func aClusterLeavesAtItsRate(cluster: ProbeCluster, packets: Int) throws {
        var session = try Self.session()
        #expect(try session.startProbe(cluster, at: Self.start))
        let sent = Self.run(&session, for: .milliseconds(200))
        #expect(sent.count == packets)
        let spacing = Double(Self.probeWireBytes * 8) / Double(cluster.bitsPerSecond)
        for (k, (time, datagram)) in sent.enumerated() {
            let packet = try RTPPacket(parsing: datagram)
            #expect(packet.header.ssrc == Self.rtx.ssrc && packet.header.payloadType == Self.rtx.payloadType)
            #expect(packet.payload.isEmpty && packet.paddingSize == 255 && datagram[0] & 0x20 != 0)
            // Due at k × spacing; the driver looks every 100 µs.
            let due = Double(k) * spacing
            #expect(time.seconds >= due - 1e-9 && time.seconds < due + 100e-6 + 1e-9, "packet \(k) at \(time), due \(due)")
        }
        // Each packet is remembered as padding of this cluster: what the controller matches its feedback with.
        let numbered = session.sentPackets?.nextSequenceNumber
        #expect(numbered == Int64(packets))
        var stats = session.statistics(at: Self.start + .milliseconds(200))
        #expect(stats.paddingPacketsSent == packets && stats.probeClustersSent == 1)
        let report = TransportCCFeedback(senderSSRC: 1, mediaSSRC: T.ssrc, baseSequenceNumber: 0, referenceTime: 0,
                                         feedbackPacketCount: 0, statuses: Array(repeating: .receivedSmallDelta(4), count: packets))
        session.handle(rtcp: try RTCPPacket.transportCC(report).marshal()[...], at: Self.start + .milliseconds(250))
        guard case .transportFeedback(let feedback) = try #require(T.events(&session).first) else {
            Issue.record("no feedback event")
            return
        }
        #expect(feedback.packets.count == packets)
        #expect(feedback.packets.allSatisfy { $0.sent.kind == .padding && $0.sent.probeClusterID == cluster.id })
        stats = session.statistics(at: Self.start + .milliseconds(250))
        #expect(stats.feedbackPacketsReceived == packets)
    }

    /// A probe does not wait for the media pacer: a keyframe queued at 100 kb/s (pacing 250 kb/s) would hold the
    /// queue for ~130 ms, yet the cluster's packets go ahead of it at 900 kb/s; the media still leaves in order.
    @Test func probesGoAheadOfPacedMedia() throws {
        var session = try Self.session(bitrate: 100_000)
        try session.enqueue(T.accessUnit(4, size: 1000, keyframe: true), captureTime: Self.start, at: Self.start)
        try session.startProbe(ProbeCluster(id: 9, bitsPerSecond: 900_000, duration: .milliseconds(15), minProbes: 5), at: Self.start)
        let sent = Self.run(&session, for: .milliseconds(300))
        let probes = sent.filter { Self.isProbe($0.datagram) }
        let media = sent.filter { !Self.isProbe($0.datagram) }
        #expect(probes.count == 7)
        #expect(media.count == 4)
        let lastProbe = try #require(probes.last?.time)
        #expect(lastProbe < .milliseconds(16), "the cluster took \(lastProbe), its rate allows 15 ms")
        #expect(try #require(media.last?.time) > .milliseconds(80), "the media stays paced")
        #expect(media.map { T.sequenceNumber($0.datagram) } == [100, 101, 102, 103])
        // Transport-wide numbers follow the order on the wire, probes and media interleaved.
        let numbers = sent.compactMap { TransportWideSessionTests.transportNumber($0.datagram) }
        #expect(numbers == (0 ..< UInt16(sent.count)).map { $0 })
    }

    /// Padding queued with `enqueuePadding` is paced like media even when tagged with a cluster: only what
    /// `startProbe` schedules leaves at the cluster's rate.
    @Test func enqueuedPaddingStaysPaced() throws {
        var session = try Self.session(bitrate: 100_000)
        #expect(try session.enqueuePadding(bytes: 2550, probeClusterID: 3, at: Self.start) == 10)
        let first = T.drain(&session, at: Self.start).filter { $0.kind == .rtp }.flatMap(\.datagrams)
        #expect(first.count < 10, "the pacer's burst (1500 bytes) lets a few go at once, not all ten")
        let rest = Self.run(&session, for: .milliseconds(300))
        #expect(first.count + rest.count == 10)
        // Six leave within the burst; the other four drain at 250 kb/s (8.9 ms each): the last at ~32 ms.
        #expect(first.count == 6)
        #expect(try #require(rest.last?.time) > .milliseconds(25), "the pacer held the rest back")
    }

    /// Clusters queue: the second starts where the first's last packet has drained, and has its own id.
    @Test func clustersFollowEachOther() throws {
        var session = try Self.session()
        let first = ProbeCluster(id: 1, bitsPerSecond: 900_000, duration: .milliseconds(15), minProbes: 5)
        let second = ProbeCluster(id: 2, bitsPerSecond: 1_800_000, duration: .milliseconds(15), minProbes: 5)
        #expect(try session.startProbe(first, at: Self.start))
        #expect(try session.startProbe(second, at: Self.start))
        let sent = Self.run(&session, for: .milliseconds(100))
        #expect(sent.count == 7 + 13)  // 1800 kb/s × 15 ms = 3375 bytes: 13 packets
        let report = TransportCCFeedback(senderSSRC: 1, mediaSSRC: T.ssrc, baseSequenceNumber: 0, referenceTime: 0,
                                         feedbackPacketCount: 0, statuses: Array(repeating: .receivedSmallDelta(4), count: sent.count))
        session.handle(rtcp: try RTCPPacket.transportCC(report).marshal()[...], at: Self.start + .milliseconds(150))
        guard case .transportFeedback(let feedback) = try #require(T.events(&session).first) else {
            Issue.record("no feedback event")
            return
        }
        #expect(feedback.packets.map(\.sent.probeClusterID) == Array(repeating: 1, count: 7) + Array(repeating: 2, count: 13))
        // The second cluster's first packet is due 7 × 2.48 ms after the start: where the first's last drained.
        let secondStart = sent[7].time.seconds
        #expect(abs(secondStart - 7 * Double(Self.probeWireBytes * 8) / 900_000) < 101e-6, "\(secondStart)")
        #expect(session.statistics(at: Self.start + .milliseconds(100)).probeClustersSent == 2)
        #expect(session.nextTimeout().map { $0 > Self.start + .milliseconds(100) } ?? true, "nothing left to probe")
    }

    @Test func refusals() throws {
        var withoutRTX = try RTPSendSession(configuration: .init(ssrc: 1, pacing: .paced(targetBitrate: 100_000)))
        let cluster = ProbeCluster(id: 1, bitsPerSecond: 900_000, duration: .milliseconds(15), minProbes: 5)
        #expect(throws: RTPError.self) { try withoutRTX.startProbe(cluster, at: Self.start) }
        var session = try Self.session()
        for bad in [ProbeCluster(id: 1, bitsPerSecond: 0, duration: .milliseconds(15), minProbes: 5),
                    ProbeCluster(id: 1, bitsPerSecond: 1000, duration: .zero, minProbes: 5),
                    ProbeCluster(id: 1, bitsPerSecond: 1000, duration: .milliseconds(15), minProbes: 0)] {
            #expect(throws: RTPError.self) { try session.startProbe(bad, at: Self.start) }
        }
        for _ in 0 ..< ProbeSchedule.maxClusters { #expect(try session.startProbe(cluster, at: Self.start)) }
        #expect(try session.startProbe(cluster, at: Self.start) == false, "too many waiting: refused, not queued")
        session.close(at: Self.start)
        #expect(throws: RTPError.self) { try session.startProbe(cluster, at: Self.start) }
    }
}
