import Bitstream
import Foundation
import Testing
@testable import RTP
@testable import RTPOut

@Suite(.serialized)
struct ReceiverTests {
    @Test func ipv6SenderToReceiver() throws {
        let received = Collector<ReceivedAccessUnit>()
        let receiver = try RTPReceiver(configuration: .init(localAddress: SocketAddress(host: "::1", port: 0))) { received.append($0) }
        let sender = try RTPSender(configuration: .init(destination: receiver.localRTPAddress, pacing: .unpaced))
        let units: [[ArraySlice<UInt8>]] = [[nal(0x67, size: 10), nal(0x68, size: 4), nal(0x65, size: 4000)], [nal(0x41, size: 900)]]
        for (i, au) in units.enumerated() { try sender.send(accessUnit: au, rtpTimestamp: UInt32(i * 3000)) }
        #expect(eventually { received.all.count == 2 })
        sender.close()
        receiver.close()
        #expect(received.all.map(\.nalUnits) == units.map { $0.map { Array($0) } })
        #expect(receiver.localRTPAddress.family == .ipv6)
    }

    /// rtcp-mux on both ends: our receiver's PLI reaches our sender's keyframe callback over the RTP port.
    @Test func rtcpMuxPictureLossEndToEnd() throws {
        let requests = Counter()
        let received = Collector<ReceivedAccessUnit>()
        let receiver = try RTPReceiver(configuration: .init(localAddress: SocketAddress(host: "127.0.0.1", port: 0), rtcpMux: true)) {
            received.append($0)
        }
        let sender = try RTPSender(configuration: .init(destination: receiver.localRTPAddress, rtcpMux: true, pacing: .unpaced),
                                   onKeyframeRequest: { requests.increment() })
        #expect(sender.localRTCPAddress == sender.localRTPAddress)
        try sender.send(accessUnit: [nal(0x65, size: 3000)], rtpTimestamp: 0)
        #expect(eventually { received.all.count == 1 })
        receiver.requestKeyframe()
        #expect(eventually { requests.count == 1 })
        #expect(receiver.statistics.pictureLossIndicationsSent == 1)
        sender.close()
        #expect(eventually { receiver.statistics.goodbyeReceived })
        receiver.close()
    }

    /// A hole in the sequence numbers makes the receiver NACK exactly the missing packets and ask for a picture.
    @Test func lossMakesTheReceiverSendNACKAndPLI() throws {
        let receiver = try RTPReceiver(configuration: .init(localAddress: SocketAddress(host: "127.0.0.1", port: 0), reorderWindow: 4)) { _ in }
        defer { receiver.close() }
        let source = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let sourceRTCP = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: source.localAddress.port &+ 1))
        let target = try SocketAddress(host: "127.0.0.1", port: receiver.localRTPAddress.port)
        for seq: UInt16 in [10, 11, 14, 15, 16, 17, 18, 19] {  // 12 and 13 lost; all one access unit until 19
            let packet = try RTPPacket(header: RTPHeader(marker: seq == 19, payloadType: 96, sequenceNumber: seq, timestamp: 3000, ssrc: 0x5555),
                                       payload: [0x41, UInt8(seq)]).marshal()
            _ = try packet.withUnsafeBytes { try source.send($0, to: target) }
        }
        let rtcp = collect(sourceRTCP, for: 3) { datagrams in
            let packets = datagrams.compactMap { try? RTCPCompound.parse($0) }.flatMap { $0 }
            return packets.contains { if case .genericNACK = $0 { true } else { false } }
                && packets.contains { if case .pictureLossIndication = $0 { true } else { false } }
        }
        let packets = rtcp.compactMap { try? RTCPCompound.parse($0) }.flatMap { $0 }
        let nacked = packets.compactMap { if case .genericNACK(let n) = $0 { n.lostSequenceNumbers } else { nil } }.flatMap { $0 }
        #expect(nacked == [12, 13])
        #expect(packets.contains(.pictureLossIndication(.init(senderSSRC: receiver.configuration.ssrc, mediaSSRC: 0x5555))))
        #expect(receiver.statistics.packetsLost == 2)
        #expect(receiver.statistics.accessUnitsDropped == 1)
    }

    /// The first packet (the STAP-A with SPS/PPS) was lost: the receiver sees the IDR's fragments first, NACKs the
    /// four numbers before them at once and holds the IDR; `answer` sends the STAP-A back (as the sender's history
    /// would), else nothing comes and a PLI (no_parameter_sets) follows after one NACK retry interval.
    func firstPacketLost(answer: Bool) throws -> (receiver: RTPReceiver, nacked: [UInt16], rtcp: [RTCPPacket], units: [ReceivedAccessUnit]) {
        let received = Collector<ReceivedAccessUnit>()
        let receiver = try RTPReceiver(configuration: .init(localAddress: SocketAddress(host: "127.0.0.1", port: 0))) { received.append($0) }
        let source = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let sourceRTCP = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: source.localAddress.port &+ 1))
        let target = try SocketAddress(host: "127.0.0.1", port: receiver.localRTPAddress.port)
        func send(_ seq: UInt16, _ payload: [UInt8], marker: Bool = false) throws {
            let packet = try RTPPacket(header: RTPHeader(marker: marker, payloadType: 96, sequenceNumber: seq, timestamp: 9000, ssrc: 0x6666),
                                       payload: payload[...]).marshal()
            _ = try packet.withUnsafeBytes { try source.send($0, to: target) }
        }
        try send(1, StartOfStreamNACKTests.idrStart)  // 0, the STAP-A, lost
        try send(2, StartOfStreamNACKTests.idrEnd, marker: true)
        var rtcp = collect(sourceRTCP, for: 3) { datagrams in
            datagrams.compactMap { try? RTCPCompound.parse($0) }.flatMap { $0 }.contains { if case .genericNACK = $0 { true } else { false } }
        }
        if answer {
            #expect(received.all.isEmpty, "the first IDR is held until its parameter sets come back")
            try send(0, StartOfStreamNACKTests.stapA)
        }
        #expect(eventually { received.all.count == 1 })
        rtcp += collect(sourceRTCP, for: 0.3)
        let packets = rtcp.compactMap { try? RTCPCompound.parse($0) }.flatMap { $0 }
        let nacked = packets.compactMap { if case .genericNACK(let n) = $0 { n.lostSequenceNumbers } else { nil } }.flatMap { $0 }
        return (receiver, nacked, packets, received.all)
    }

    @Test func firstPacketLostIsRecoveredWithOneNACK() throws {
        let (receiver, nacked, rtcp, units) = try firstPacketLost(answer: true)
        defer { receiver.close() }
        #expect(nacked == [65533, 65534, 65535, 0])
        #expect(units.map(\.nalUnits) == [[StartOfStreamNACKTests.sps, StartOfStreamNACKTests.pps, [0x65, 0x88, 0x84, 0x43]]])
        #expect(!rtcp.contains { if case .pictureLossIndication = $0 { true } else { false } }, "\(rtcp)")
        let statistics = receiver.statistics
        #expect(statistics.pictureLossIndicationsSent == 0 && statistics.nacksSent == 1)
        #expect(statistics.startPacketsRequested == 4 && statistics.startPacketsRecovered == 1)
        #expect(statistics.packetsLost == 0 && statistics.accessUnitsDropped == 0)
    }

    @Test func firstPacketLostAndNotResentFallsBackToPLI() throws {
        let (receiver, nacked, rtcp, units) = try firstPacketLost(answer: false)
        defer { receiver.close() }
        #expect(nacked == [65533, 65534, 65535, 0], "asked once: the wait ends when a retry would be due")
        #expect(units.map(\.nalUnits) == [[[0x65, 0x88, 0x84, 0x43]]])
        #expect(rtcp.contains(.pictureLossIndication(.init(senderSSRC: receiver.configuration.ssrc, mediaSSRC: 0x6666))))
        let statistics = receiver.statistics
        #expect(statistics.pictureLossReasons == [.noParameterSets: 1], "\(statistics.pictureLossReasons)")
        #expect(statistics.startPacketsRequested == 4 && statistics.startPacketsRecovered == 0)
        #expect(statistics.packetsLost == 0 && statistics.accessUnitsDropped == 0)
    }

    @Test func annexBAndMediaTimeConveniences() throws {
        #expect(RTPClock.timestamp(MediaTime(value: 1001, timescale: 30000), offset: 5) == 3003 + 5)
        let received = Collector<ReceivedAccessUnit>()
        let receiver = try RTPReceiver(configuration: .init(localAddress: SocketAddress(host: "127.0.0.1", port: 0))) { received.append($0) }
        let sender = try RTPSender(configuration: .init(destination: receiver.localRTPAddress, pacing: .unpaced, timestampOffset: 100))
        let annexB: [UInt8] = [0, 0, 0, 1] + Array(nal(0x67, size: 8)) + [0, 0, 1] + Array(nal(0x68, size: 4)) + [0, 0, 0, 1] + Array(nal(0x65, size: 50))
        try sender.send(annexB: annexB[...], presentationTime: MediaTime(value: 1, timescale: 30))
        #expect(eventually { received.all.count == 1 })
        #expect(received.all.first?.timestamp == 3100)
        #expect(received.all.first?.annexB == AnnexB.join([nal(0x67, size: 8), nal(0x68, size: 4), nal(0x65, size: 50)]))
        let error = #expect(throws: RTPError.self) { try sender.send(annexB: [1, 2, 3], presentationTime: .zero) }
        #expect(error?.code == .invalidValue)
        sender.close()
        receiver.close()
    }

    @Test func sendAfterCloseIsAnError() throws {
        let sink = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let sender = try RTPSender(configuration: .init(destination: sink.localAddress))
        sender.close()
        let error = #expect(throws: RTPError.self) { try sender.send(accessUnit: [nal(0x41, size: 10)], rtpTimestamp: 0) }
        #expect(error?.code == .closed)
    }
}
