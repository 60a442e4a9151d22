import MediaCore
import Testing
@testable import RTP
@testable import RTPOut

/// The send queue and the history share their slots (`PacketSlots`): a packet is written once, into its queue slot,
/// and moves into the history with that slot when sent — no copy — while the history's old slot goes back to the
/// queue.
struct PacketSlotsTests {
    static func write(_ queue: PacketQueue, _ bytes: [UInt8], sequenceNumber: UInt16) throws {
        let slot = try #require(queue.reserveBack())
        UnsafeMutableRawBufferPointer(rebasing: slot[0 ..< bytes.count]).copyBytes(from: bytes)
        queue.commitBack(length: bytes.count, info: .init(sequenceNumber: sequenceNumber))
    }

    @Test func aSentPacketMovesIntoTheHistoryWithItsSlot() throws {
        let pool = PacketSlots(slotSize: 16)
        let queue = PacketQueue(capacity: 2, pool: pool)
        let history = PacketHistory(capacity: 3, pool: pool)
        var written: [UInt16: UnsafeRawPointer] = [:]
        for sequenceNumber: UInt16 in 0 ..< 7 {
            try Self.write(queue, [UInt8(sequenceNumber), 0xAB, 0xCD], sequenceNumber: sequenceNumber)
            let (bytes, info) = queue.peek(0)
            written[sequenceNumber] = bytes.baseAddress
            queue.handOver(0) { slot, length in
                #expect(length == 3)
                return history.adopt(slot, length: length, sequenceNumber: info.sequenceNumber, sentAt: t0)
            }
            queue.popFront(1)
        }
        for sequenceNumber: UInt16 in 4 ..< 7 {
            // The very bytes the queue's slot held, at the very address: adopted, not copied.
            #expect(history.withPacket(sequenceNumber) { bytes, _ in Array(bytes) } == [UInt8(sequenceNumber), 0xAB, 0xCD])
            #expect(history.withPacket(sequenceNumber) { bytes, _ in bytes.baseAddress } == written[sequenceNumber])
        }
        #expect(history.withPacket(3) { _, _ in true } == nil)  // its slot went back to the queue
        // Slots circulate: the packets were written into four slots — the queue's first (an emptied queue starts
        // there again) and the history's three, each back in the queue once its packet was forgotten.
        #expect(Set(written.values).count == 4)
    }

    /// `grow` moves no packet: views of queued packets stay valid and in order, and new slots join behind them.
    @Test func growKeepsQueuedPacketsWhereTheyAre() throws {
        let queue = PacketQueue(capacity: 3, slotSize: 8)
        try Self.write(queue, [1], sequenceNumber: 1)
        queue.popFront(1)  // empty: the ring restarts at its first slot
        for n: UInt8 in 2 ... 4 { try Self.write(queue, [n], sequenceNumber: UInt16(n)) }
        queue.popFront(1)
        try Self.write(queue, [5], sequenceNumber: 5)  // wraps around
        let before = (0 ..< queue.count).map { queue.peek($0).bytes.baseAddress }
        #expect(queue.isFull)
        queue.grow()
        #expect(queue.capacity == 6 && queue.count == 3)
        #expect((0 ..< queue.count).map { queue.peek($0).bytes.baseAddress } == before)
        #expect((0 ..< queue.count).map { Array(queue.peek($0).bytes) } == [[3], [4], [5]])
        for n: UInt8 in 6 ... 8 { try Self.write(queue, [n], sequenceNumber: UInt16(n)) }
        #expect(queue.isFull && queue.reserveBack() == nil)
        #expect((0 ..< queue.count).map { queue.peek($0).info.sequenceNumber } == [3, 4, 5, 6, 7, 8])
    }

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
