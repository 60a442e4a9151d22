import MediaCore
import Testing
@testable import RTP
@testable import RTPOut

/// `RTPSendSession.expectedQueueTime`: the bytes waiting for the pacer over its rate (what the last queued packet
/// waits), which the WebRTC encoder loop pushes back on.
struct QueueTimeTests {
    /// 10 packets of 1000 payload bytes + 12 header bytes, paced at 2.5 × 320 kb/s = 100 000 B/s: 10 120 B queued is
    /// 101.2 ms; after one batch the queue is shorter and the time with it; a new rate rescales it.
    @Test func queuedBytesOverThePacingRate() throws {
        var session = try RTPSendSessionTests.session(pacing: .paced(targetBitrate: 320_000), batchSize: 4)
        #expect(session.expectedQueueTime == .zero)
        try session.enqueue(RTPSendSessionTests.accessUnit(10), captureTime: t0, at: t0)
        #expect(session.queuedBytes == 10 * 1012)
        #expect(session.expectedQueueTime == .microseconds(101_200))
        let transmit = session.pollTransmit(at: t0)
        #expect(transmit?.kind == .rtp)
        let sent = transmit?.count ?? 0
        #expect(sent > 0 && sent < 10, "one pacing burst, not the whole queue")
        session.didTransmit(sent, at: t0)
        #expect(session.queuedBytes == (10 - sent) * 1012)
        session.setTargetBitrate(640_000)
        #expect(session.expectedQueueTime == .nanoseconds(Int64((10 - sent) * 1012) * 1_000_000_000 / 200_000))
    }

    @Test func unpacedHasNoQueueTime() throws {
        var session = try RTPSendSessionTests.session(pacing: .unpaced)
        try session.enqueue(RTPSendSessionTests.accessUnit(3), captureTime: t0, at: t0)
        #expect(session.queuedBytes == 3 * 1012)
        #expect(session.expectedQueueTime == nil)
    }
}

/// `flushQueue`: a live sender gives up a backlog — what is queued is dropped and counted, and NACKs for packets
/// sent before the flush are answered as missed instead of filling the queue again.
struct QueueFlushTests {
    @Test func dropsTheQueueAndRetransmitsNothingOlder() throws {
        var session = try RTPSendSessionTests.session(pacing: .paced(targetBitrate: 320_000), batchSize: 2)
        try session.enqueue(RTPSendSessionTests.accessUnit(6), captureTime: t0, at: t0)
        let transmit = session.pollTransmit(at: t0)
        let sent = transmit?.count ?? 0
        #expect(sent > 0)
        session.didTransmit(sent, at: t0)
        let later = t0 + .milliseconds(10)
        #expect(session.flushQueue(at: later) == 6 - sent)
        #expect(session.queuedBytes == 0 && session.expectedQueueTime == .zero)
        #expect(session.statistics(at: later).packetsDropped == 6 - sent)
        // The first packet went out before the flush: a NACK for it is a miss, not a retransmission.
        let nack = GenericNACK(senderSSRC: RTPSendSessionTests.peerSSRC, mediaSSRC: RTPSendSessionTests.ssrc,
                               lost: [RTPSendSessionTests.firstSequenceNumber])
        session.handle(rtcp: try RTPSendSessionTests.rtcp([.genericNACK(nack)]), at: later)
        #expect(session.queuedPackets == 0)
        #expect(session.statistics(at: later).retransmissionsMissed == 1)
        // New media after the flush is sent as usual.
        try session.enqueue(RTPSendSessionTests.accessUnit(1, seconds: 1), captureTime: later, at: later)
        #expect(session.queuedPackets == 1)
    }
}
