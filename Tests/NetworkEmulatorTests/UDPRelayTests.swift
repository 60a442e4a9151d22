import Foundation
import Glibc
import RTPOut
import Synchronization
import Testing
@testable import NetworkEmulator

/// The UDP edge on loopback: RTP and the sender's RTCP reach the receiver from a port pair, and the receiver's
/// RTCP sent to that pair's second port comes back to the sender's RTCP port.
@Suite(.serialized) struct UDPRelayTests {
    /// The relay on a thread of its own. `@unchecked Sendable`: the relay is used by that thread only until
    /// `finish()` has seen it end; the stop flag is atomic.
    final class Running: @unchecked Sendable {
        let relay: UDPRelay
        let stop = Atomic<Bool>(false)
        let done = Atomic<Bool>(false)

        init(_ relay: UDPRelay) {
            self.relay = relay
            Thread { [self] in
                self.relay.run { self.stop.load(ordering: .relaxed) }
                self.done.store(true, ordering: .releasing)
            }.start()
        }

        func finish() -> UDPRelay.Statistics {
            stop.store(true, ordering: .relaxed)
            while !done.load(ordering: .acquiring) { usleep(5000) }
            return relay.statistics
        }
    }

    static func receive(_ socket: UDPSocket, timeout: Duration = .seconds(2)) throws -> ([UInt8], SocketAddress)? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let got = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0) }
            if let (count, from) = got { return (Array(buffer[0 ..< count]), from) }
            usleep(2000)
        }
        return nil
    }

    @Test func forwardsMediaAndCarriesFeedbackBack() throws {
        let loopback = try SocketAddress(host: "127.0.0.1", port: 0)
        let receiverRTP = try UDPSocket(bindTo: loopback)
        let receiverRTCP = try UDPSocket(bindTo: loopback.withPort(receiverRTP.localAddress.port + 1))
        let senderRTP = try UDPSocket(bindTo: loopback)
        let senderRTCP = try UDPSocket(bindTo: loopback.withPort(senderRTP.localAddress.port + 1))
        let relay = try UDPRelay(configuration: .init(
            listen: loopback, destination: receiverRTP.localAddress,
            profile: ImpairmentProfile(delay: .milliseconds(20), dropFrames: [1]), seed: 9))
        let running = Running(relay)
        let listen = relay.listenAddress

        // RTP: V=2, PT 96, seq n, timestamp 3000·n; frame 1 is dropped by the filter.
        func rtp(_ n: UInt8) -> [UInt8] { [0x80, 0x60, 0, n, 0, 0, 0x0B, 0xB8 &* n, 0, 0, 0, 1, 0x41, n] }
        for n: UInt8 in [0, 1, 2] {
            _ = try rtp(n).withUnsafeBytes { try senderRTP.send($0, to: listen) }
        }
        let sentAt = ContinuousClock.now
        let first = try #require(try Self.receive(receiverRTP))
        #expect(ContinuousClock.now - sentAt >= .milliseconds(15), "no delay")
        #expect(first.0 == rtp(0))
        #expect(first.1.port == relay.forwardingAddress.port)
        #expect(try Self.receive(receiverRTP)?.0 == rtp(2))

        // The sender's RTCP (an SR header: PT 200) goes to the receiver's RTCP port from the relay's port + 1.
        let senderReport: [UInt8] = [0x80, 200, 0, 6] + [UInt8](repeating: 7, count: 24)
        _ = try senderReport.withUnsafeBytes { try senderRTCP.send($0, to: listen.withPort(listen.port + 1)) }
        let report = try #require(try Self.receive(receiverRTCP))
        #expect(report.0 == senderReport)
        #expect(report.1.port == relay.forwardingAddress.port + 1)

        // The receiver's RTCP (an RR: PT 201) sent where RFC 3550 says — RTP source port + 1 — reaches the sender.
        let receiverReport: [UInt8] = [0x80, 201, 0, 1, 0, 0, 0, 2]
        _ = try receiverReport.withUnsafeBytes { try receiverRTCP.send($0, to: first.1.withPort(first.1.port + 1)) }
        let feedback = try #require(try Self.receive(senderRTCP))
        #expect(feedback.0 == receiverReport)
        #expect(feedback.1.port == listen.port + 1)

        let statistics = running.finish()
        #expect(statistics.forward.packetsIn == 4 && statistics.forward.packetsOut == 3)
        #expect(statistics.forward.droppedFrames == 1)
        #expect(statistics.back.packetsOut == 1)
        #expect(statistics.sendFailures == 0)
    }

    /// With rtcp-mux both sides use one port: RTCP is told from RTP by its packet type, both ways.
    @Test func rtcpMuxUsesOnePortEachSide() throws {
        let loopback = try SocketAddress(host: "127.0.0.1", port: 0)
        let receiver = try UDPSocket(bindTo: loopback)
        let sender = try UDPSocket(bindTo: loopback)
        let relay = try UDPRelay(configuration: .init(listen: loopback, destination: receiver.localAddress, rtcpMux: true))
        let running = Running(relay)
        let media: [UInt8] = [0x80, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x41]
        let senderReport: [UInt8] = [0x80, 200, 0, 6] + [UInt8](repeating: 7, count: 24)
        for datagram in [media, senderReport] {
            _ = try datagram.withUnsafeBytes { try sender.send($0, to: relay.listenAddress) }
        }
        let first = try #require(try Self.receive(receiver))
        let second = try #require(try Self.receive(receiver))
        #expect([first.0, second.0] == [media, senderReport])
        #expect(first.1 == second.1 && first.1.port == relay.forwardingAddress.port)
        let pictureLoss: [UInt8] = [0x81, 206, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1]  // PLI (PSFB FMT 1)
        _ = try pictureLoss.withUnsafeBytes { try receiver.send($0, to: first.1) }
        let back = try #require(try Self.receive(sender))
        #expect(back.0 == pictureLoss && back.1 == relay.listenAddress)
        let statistics = running.finish()
        #expect(statistics.forward.packetsOut == 2 && statistics.back.packetsOut == 1)
    }

    /// `returnLoss` drops the receiver's RTCP on its way back, independently per packet and fixed by the seed; the
    /// forward path is untouched by it.
    @Test(arguments: [(0.0, 200...200), (0.5, 70...130), (1.0, 0...0)])
    func returnLossDropsFeedback(rate: Double, arriving: ClosedRange<Int>) throws {
        let loopback = try SocketAddress(host: "127.0.0.1", port: 0)
        let receiverRTP = try UDPSocket(bindTo: loopback)
        let receiverRTCP = try UDPSocket(bindTo: loopback.withPort(receiverRTP.localAddress.port + 1))
        let senderRTP = try UDPSocket(bindTo: loopback)
        let senderRTCP = try UDPSocket(bindTo: loopback.withPort(senderRTP.localAddress.port + 1))
        let relay = try UDPRelay(configuration: .init(
            listen: loopback, destination: receiverRTP.localAddress, profile: ImpairmentProfile(returnLoss: rate), seed: 3))
        let running = Running(relay)
        // One media packet tells the relay where the sender is and gives the receiver the relay's address.
        let media: [UInt8] = [0x80, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x41]
        _ = try media.withUnsafeBytes { try senderRTP.send($0, to: relay.listenAddress) }
        let first = try #require(try Self.receive(receiverRTP))
        let back = first.1.withPort(first.1.port + 1)
        for n in 0 ..< 200 {
            let report: [UInt8] = [0x80, 201, 0, 1, 0, 0, 0, UInt8(n & 0xFF)]
            _ = try report.withUnsafeBytes { try receiverRTCP.send($0, to: back) }
            if n % 20 == 19 { usleep(2000) }  // keep the socket buffers from overflowing
        }
        var arrived = 0
        while try Self.receive(senderRTCP, timeout: .milliseconds(300)) != nil { arrived += 1 }
        let statistics = running.finish()
        #expect(arriving.contains(arrived), "\(arrived) of 200 came back at \(rate)")
        #expect(statistics.back.packetsIn == 200)
        #expect(statistics.back.droppedByLoss == 200 - arrived)
        #expect(statistics.forward.packetsOut == 1)
    }
}
