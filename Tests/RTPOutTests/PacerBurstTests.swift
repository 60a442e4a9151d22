import MediaCore
import Testing
@testable import RTP
@testable import RTPOut

/// The pacer's burst allowance as an option (`RTPSendSession.Configuration.pacingBurst`, libwebrtc's send burst
/// interval) and the frame send delays the session reports (`firstPacketDelay`, `lastPacketDelay`).
struct PacerBurstTests {
    /// `PacerTests`' driver: `count` packets of `size` bytes as soon as the pacer allows; the send times.
    func drive(_ pacer: inout Pacer, count: Int, size: Int, start: RTPInstant) -> [RTPInstant] {
        PacerTests().drive(&pacer, count: count, size: size, start: start)
    }

    @Test(arguments: [
        // burst (ms), packets of 1200 bytes → packets at once, last packet after (ms, ±1): the n-th leaves once the n − 1
        // before it, less the allowance, have drained
        // 2 Mb/s × 2.5 = 625 kB/s. 5 ms = 3125 B: 3 packets go at once, the 17 kB behind them at the rate.
        (5, 17, 3, (16 * 1200 - 3125) * 1000 / 625_000),
        // No burst (rtenc's controller): only the first packet goes at once, each next one when the one before has
        // drained at the rate — 1200 B / 625 kB/s = 1.92 ms apart, the 17th after 30.7 ms.
        (0, 17, 1, 16 * 1200 * 1000 / 625_000),
        (0, 2, 1, 1200 * 1000 / 625_000),
        // 40 ms = 25 kB: a 20 kB delta frame goes whole.
        (40, 17, 17, 0),
        // A 120 kB keyframe: the first 25 kB at once (21 packets, the 21st starting under the allowance), the rest paced.
        (40, 100, 21, (99 * 1200 - 25_000) * 1000 / 625_000),
    ] as [(Int64, Int, Int, Int)])
    func burstLetsWhatFitsGoAtOnce(burstMs: Int64, packets: Int, atOnce: Int, lastAfterMs: Int) {
        var pacer = Pacer(targetBitrate: 2_000_000, burst: .milliseconds(burstMs))
        let times = drive(&pacer, count: packets, size: 1200, start: t0)
        #expect(times.filter { $0 == t0 }.count == atOnce)
        let last = Double((times.last! - t0).nanoseconds) / 1e6
        #expect(abs(last - Double(lastAfterMs)) <= 1, "last packet after \(last) ms")
    }

    @Test func aLongBurstIsCappedAt63KB() {
        // 50 Mb/s × 2.5 = 15.6 MB/s: 40 ms would be 625 kB, the cap keeps it at 63 kB (52 packets, the 53rd starting under it).
        var pacer = Pacer(targetBitrate: 50_000_000, burst: .milliseconds(40))
        let times = drive(&pacer, count: 200, size: 1200, start: t0)
        #expect(times.filter { $0 == t0 }.count == 53)
    }

    @Test func idleTimeStillBanksNoMoreThanTheBurst() {
        var pacer = Pacer(targetBitrate: 2_000_000, burst: .milliseconds(40))
        _ = drive(&pacer, count: 100, size: 1200, start: t0)
        let later = t0 + .seconds(10)
        let times = drive(&pacer, count: 100, size: 1200, start: later)
        #expect(times.filter { $0 == later }.count == 21)
    }

    @Test func noBurstBanksNothingWhileIdleAndSpacesEveryPacket() {
        var pacer = Pacer(targetBitrate: 2_000_000, burst: .zero)
        _ = drive(&pacer, count: 10, size: 1200, start: t0)
        let later = t0 + .seconds(10)
        let times = drive(&pacer, count: 4, size: 1200, start: later)
        #expect(times.first == later)
        // Every gap is one packet's time at 625 kB/s (1.92 ms; 1 ns of rounding allowed).
        for (a, b) in zip(times, times.dropFirst()) {
            #expect(abs((b - a).nanoseconds - 1_920_000) <= 2, "gap \((b - a).nanoseconds) ns")
        }
    }

    /// A live driver waits in whole milliseconds (poll, epoll_wait round up) and wakes late besides. Without a burst
    /// the pacer keeps a late packet's lateness (up to one packet's time), so the rate still holds: 2.5 Mb/s × 1.25
    /// is 390.6 kB/s, a 1200-byte packet every 3.07 ms; waited as whole milliseconds (+0.2 ms of wake-up), 1000
    /// packets still take 3.07 s, not the 4.2 s one packet per 4 ms would.
    @Test(arguments: [Duration.microseconds(200), .microseconds(900), .zero])
    func noBurstHoldsItsRateWhenTheDriverWakesLate(wakeUpLatency: Duration) {
        var pacer = Pacer(targetBitrate: 2_500_000, pacingFactor: 1.25, burst: .zero)
        var now = t0
        for _ in 0..<1000 {
            let due = pacer.nextSendTime(now: now)
            if due > now {
                let wait = due - now
                let milliseconds = (wait.nanoseconds + 999_999) / 1_000_000  // the driver's poll(2) timeout
                now = now + .milliseconds(milliseconds) + wakeUpLatency
            }
            pacer.didSend(bytes: 1200, now: now)
        }
        let exact = 999.0 * 1200 / 390_625
        let took = (now - t0).seconds
        #expect(took >= exact - 0.000_001, "faster than the rate: \(took) s")
        #expect(took <= exact + 0.005, "took \(took) s for \(exact) s of pacing")
    }

    /// …while an idle gap longer than one packet's time still banks nothing: after it, packets are spaced again.
    @Test func noBurstCarriesLatenessButNotIdleTime() {
        var pacer = Pacer(targetBitrate: 2_000_000, burst: .zero)  // 625 kB/s: 1.92 ms a packet
        pacer.didSend(bytes: 1200, now: t0)
        // Late by 1 ms (under one packet's time): the next is due 1.92 ms after the first was due, i.e. 0.92 ms on.
        let late = t0 + .microseconds(2920)
        pacer.didSend(bytes: 1200, now: late)
        #expect(abs((pacer.nextSendTime(now: late) - late).nanoseconds - 920_000) <= 2)
        // Idle for 10 ms: nothing banked, the next after it waits a whole packet's time.
        let idle = late + .milliseconds(10)
        pacer.didSend(bytes: 1200, now: idle)
        #expect(abs((pacer.nextSendTime(now: idle) - idle).nanoseconds - 1_920_000) <= 2)
    }

    // MARK: The session

    static func session(burst: Duration?) throws -> RTPSendSession {
        var configuration = RTPSendSession.Configuration(ssrc: 7, pacing: .paced(targetBitrate: 2_000_000))
        if let burst { configuration.pacingBurst = burst }
        return try RTPSendSession(configuration: configuration, random: SeededGenerator(state: 1))
    }

    /// Drives the session from `start` until `packets` RTP packets went out; returns when the last one did.
    static func sendAll(_ session: inout RTPSendSession, packets: Int, from start: RTPInstant) throws -> RTPInstant {
        var now = start
        var sent = 0
        while true {
            for transmit in RTPSendSessionTests.drain(&session, at: now) where transmit.kind == .rtp { sent += transmit.datagrams.count }
            if sent >= packets { return now }
            let nextValue = session.nextTimeout()
            let next = try #require(nextValue)
            try #require(next > now, "nothing sent, yet due again at \(next)")
            now = next
        }
    }

    @Test func theDefaultBurstSpreadsADeltaFrameAndTheLibWebRTCBurstDoesNot() throws {
        // 20 packets of ~1 kB: 20 kB at 625 kB/s.
        var spread = try Self.session(burst: nil)
        try spread.enqueue(RTPSendSessionTests.accessUnit(20), captureTime: t0, at: t0)
        let spreadLast = try Self.sendAll(&spread, packets: 20, from: t0)
        #expect(spreadLast - t0 > .milliseconds(20))

        var burst = try Self.session(burst: Pacer.libWebRTCBurst)
        try burst.enqueue(RTPSendSessionTests.accessUnit(20), captureTime: t0, at: t0)
        let burstLast = try Self.sendAll(&burst, packets: 20, from: t0)
        #expect(burstLast == t0)
        let stats = burst.statistics(at: t0)
        #expect(stats.firstPacketDelay == RecentDurations.Summary(count: 1, median: .zero, p90: .zero, max: .zero))
        #expect(stats.lastPacketDelay == RecentDurations.Summary(count: 1, median: .zero, p90: .zero, max: .zero))

        let spreadStats = spread.statistics(at: spreadLast)
        #expect(spreadStats.firstPacketDelay?.max == .zero)
        #expect(spreadStats.lastPacketDelay?.max == spreadLast - t0)
    }

    @Test func frameDelaysRunFromEnqueueToTheDriversTurn() throws {
        var session = try Self.session(burst: Pacer.libWebRTCBurst)
        let before = session.statistics(at: t0)
        #expect(before.firstPacketDelay == nil)
        // Three one-packet frames, each polled 2, 4 and 6 ms after it was queued; then a three-packet frame after 1 ms.
        for (index, waitMs) in [2, 4, 6].enumerated() {
            let queued = t0 + .milliseconds(Int64(index) * 33)
            try session.enqueue(RTPSendSessionTests.accessUnit(1, seconds: Int64(index)), captureTime: queued, at: queued)
            _ = try Self.sendAll(&session, packets: 1, from: queued + .milliseconds(Int64(waitMs)))
        }
        let queued = t0 + .milliseconds(100)
        try session.enqueue(RTPSendSessionTests.accessUnit(3, seconds: 3), captureTime: queued, at: queued)
        _ = try Self.sendAll(&session, packets: 3, from: queued + .milliseconds(1))
        let stats = session.statistics(at: queued + .milliseconds(1))
        #expect(stats.firstPacketDelay == RecentDurations.Summary(count: 4, median: .milliseconds(2), p90: .milliseconds(6),
                                                                  max: .milliseconds(6)))
        #expect(stats.lastPacketDelay == stats.firstPacketDelay)
    }
}
