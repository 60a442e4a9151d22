import CUDPShim
import Foundation
import Testing
@testable import RTP
@testable import RTPOut

/// Unpaced (file-to-file) sending: every packet reaches the wire, whoever listens or does not; and the BYE linger
/// only where a receiver may still be reading.
@Suite(.serialized)
struct UnpacedSendTests {
    static let loopback = try! SocketAddress(host: "127.0.0.1", port: 0)

    /// A port that was free a moment ago: datagrams sent there come back as ICMP port unreachable.
    static func deadPort() throws -> SocketAddress {
        let probe = try UDPSocket(bindTo: loopback)
        return probe.localAddress  // closed again when `probe` goes away
    }

    /// Non-IDR access units of `size` bytes each: 26 FU-A packets apiece at the default 1200-byte payload.
    static func accessUnits(_ count: Int, size: Int = 30_000) -> [[ArraySlice<UInt8>]] {
        (0 ..< count).map { _ in [nal(0x41, size: size)] }
    }

    /// How many packets the payloader makes of `units`, counted by a packetizer of our own.
    static func packetCount(_ units: [[ArraySlice<UInt8>]]) throws -> Int {
        let packetizer = try H264Packetizer(payloader: H264Payloader(configuration: .init()), payloadType: 96, ssrc: 1)
        var count = 0
        for unit in units { try packetizer.packetize(unit, timestamp: 0) { _, _, _ in count += 1 } }
        return count
    }

    /// Datagrams the kernel dropped on `socket` because its receive buffer was full: SO_MEMINFO's SK_MEMINFO_DROPS
    /// (Linux ≥ 4.x). Asked of the socket itself — reading /proc/net/udp missed the line now and then while other
    /// suites opened and closed sockets.
    static func kernelDrops(_ socket: UDPSocket) throws -> Int {
        let soMeminfo: Int32 = 55, skMeminfoDrops = 8
        var meminfo = [UInt32](repeating: 0, count: 9)
        var length = socklen_t(MemoryLayout<UInt32>.size * meminfo.count)
        let result = meminfo.withUnsafeMutableBytes { getsockopt(socket.fileDescriptor, SOL_SOCKET, soMeminfo, $0.baseAddress, &length) }
        guard result == 0, Int(length) > skMeminfoDrops * MemoryLayout<UInt32>.size else {
            throw RTPError.make(.invalidValue, "SO_MEMINFO failed (errno \(errno))")
        }
        return Int(meminfo[skMeminfoDrops])
    }

    /// The lead's finding: 14,271 packets to a port nobody listens on went out as 6,714 — the queue overflowed while
    /// each sendmmsg was cut short by ECONNREFUSED. Now every packet is sent, with a queue far smaller than an
    /// access unit as well (a full queue is sent before packetizing goes on).
    @Test(arguments: [4096, 8])
    func nobodyListeningStillGetsEveryPacket(queueCapacity: Int) throws {
        let units = Self.accessUnits(240)
        let produced = try Self.packetCount(units)
        let warnings = Collector<String>()
        let sender = try RTPSender(configuration: .init(destination: Self.deadPort(), pacing: .unpaced, queueCapacity: queueCapacity),
                                   onWarning: { warnings.append($0) })
        for (i, unit) in units.enumerated() { try sender.send(accessUnit: unit, rtpTimestamp: UInt32(i * 3000)) }
        let afterSend = sender.statistics  // unpaced: all of it is on the wire when send returns
        sender.close()
        #expect(produced == 240 * 26)
        #expect(afterSend.packetsSent == produced)
        #expect(afterSend.packetsDropped == 0 && afterSend.sendErrors == 0)
        #expect(afterSend.queuedPackets == 0)
        #expect(afterSend.icmpErrors >= 1)
        #expect(warnings.all.filter { $0.contains("not listening") }.count == 1)
    }

    /// A receiver that reads slowly: the sender still sends everything (it cannot see the receiver's buffer), and
    /// everything it sent either arrived or was dropped by the receiving socket's full buffer — nothing was lost
    /// on our side.
    @Test func slowReaderLosesNothingOnOurSide() throws {
        // Read by the reader thread only; the test thread waits for it to finish.
        nonisolated(unsafe) let sink = try UDPSocket(bindTo: Self.loopback, receiveBufferSize: 64 * 1024)
        let units = Self.accessUnits(80)
        let produced = try Self.packetCount(units)
        let sender = try RTPSender(configuration: .init(destination: sink.localAddress, pacing: .unpaced, goodbyeDelay: .zero))
        let received = Counter()
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 2048)
            var quietSince = Date()
            while Date().timeIntervalSince(quietSince) < 0.5 {
                if buffer.withUnsafeMutableBytes({ (try? sink.receive(into: $0)) ?? nil }) != nil {
                    received.increment()
                    quietSince = Date()
                    Thread.sleep(forTimeInterval: 0.0005)  // slow: the 64 KiB buffer overflows meanwhile
                } else {
                    _ = waitForEvents(readable: [sink.fileDescriptor], timeout: .milliseconds(20))
                }
            }
        }
        reader.start()
        for (i, unit) in units.enumerated() { try sender.send(accessUnit: unit, rtpTimestamp: UInt32(i * 3000)) }
        let stats = sender.statistics
        sender.close()
        #expect(stats.packetsSent == produced && stats.packetsDropped == 0)
        #expect(eventually(timeout: 10) { reader.isFinished })
        let drops = try Self.kernelDrops(sink)
        #expect(received.count + drops == produced, "\(received.count) read + \(drops) dropped by the sink's kernel buffer")
        #expect(received.count > 0)
    }

    /// Nobody listens: the BYE linger would only delay close(), so it is skipped.
    @Test func refusedPeerClosesPromptly() throws {
        let sender = try RTPSender(configuration: .init(destination: Self.deadPort(), pacing: .unpaced, goodbyeDelay: .seconds(5)))
        for (i, unit) in Self.accessUnits(10).enumerated() { try sender.send(accessUnit: unit, rtpTimestamp: UInt32(i * 3000)) }
        let start = ContinuousClock.now
        sender.close(drainTimeout: .seconds(10))
        let took = ContinuousClock.now - start
        #expect(took < .seconds(2), "close took \(took) with a 5 s linger configured")
        #expect(sender.statistics.icmpErrors >= 1)
    }

    /// Refused at first, then the last datagrams drew no refusal — here because a socket was bound on the port for
    /// them and closed before `close`; in the field because the kernel's ICMP rate limit (`icmp_msgs_per_sec`, per-host
    /// `icmp_ratelimit`) ate the last refusals of a burst. Nobody listens at close: the refusal probe at the linger's
    /// start is refused, and the 5 s linger is skipped.
    @Test func refusedEarlierThenSilentPeerIsProbedAndClosesPromptly() throws {
        let port = try Self.deadPort()
        let sender = try RTPSender(configuration: .init(destination: port, pacing: .unpaced, goodbyeDelay: .seconds(5)))
        for (i, unit) in Self.accessUnits(5).enumerated() { try sender.send(accessUnit: unit, rtpTimestamp: UInt32(i * 3000)) }
        #expect(sender.statistics.icmpErrors >= 1)
        do {
            let sink = try UDPSocket(bindTo: port)  // takes the last access units without a word, reads nothing
            try withExtendedLifetime(sink) {
                for (i, unit) in Self.accessUnits(5).enumerated() { try sender.send(accessUnit: unit, rtpTimestamp: UInt32((i + 5) * 3000)) }
            }
        }
        let start = ContinuousClock.now
        sender.close(drainTimeout: .seconds(10))
        let took = ContinuousClock.now - start
        #expect(took < .seconds(2), "close took \(took) with a 5 s linger configured and nobody listening")
    }

    /// A receiver that started late (the first datagrams were refused) and sends no RTCP reads the end of the stream:
    /// it keeps its whole linger, and gets nothing beyond the media but the empty probe datagrams (at the linger's
    /// start and 100 ms on; the third, at 1.1 s, is past a 400 ms linger; an I/O thread woken 300 ms late on a loaded
    /// host finds the BYE due before the second — the exact schedule is `ByeLingerTests`').
    @Test func lateReceiverWithoutRTCPKeepsItsLinger() throws {
        let port = try Self.deadPort()
        let sender = try RTPSender(configuration: .init(destination: port, pacing: .unpaced, goodbyeDelay: .milliseconds(400)))
        for (i, unit) in Self.accessUnits(5).enumerated() { try sender.send(accessUnit: unit, rtpTimestamp: UInt32(i * 3000)) }
        #expect(sender.statistics.icmpErrors >= 1)
        let sink = try UDPSocket(bindTo: port)
        let units = Self.accessUnits(5)
        for (i, unit) in units.enumerated() { try sender.send(accessUnit: unit, rtpTimestamp: UInt32((i + 5) * 3000)) }
        let start = ContinuousClock.now
        sender.close(drainTimeout: .seconds(10))
        let took = ContinuousClock.now - start
        #expect(took >= .milliseconds(350), "close took \(took): the linger was skipped for a receiver that reads")
        let received = collect(sink, for: 1)
        #expect(received.filter { !$0.isEmpty }.count == (try Self.packetCount(units)))
        #expect((1 ... 2).contains(received.filter(\.isEmpty).count), "probes: \(received.filter(\.isEmpty).count)")
    }

    /// A listening peer still gets the linger: the BYE comes after the last media packet, `goodbyeDelay` later.
    @Test(arguments: [false, true])
    func listeningPeerGetsByeAfterTheLinger(paced: Bool) throws {
        let rtpSink = try UDPSocket(bindTo: Self.loopback)
        let rtcpSink = try UDPSocket(bindTo: Self.loopback)
        let units = Self.accessUnits(5, size: 5000)
        let sender = try RTPSender(configuration: .init(
            destination: rtpSink.localAddress, destinationRTCPPort: rtcpSink.localAddress.port,
            pacing: paced ? .paced(targetBitrate: 5_000_000) : .unpaced, goodbyeDelay: .milliseconds(400)))
        for (i, unit) in units.enumerated() { try sender.send(accessUnit: unit, rtpTimestamp: UInt32(i * 3000)) }
        let start = ContinuousClock.now
        sender.close(drainTimeout: .seconds(10))
        let took = ContinuousClock.now - start
        #expect(took >= .milliseconds(300), "close took \(took): the linger was skipped")
        let media = collect(rtpSink, for: 2) { $0.count == 25 }
        #expect(media.count == 25)
        let rtcp = collect(rtcpSink, for: 2) { datagrams in
            datagrams.contains { (try? RTCPCompound.parse($0[...]))?.contains { if case .goodbye = $0 { true } else { false } } == true }
        }
        let last = try #require(rtcp.last)
        let packets = try RTCPCompound.parse(last[...])
        guard case .senderReport(let sr) = packets.first else { Issue.record("BYE compound without SR"); return }
        #expect(sr.packetCount == 25)  // sent after every media packet
        #expect(packets.contains { if case .goodbye = $0 { true } else { false } })
    }
}

/// UDP GSO: runs of equal-sized datagrams leave as one message each, and arrive as the very datagrams given.
struct SegmentedSendTests {
    static let sizeCases: [[Int]] = [
        [1201, 1201, 1200, 1200, 1200],  // FU-A fragments, equal ±1: two runs
        [30, 1200, 1200, 1200, 700, 1200, 5],  // parameter sets, a slice, a short last fragment, more
        Array(repeating: 1212, count: 64),  // a full batch: runs capped by the 64 KB message limit
        [100],
    ]

    @Test(arguments: sizeCases, ["127.0.0.1", "::1"])
    func segmentedBatchArrivesAsTheSameDatagrams(sizes: [Int], host: String) throws {
        let sink = try UDPSocket(bindTo: SocketAddress(host: host, port: 0), receiveBufferSize: 1 << 20)
        let socket = try UDPSocket(bindTo: SocketAddress(host: host, port: 0))
        try socket.connect(to: sink.localAddress)
        let datagrams = sizes.enumerated().map { index, size in (0 ..< size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) } }
        let pointers = datagrams.map { bytes in
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
            copy.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: bytes.count))
            return copy
        }
        defer { pointers.forEach { $0.deallocate() } }
        let batch = pointers.map { cudp_datagram(base: UnsafeRawPointer($0.baseAddress), length: $0.count) }
        let outcome = try batch.withUnsafeBufferPointer { try socket.sendBatch($0, segmented: true) }
        #expect(outcome == .sent(sizes.count))
        let received = collect(sink, for: 2) { $0.count == sizes.count }
        #expect(received == datagrams)
    }
}

extension SegmentedSendTests {
    /// Where the kernel cannot segment (here: UDP checksums switched off with SO_NO_CHECK, which GSO refuses with
    /// EINVAL), the batch is reported as such with nothing sent, and goes out whole without segmentation.
    @Test func unsupportedSegmentationSendsNothingAndPlainSendingWorks() throws {
        let sink = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let socket = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        try socket.connect(to: sink.localAddress)
        var on: Int32 = 1
        #expect(setsockopt(socket.fileDescriptor, SOL_SOCKET, 11 /* SO_NO_CHECK */, &on, socklen_t(MemoryLayout<Int32>.size)) == 0)
        let payload = [UInt8](repeating: 0xAB, count: 3 * 1000)
        let outcomes = try payload.withUnsafeBytes { bytes throws(RTPError) -> [UDPSocket.SendOutcome] in
            let batch = (0 ..< 3).map { cudp_datagram(base: bytes.baseAddress! + $0 * 1000, length: 1000) }
            return try batch.withUnsafeBufferPointer { datagrams throws(RTPError) in
                [try socket.sendBatch(datagrams, segmented: true), try socket.sendBatch(datagrams, segmented: false)]
            }
        }
        #expect(outcomes == [.segmentationUnsupported, .sent(3)])
        #expect(collect(sink, for: 1) { $0.count == 3 }.count == 3)
    }
}
