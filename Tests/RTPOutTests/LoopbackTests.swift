import Foundation
import Synchronization
import Testing
@testable import RTP
@testable import RTPOut

/// Polls `condition` every 10 ms until it holds or `timeout` passes.
func eventually(timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return condition()
}

/// Reads every datagram that arrives on `socket` within `timeout`.
func collect(_ socket: UDPSocket, for timeout: Double, until done: ([[UInt8]]) -> Bool = { _ in false }) -> [[UInt8]] {
    var datagrams: [[UInt8]] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline, !done(datagrams) {
        _ = waitForEvents(readable: [socket.fileDescriptor], timeout: .milliseconds(10))
        while let (count, _) = buffer.withUnsafeMutableBytes({ try? socket.receive(into: $0) }) ?? nil {
            datagrams.append(Array(buffer[0 ..< count]))
        }
    }
    return datagrams
}

final class Counter: Sendable {
    let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

final class Collector<T: Sendable>: Sendable {
    let items = Mutex<[T]>([])
    func append(_ item: T) { items.withLock { $0.append(item) } }
    var all: [T] { items.withLock { $0 } }
}

@Suite(.serialized)
struct LoopbackTests {
    static let loopback = try! SocketAddress(host: "127.0.0.1", port: 0)

    @Test(arguments: [false, true])
    func senderToReceiverDeliversIdenticalAccessUnits(paced: Bool) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeUnlessKept(directory) }
        let accessUnits = try TestAnnexB.accessUnits(try Fixtures.x264(frames: 30, in: directory))
        let received = Collector<ReceivedAccessUnit>()
        let receiver = try RTPReceiver(configuration: .init(localAddress: Self.loopback)) { received.append($0) }
        let sender = try RTPSender(configuration: .init(
            destination: receiver.localRTPAddress, pacing: paced ? .paced(targetBitrate: 5_000_000) : .unpaced,
            initialSequenceNumber: 65530))
        for (i, au) in accessUnits.enumerated() {
            try sender.send(accessUnit: au, pts: Int64(i), timeBase: (1, 30))
        }
        #expect(eventually { received.all.count == accessUnits.count })
        sender.close()
        receiver.close()
        #expect(received.all.map(\.nalUnits) == accessUnits.map { $0.map { Array($0) } })
        let stats = sender.statistics
        #expect(stats.accessUnitsSent == 30 && stats.keyframesSent == 1)
        #expect(stats.packetsSent == receiver.statistics.packetsReceived)
        #expect(receiver.statistics.senderReports >= 1)
        #expect(receiver.statistics.goodbyeReceived)
    }

    /// A PLI from the peer's host on an arbitrary port reaches the keyframe callback; one from another host does not.
    @Test func pictureLossFromAnyPortOfThePeerHost() throws {
        let sink = try UDPSocket(bindTo: Self.loopback)
        let requests = Counter()
        let sender = try RTPSender(configuration: .init(destination: sink.localAddress, ssrc: 0xABCD),
                                   onKeyframeRequest: { requests.increment() })
        defer { sender.close(drainTimeout: .zero) }
        let pli = try RTCPPacket.pictureLossIndication(.init(senderSSRC: 1, mediaSSRC: 0xABCD)).marshal()
        let stranger = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.2", port: 0))
        _ = try pli.withUnsafeBytes { try stranger.send($0, to: sender.localRTCPAddress.withPort(sender.localRTCPAddress.port)) }
        #expect(eventually(timeout: 1) { sender.statistics.rtcpPacketsIgnored == 1 })
        let peer = try UDPSocket(bindTo: Self.loopback)  // ephemeral port, like GStreamer's RTCP
        let target = try SocketAddress(host: "127.0.0.1", port: sender.localRTCPAddress.port)
        _ = try pli.withUnsafeBytes { try peer.send($0, to: target) }
        #expect(eventually { requests.count == 1 })
        _ = try pli.withUnsafeBytes { try peer.send($0, to: target) }  // within 300 ms: throttled
        #expect(eventually { sender.statistics.keyframeRequestsReceived == 2 })
        #expect(requests.count == 1)
        #expect(sender.statistics.keyframeRequestsForwarded == 1)
    }

    /// A REMB moves the pacer by itself only when nobody owns the rate: with an `onBitrateLimit` handler the
    /// application sets encoder and pacing together (LiveBitrateController), so the sender leaves its pacer alone.
    @Test(arguments: [false, true])
    func rembMovesThePacerOnlyWithoutAnOwner(owned: Bool) throws {
        let sink = try UDPSocket(bindTo: Self.loopback)
        let limits = Counter()
        var owner: (@Sendable (UInt64) -> Void)?
        if owned { owner = { _ in limits.increment() } }
        let sender = try RTPSender(configuration: .init(destination: sink.localAddress, ssrc: 0xABCD,
                                                        pacing: .paced(targetBitrate: 2_000_000, factor: 1)),
                                   onBitrateLimit: owner)
        defer { sender.close(drainTimeout: .zero) }
        #expect(sender.statistics.pacingBitrate == 2_000_000)
        let remb = try RTCPPacket.receiverEstimatedMaximumBitrate(
            ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 500_000, ssrcs: [0xABCD])).marshal()
        let peer = try UDPSocket(bindTo: Self.loopback)
        _ = try remb.withUnsafeBytes { try peer.send($0, to: SocketAddress(host: "127.0.0.1", port: sender.localRTCPAddress.port)) }
        #expect(eventually { sender.statistics.lastBitrateLimit == 500_000 })
        if owned {
            #expect(eventually { limits.count == 1 })
            #expect(sender.statistics.pacingBitrate == 2_000_000)
            sender.setTargetBitrate(500_000)  // what the owner does
        }
        #expect(eventually { sender.statistics.pacingBitrate == 500_000 })
    }

    @Test(arguments: [false, true])
    func nackIsAnsweredFromHistory(rtx: Bool) throws {
        let sink = try UDPSocket(bindTo: Self.loopback)
        let sender = try RTPSender(configuration: .init(
            destination: sink.localAddress, ssrc: 0xABCD, pacing: .unpaced, rtx: rtx ? (97, 0xBEEF) : nil, initialSequenceNumber: 100))
        defer { sender.close(drainTimeout: .zero) }
        try sender.send(accessUnit: [nal(0x65, size: 5000)], rtpTimestamp: 0)  // 5 packets: 100…104
        let first = collect(sink, for: 2) { $0.count == 5 }
        #expect(first.count == 5)
        let nack = try RTCPPacket.genericNACK(GenericNACK(senderSSRC: 1, mediaSSRC: 0xABCD, lost: [101, 103, 999])).marshal()
        let peer = try UDPSocket(bindTo: Self.loopback)
        _ = try nack.withUnsafeBytes { try peer.send($0, to: SocketAddress(host: "127.0.0.1", port: sender.localRTCPAddress.port)) }
        let again = collect(sink, for: 2) { $0.count == 2 }.compactMap { try? RTPPacket(parsing: $0) }
        #expect(again.count == 2)
        if rtx {
            #expect(again.allSatisfy { $0.header.payloadType == 97 && $0.header.ssrc == 0xBEEF })
            #expect(again.map { UInt16($0.payload[$0.payload.startIndex]) << 8 | UInt16($0.payload[$0.payload.startIndex + 1]) } == [101, 103])
            let original = try RTPPacket(parsing: first[1])
            #expect(Array(again[0].payload.dropFirst(2)) == Array(original.payload))
        } else {
            #expect(again.map { Array(try! $0.marshal()) } == [first[1], first[3]])
        }
        #expect(eventually { sender.statistics.packetsRetransmitted == 2 })
        #expect(sender.statistics.retransmissionsMissed == 1)
    }

    /// Nobody listens on the destination: ICMP port unreachable comes back, is counted, and the stream goes on.
    @Test func peerNotListeningDoesNotStopTheStream() throws {
        let port: UInt16 = {
            let probe = try! UDPSocket(bindTo: Self.loopback)
            return probe.localAddress.port  // closed again when `probe` goes away
        }()
        let warnings = Collector<String>()
        let sender = try RTPSender(configuration: .init(destination: SocketAddress(host: "127.0.0.1", port: port), pacing: .unpaced),
                                   onWarning: { warnings.append($0) })
        for i in 0 ..< 20 {
            try sender.send(accessUnit: [nal(0x41, size: 100)], rtpTimestamp: UInt32(i * 3000))
            Thread.sleep(forTimeInterval: 0.005)
        }
        #expect(eventually { sender.statistics.packetsSent >= 15 })
        sender.close()
        let stats = sender.statistics
        #expect(stats.icmpErrors >= 1)
        #expect(stats.sendErrors == 0)
        #expect(warnings.all.count == 1)
    }

    @Test func senderReportsReachThePeerRTCPPort() throws {
        let rtpSink = try UDPSocket(bindTo: Self.loopback)
        let rtcpSink = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let sender = try RTPSender(configuration: .init(
            destination: rtpSink.localAddress, destinationRTCPPort: rtcpSink.localAddress.port, ssrc: 0x1234,
            cname: "sr-test", pacing: .unpaced, reportInterval: .milliseconds(100)))
        try sender.send(accessUnit: [nal(0x65, size: 100)], rtpTimestamp: 1000)
        let reports = collect(rtcpSink, for: 2) { $0.count >= 2 }
        sender.close(drainTimeout: .zero)
        #expect(reports.count >= 2)
        let packets = try RTCPCompound.parse(reports[0])
        guard case .senderReport(let sr) = packets.first else { Issue.record("no SR"); return }
        #expect(sr.ssrc == 0x1234 && sr.packetCount == 1)
        #expect(packets.contains(.sourceDescription(.cname(ssrc: 0x1234, "sr-test"))))
    }
}
