import MediaCore
import Testing
@testable import RTP
@testable import RTPOut

/// The send queue and the history over many times their size in packets: a packet is written once, into its queue
/// slot (`payload(_:into:)`), and its bytes are what a NACK gets back long after the slots were reused.
struct QueueAndHistoryTests {
    /// Through the session: many times the queue's and the history's size in packets; a NACK then gets the last
    /// `historySize` packets back byte for byte (they are in the slots the queue wrote) and misses the older ones.
    @Test(arguments: [false, true])
    func nackAfterTheSlotsCirculated(rtx: Bool) throws {
        let ssrc = RTPSendSessionTests.ssrc
        var session = try RTPSendSession(
            configuration: .init(payloadType: 96, ssrc: ssrc, cname: "slots@test", pacing: .unpaced, historySize: 8,
                                 rtx: rtx ? (97, 0xBBBB) : nil, queueCapacity: 4, initialSequenceNumber: 100),
            random: SeededGenerator(state: 7))
        var sent: [UInt16: [UInt8]] = [:]
        for frame in 0 ..< 12 {  // 12 × 2 packets (size 1000: one packet each)
            try session.enqueue(RTPSendSessionTests.accessUnit(2, seconds: Int64(frame)), captureTime: t0, at: t0)
            for transmit in RTPSendSessionTests.drain(&session, at: t0) where transmit.kind == .rtp {
                for packet in transmit.datagrams { sent[RTPSendSessionTests.sequenceNumber(packet)] = packet }
            }
        }
        #expect(sent.count == 24)
        let lost: [UInt16] = [115, 116, 120, 123]  // 115 is 9 packets old: out of the 8-packet history
        let nack = GenericNACK(senderSSRC: RTPSendSessionTests.peerSSRC, mediaSSRC: ssrc, lost: lost)
        session.handle(rtcp: try RTPSendSessionTests.rtcp([.genericNACK(nack)]), at: t0)
        let resent = RTPSendSessionTests.drain(&session, at: t0).filter { $0.kind == .rtp }.flatMap(\.datagrams)
        #expect(resent.count == 3)
        for (packet, original) in zip(resent, [116, 120, 123] as [UInt16]) {
            if rtx {
                #expect(RTPSendSessionTests.ssrc(packet) == 0xBBBB)
                #expect(Array(packet[12 ..< 14]) == [UInt8(original >> 8), UInt8(original & 0xFF)])  // OSN
                #expect(Array(packet[14...]) == Array(sent[original]![12...]))
            } else {
                #expect(packet == sent[original])
            }
        }
        #expect(session.statistics(at: t0).retransmissionsMissed == 1)
    }
}
