import MediaCore
import Testing
@testable import RTP
@testable import RTPOut

/// The BYE linger and the rule that skips it when nobody listens (`RTPSendSession+Goodbye`), on manual time: the test
/// is the driver — it sends the refusal probes the session asks for and says which drew an ICMP port unreachable.
struct ByeLingerTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var testDescription: String
        /// When the peer's host refused: before the last datagrams were taken (their own refusals rate-limited away),
        /// after them, or never (a listening receiver; with rtcp-mux the unconnected socket reports none either).
        enum Refusal: Sendable { case never, early, afterLastSend }
        var refusal: Refusal
        /// When the peer's RTCP came, if it did: before the refusals or after them (a receiver that joined late).
        enum RTCP: Sendable { case never, beforeRefusal, afterRefusal }
        var rtcp: RTCP = .never
        var goodbyeDelay: Duration = .milliseconds(500)
        /// Which probes draw a refusal, in order (a probe beyond the list draws none).
        var probeAnswers: [Bool] = []
        /// Expected: the probes sent (ms after the linger's start) and when the BYE went.
        var probesAtMs: [Int64]
        var byeAtMs: Int64
    }

    static let rows: [Row] = [
        Row(testDescription: "refused after the last send, no RTCP: BYE at once, no probe",
            refusal: .afterLastSend, probesAtMs: [], byeAtMs: 0),
        Row(testDescription: "refused early, the last sends drew nothing: the probe at the linger's start is refused, BYE at once",
            refusal: .early, probeAnswers: [true], probesAtMs: [0], byeAtMs: 0),
        Row(testDescription: "refused early, the first probe drew nothing (rate-limited), the second is refused: BYE at 100 ms",
            refusal: .early, probeAnswers: [false, true], probesAtMs: [0, 100], byeAtMs: 100),
        Row(testDescription: "refused early, no probe refused (a late receiver that sends no RTCP): the whole linger; 1.1 s is past it",
            refusal: .early, probesAtMs: [0, 100], byeAtMs: 500),
        Row(testDescription: "refused early, no probe refused, a 2 s linger: three probes, the whole linger",
            refusal: .early, goodbyeDelay: .seconds(2), probesAtMs: [0, 100, 1100], byeAtMs: 2000),
        Row(testDescription: "refused early, the third probe is refused (past the per-host ICMP second): BYE at 1.1 s",
            refusal: .early, goodbyeDelay: .seconds(2), probeAnswers: [false, false, true], probesAtMs: [0, 100, 1100], byeAtMs: 1100),
        Row(testDescription: "refused early, then RTCP (a receiver that joined late reports): no probe, the whole linger",
            refusal: .early, rtcp: .afterRefusal, probesAtMs: [], byeAtMs: 500),
        Row(testDescription: "RTCP, then refused after the last send (the receiver went away): the linger stays",
            refusal: .afterLastSend, rtcp: .beforeRefusal, probesAtMs: [], byeAtMs: 500),
        Row(testDescription: "never refused (a listening receiver, or rtcp-mux): no probe, the whole linger",
            refusal: .never, probesAtMs: [], byeAtMs: 500),
        Row(testDescription: "no linger configured: BYE at once whatever, no probe",
            refusal: .early, goodbyeDelay: .zero, probesAtMs: [], byeAtMs: 0),
    ]

    @Test(arguments: rows)
    func lingerEndsWhenNobodyListens(_ row: Row) throws {
        var session = try RTPSendSessionTests.session(goodbyeDelay: row.goodbyeDelay)
        let rtcp = try RTPSendSessionTests.rtcp([.receiverReport(.init(ssrc: RTPSendSessionTests.peerSSRC))])
        let t0 = RTPInstant(secondsSinceEpoch: 1_800_000_000)
        try session.enqueue(RTPSendSessionTests.accessUnit(3), captureTime: t0, at: t0)
        if row.rtcp == .beforeRefusal { session.handle(rtcp: rtcp, at: t0) }
        if row.refusal == .early { session.peerRefused(at: t0) }  // then the socket took the rest: no refusal after
        _ = RTPSendSessionTests.drain(&session, at: t0)
        if row.refusal == .afterLastSend { session.peerRefused(at: t0) }
        if row.rtcp == .afterRefusal { session.handle(rtcp: rtcp, at: t0) }
        session.close(at: t0, drainTimeout: .seconds(10))

        var now = t0
        var probes: [Int64] = []
        var byeAt: RTPInstant?
        while byeAt == nil, now <= t0 + .seconds(5) {
            for sent in RTPSendSessionTests.drain(&session, at: now) where sent.kind == .rtcp && session.isClosed { byeAt = now }
            if byeAt != nil { break }
            if session.refusalProbeIsDue(at: now) {
                let answered = probes.count < row.probeAnswers.count && row.probeAnswers[probes.count]
                probes.append((now - t0).milliseconds)
                session.didSendRefusalProbe(at: now)
                let dueAgain = session.refusalProbeIsDue(at: now)
                #expect(!dueAgain, "one probe at a time")
                if answered { session.peerRefused(at: now) }
                continue  // the BYE may be due at this very instant
            }
            let nextValue = session.nextTimeout()
            let next = try #require(nextValue)
            try #require(next > now, "nothing sent, yet due again at \(next)")
            now = next
        }
        #expect(probes == row.probesAtMs)
        #expect(byeAt.map { ($0 - t0).milliseconds } == row.byeAtMs)
        let closed = session.isClosed && session.nextTimeout() == nil
        let probeAfterClose = session.refusalProbeIsDue(at: now + .seconds(5))
        #expect(closed)
        #expect(!probeAfterClose)
    }

    /// A driver that never probes (no socket that reports refusals: rtcp-mux, WebRTC, the simulator) is never woken
    /// for a probe: the only wake-ups during the linger are its reports and its end.
    @Test func aDriverThatNeverProbesIsNotWokenForProbes() throws {
        var session = try RTPSendSessionTests.session(goodbyeDelay: .seconds(2))
        let t0 = RTPInstant(secondsSinceEpoch: 1_800_000_000)
        try session.enqueue(RTPSendSessionTests.accessUnit(3), captureTime: t0, at: t0)
        session.peerRefused(at: t0)
        _ = RTPSendSessionTests.drain(&session, at: t0)
        session.close(at: t0)
        _ = RTPSendSessionTests.drain(&session, at: t0)
        let due = session.refusalProbeIsDue(at: t0)
        #expect(due)
        let nextValue = session.nextTimeout()
        let report = session.rtcp.nextReportTime
        let next = try #require(nextValue)
        #expect(next > t0 && (next == t0 + .seconds(2) || next == report), "woken at \(next - t0)")
    }
}

extension Duration {
    fileprivate var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
