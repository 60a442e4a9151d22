import Foundation
import TestSupport
import Testing
@testable import RTP
@testable import RTPOut

/// RTPSender and RTPReceiver with SRTP on loopback: what goes on the wire is SRTP, what arrives decrypted is what was
/// sent, and nothing unauthenticated gets through — neither media at the receiver nor feedback at the sender.
@Suite(.serialized)
struct SRTPLoopbackTests {
    static let loopback = try! SocketAddress(host: "127.0.0.1", port: 0)
    static let keys = try! SRTPConfiguration(masterKeyAndSalt: SRTPTests.knownKey)

    /// Small single-packet access units: one datagram each, easy to tamper with one by one.
    static let accessUnits: [[ArraySlice<UInt8>]] = (0 ..< 6).map { i in [nal(i == 0 ? 0x65 : 0x41, size: 300 + i)] }

    @Test(arguments: SRTPConfiguration.Suite.allCases)
    func senderToReceiverDecrypts(suite: SRTPConfiguration.Suite) throws {
        let keys = try SRTPConfiguration(suite: suite, masterKeyAndSalt: SRTPTests.knownKey)
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeUnlessKept(directory) }
        let accessUnits = try TestAnnexB.accessUnits(try Fixtures.x264(frames: 30, in: directory))
        let received = Collector<ReceivedAccessUnit>()
        let receiver = try RTPReceiver(configuration: .init(localAddress: Self.loopback, srtp: keys)) { received.append($0) }
        let sender = try RTPSender(configuration: .init(destination: receiver.localRTPAddress, pacing: .paced(targetBitrate: 5_000_000),
                                                        reportInterval: .milliseconds(200), srtp: keys))
        for (i, au) in accessUnits.enumerated() { try sender.send(accessUnit: au, pts: Int64(i), timeBase: (1, 30)) }
        #expect(eventually { received.all.count == accessUnits.count })
        // Our receiver report goes out 1 s after the first packet, as SRTCP; the sender must authenticate it.
        #expect(eventually(timeout: 3) { sender.statistics.rtcpPacketsReceived >= 1 }, "our SRTCP receiver report did not reach the sender")
        sender.close()
        receiver.close()
        #expect(received.all.map(\.nalUnits) == accessUnits.map { $0.map { Array($0) } })
        let stats = receiver.statistics
        #expect(stats.packetsReceived == sender.statistics.packetsSent)
        #expect(stats.authenticationFailures == 0 && stats.replayedPackets == 0 && stats.malformedPackets == 0)
        #expect(stats.senderReports >= 1)  // SRTCP decrypted and parsed
        #expect(stats.goodbyeReceived)
        let sent = sender.statistics
        #expect(sent.rtcpPacketsUnauthenticated == 0 && sent.rtcpPacketsMalformed == 0)
    }

    /// On the wire: header in the clear, payload not, and the tag's bytes on top; the pacer and the byte count see them.
    @Test func wireCarriesSRTP() throws {
        let sink = try UDPSocket(bindTo: Self.loopback)
        let sender = try RTPSender(configuration: .init(destination: sink.localAddress, ssrc: 0xCAFE, pacing: .unpaced,
                                                        initialSequenceNumber: 7, srtp: Self.keys))
        defer { sender.close(drainTimeout: .zero) }
        let unit = Self.accessUnits[0]
        try sender.send(accessUnit: unit, rtpTimestamp: 0)
        let datagrams = collect(sink, for: 2) { $0.count == 1 }
        let datagram = try #require(datagrams.first)
        #expect(datagram.count == RTPHeader.fixedSize + unit[0].count + 10)
        let header = try RTPPacket(parsing: datagram[...]).header  // the header parses: it is not encrypted
        #expect(header.ssrc == 0xCAFE && header.sequenceNumber == 7)
        #expect(!datagram[RTPHeader.fixedSize ..< RTPHeader.fixedSize + unit[0].count].elementsEqual(unit[0]))
        #expect(eventually { sender.statistics.bytesSent == datagram.count })
        let plain = try SRTPTests.unprotect(datagram, try SRTPTests.session())
        #expect(plain[RTPHeader.fixedSize...].elementsEqual(unit[0]))
    }

    /// One bit flipped in one packet on its way: the receiver counts an authentication failure and drops the packet
    /// before parsing it. The access units it delivers are unchanged originals — not the tampered one, and not
    /// necessarily the one after it either (the depacketizer cannot tell which access unit a lost packet began).
    @Test func flippedBitIsCountedAndNeverDelivered() throws {
        let relay = try UDPSocket(bindTo: Self.loopback)
        let received = Collector<ReceivedAccessUnit>()
        let receiver = try RTPReceiver(configuration: .init(localAddress: Self.loopback, sendNACK: false, sendPictureLossOnDrop: false,
                                                            srtp: Self.keys)) { received.append($0) }
        defer { receiver.close() }
        let sender = try RTPSender(configuration: .init(destination: relay.localAddress, pacing: .unpaced, srtp: Self.keys))
        defer { sender.close(drainTimeout: .zero) }
        for (i, au) in Self.accessUnits.enumerated() { try sender.send(accessUnit: au, rtpTimestamp: UInt32(i * 3000)) }
        var datagrams = collect(relay, for: 2) { $0.count == Self.accessUnits.count }
        try #require(datagrams.count == Self.accessUnits.count)
        datagrams[2][RTPHeader.fixedSize + 40] ^= 0x10
        for datagram in datagrams {
            _ = try datagram.withUnsafeBytes { try relay.send($0, to: receiver.localRTPAddress) }
        }
        #expect(eventually { receiver.statistics.authenticationFailures == 1 })
        #expect(eventually { receiver.statistics.packetsReceived == Self.accessUnits.count - 1 })
        #expect(eventually { received.all.count >= Self.accessUnits.count - 2 })
        Thread.sleep(forTimeInterval: 0.3)  // past the reorder delay: nothing more may arrive
        let originals = Self.accessUnits.map { $0.map { Array($0) } }
        let delivered = received.all.map(\.nalUnits)
        #expect(delivered.allSatisfy { originals.contains($0) } && !delivered.contains(originals[2]))
        #expect(Array(delivered.prefix(2)) == Array(originals.prefix(2)) && Array(delivered.suffix(2)) == Array(originals.suffix(2)))
        #expect(receiver.statistics.malformedPackets == 0)
        let deliveredCount = delivered.count
        // The same datagram again (a replay) is dropped too.
        _ = try datagrams[0].withUnsafeBytes { try relay.send($0, to: receiver.localRTPAddress) }
        #expect(eventually { receiver.statistics.replayedPackets == 1 })
        #expect(received.all.count == deliveredCount)
    }

    @Test func receiverWithAnotherKeyDeliversNothing() throws {
        var otherKey = SRTPTests.knownKey
        otherKey[29] ^= 1  // the salt's last byte
        let received = Collector<ReceivedAccessUnit>()
        let receiver = try RTPReceiver(configuration: .init(localAddress: Self.loopback, sendPictureLossOnDrop: false,
                                                            srtp: try SRTPConfiguration(masterKeyAndSalt: otherKey))) { received.append($0) }
        let sender = try RTPSender(configuration: .init(destination: receiver.localRTPAddress, pacing: .unpaced, srtp: Self.keys))
        for (i, au) in Self.accessUnits.enumerated() { try sender.send(accessUnit: au, rtpTimestamp: UInt32(i * 3000)) }
        sender.close()  // SR + BYE, as SRTCP the receiver cannot authenticate either
        #expect(eventually { receiver.statistics.authenticationFailures >= Self.accessUnits.count + 1 })
        receiver.close()
        #expect(received.all.isEmpty)
        #expect(receiver.statistics.packetsReceived == 0 && !receiver.statistics.goodbyeReceived)
    }

    /// Feedback under SRTCP: a protected PLI from the peer's host is obeyed; the same PLI in the clear (or forged) is
    /// counted and ignored; a protected one from another host is ignored before any crypto, as without SRTP.
    @Test func rtcpMustAuthenticateAndComeFromThePeerHost() throws {
        let sink = try UDPSocket(bindTo: Self.loopback)
        let requests = Counter()
        let sender = try RTPSender(configuration: .init(destination: sink.localAddress, ssrc: 0xABCD, srtp: Self.keys),
                                   onKeyframeRequest: { requests.increment() })
        defer { sender.close(drainTimeout: .zero) }
        let pli = try RTCPPacket.pictureLossIndication(.init(senderSSRC: 0x5151, mediaSSRC: 0xABCD)).marshal()
        let peer = try UDPSocket(bindTo: Self.loopback)
        let target = try SocketAddress(host: "127.0.0.1", port: sender.localRTCPAddress.port)

        _ = try pli.withUnsafeBytes { try peer.send($0, to: target) }  // plain RTCP
        #expect(eventually(timeout: 1) { sender.statistics.rtcpPacketsUnauthenticated == 1 })
        #expect(requests.count == 0)

        let peerSession = try SRTPTests.session()
        let protected = try SRTPTests.protect(pli, peerSession, rtcp: true)
        let stranger = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.2", port: 0))
        _ = try protected.withUnsafeBytes { try stranger.send($0, to: target) }
        #expect(eventually(timeout: 1) { sender.statistics.rtcpPacketsIgnored == 1 })
        #expect(requests.count == 0)

        var forged = protected
        forged[9] ^= 0x01
        _ = try forged.withUnsafeBytes { try peer.send($0, to: target) }
        #expect(eventually(timeout: 1) { sender.statistics.rtcpPacketsUnauthenticated == 2 })
        #expect(requests.count == 0)

        _ = try protected.withUnsafeBytes { try peer.send($0, to: target) }
        #expect(eventually { requests.count == 1 })
        #expect(sender.statistics.rtcpPacketsReceived == 1)
        _ = try protected.withUnsafeBytes { try peer.send($0, to: target) }  // replayed
        #expect(eventually(timeout: 1) { sender.statistics.rtcpPacketsUnauthenticated == 3 })
    }

    /// NACK under SRTP: a plain retransmission is the very same SRTP datagram (same index, key and plaintext); an RTX
    /// one is a new packet on the RTX SSRC that authenticates and carries the original payload.
    @Test(arguments: [false, true])
    func nackRetransmissionUnderSRTP(rtx: Bool) throws {
        let sink = try UDPSocket(bindTo: Self.loopback)
        let sender = try RTPSender(configuration: .init(
            destination: sink.localAddress, ssrc: 0xABCD, pacing: .unpaced, rtx: rtx ? (97, 0xBEEF) : nil, initialSequenceNumber: 100,
            srtp: Self.keys))
        defer { sender.close(drainTimeout: .zero) }
        try sender.send(accessUnit: [nal(0x65, size: 5000)], rtpTimestamp: 0)  // 5 packets: 100…104
        let first = collect(sink, for: 2) { $0.count == 5 }
        try #require(first.count == 5)
        let nack = try RTCPPacket.genericNACK(GenericNACK(senderSSRC: 1, mediaSSRC: 0xABCD, lost: [101, 103])).marshal()
        let peer = try UDPSocket(bindTo: Self.loopback)
        let protectedNACK = try SRTPTests.protect(nack, try SRTPTests.session(), rtcp: true)
        _ = try protectedNACK.withUnsafeBytes { try peer.send($0, to: SocketAddress(host: "127.0.0.1", port: sender.localRTCPAddress.port)) }
        let again = collect(sink, for: 2) { $0.count == 2 }
        try #require(again.count == 2)
        let originals = try { () throws -> [[UInt8]] in
            let everything = try SRTPTests.session()
            return try first.map { try SRTPTests.unprotect($0, everything) }
        }()
        // A receiver that got 100, 102 and 104 but lost 101 and 103 accepts the retransmissions.
        let fresh = try SRTPTests.session()
        for i in [0, 2, 4] { _ = try SRTPTests.unprotect(first[i], fresh) }
        if rtx {
            let plain = try again.map { try RTPPacket(parsing: try SRTPTests.unprotect($0, fresh)[...]) }
            #expect(plain.allSatisfy { $0.header.payloadType == 97 && $0.header.ssrc == 0xBEEF })
            #expect(Array(plain[0].payload.dropFirst(2)) == Array(try RTPPacket(parsing: originals[1][...]).payload))
        } else {
            #expect(again == [first[1], first[3]])
            #expect(try again.map { try SRTPTests.unprotect($0, fresh) } == [originals[1], originals[3]])
        }
        #expect(eventually { sender.statistics.packetsRetransmitted == 2 })
    }
}
