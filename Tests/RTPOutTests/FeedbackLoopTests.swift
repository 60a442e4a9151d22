import MediaCore
import NetworkEmulator
import Testing
@testable import RTP
@testable import RTPOut

/// Congestion-control feedback through both sessions in virtual time (`VirtualTimeLoop`'s shape): the sender numbers
/// every packet it transmits, a lossy `NetworkLink` carries them, the receiver records arrivals and sends
/// transport-cc or RFC 8888 reports back over a second link, and the sender turns them into packet results. The
/// test watches the forward link itself, so it knows which packets arrived and when.
struct FeedbackLoopTests {
    /// 5 % loss forward, 30 ms ± 5 ms; the way back loses nothing (a lost report would leave packets unreported,
    /// which is right but makes "every packet reported" untestable).
    static let forward = ImpairmentProfile(loss: .random(rate: 0.05), delay: .milliseconds(30), jitter: .milliseconds(5))
    static let backward = ImpairmentProfile(delay: .milliseconds(30))

    @Test func transportCCReportsEveryPacketWithItsArrival() throws {
        let outcome = try FeedbackLoop.run(seed: 21, feedback: .transportCC(extensionID: 3))
        print("FeedbackLoopTests transport-cc: \(outcome)")
        outcome.check(quantum: .microseconds(250))
        // Retransmissions (NACK → RTX) were numbered afresh: the numbers on the wire are 0, 1, 2, … in sending order.
        #expect(outcome.retransmissions > 0)
        #expect(outcome.numbersInSendOrder)
    }

    @Test func rfc8888ReportsEveryMediaPacketWithItsArrival() throws {
        let outcome = try FeedbackLoop.run(seed: 22, feedback: .rfc8888)
        print("FeedbackLoopTests RFC 8888: \(outcome)")
        // 1/1024 s offsets, rounded down, against a report timestamp in 1/65536 s.
        outcome.check(quantum: .microseconds(977 + 16))
    }
}

enum FeedbackLoop {
    static let frames = 150  // 5 s at 30 fps
    static let rtx: (payloadType: UInt8, ssrc: UInt32) = (97, 0x3333_3333)

    struct Outcome: CustomStringConvertible {
        /// Transport-wide number → when the link delivered it (nil: dropped), for every packet sent.
        var sent: [Int64: RTPInstant?] = [:]
        var results: [PacketResult] = []
        var reports = 0
        var reportsSent = 0
        var retransmissions = 0
        var rtxNumbers: Set<Int64> = []
        var numbersInSendOrder = true
        var sender = RTPSenderStatistics()

        var description: String {
            let lost = sent.values.filter { $0 == nil }.count
            return "\(sent.count) packets sent (\(lost) lost on the link, \(retransmissions) retransmitted), \(reportsSent) reports sent, "
                + "\(reports) read, \(results.count) packet results; sender: \(sender.feedbackPacketsReceived) received / "
                + "\(sender.feedbackPacketsLost) lost, \(sender.bytesInFlight) bytes in flight"
        }

        /// Every packet sent before the last one that arrived is reported, with the right fate; arrival differences
        /// match the link's within the format's quantum.
        func check(quantum: Duration) {
            #expect(reports > 0 && reports == sender.feedbackReports && reports == reportsSent, "\(self)")
            let lastArrived = sent.filter { $0.value != nil }.keys.max() ?? -1
            let reported = Set(results.map(\.sent.sequenceNumber))
            let covered = sent.keys.filter { $0 <= lastArrived }
            #expect(covered.contains(where: rtxNumbers.contains), "retransmissions (RTX) are reported too")
            // Everything was reported by the end (the run goes on for a second after the last frame).
            #expect(sender.bytesInFlight == 0, "\(self)")
            #expect(covered.count > 1000, "\(self)")
            #expect(covered.allSatisfy(reported.contains), "packets never reported: \(covered.filter { !reported.contains($0) }.sorted().prefix(10))")
            var wrongFate = 0
            var worst = Duration.zero
            var first: (arrival: Instant, truth: RTPInstant)?
            // A packet reordered behind later ones is reported lost, then received by a later report: its last word
            // is its fate.
            var last: [Int64: PacketResult] = [:]
            for result in results { last[result.sent.sequenceNumber] = result }
            for result in results.filter({ last[$0.sent.sequenceNumber] == $0 }) {
                guard let truth = sent[result.sent.sequenceNumber] else {
                    Issue.record("a result for a packet never sent: \(result)")
                    continue
                }
                if result.isReceived != (truth != nil) { wrongFate += 1 }
                guard let arrival = result.arrival, let truth else { continue }
                guard let (firstArrival, firstTruth) = first else {
                    first = (arrival, truth)
                    continue
                }
                // Receiver's clock: only differences mean something.
                let error = (arrival - firstArrival) - (truth - firstTruth)
                worst = max(worst, error < .zero ? .zero - error : error)
            }
            #expect(wrongFate == 0, "results that say received for a lost packet or the reverse: \(wrongFate)")
            #expect(results.contains { !$0.isReceived }, "the link lost packets: some must be reported lost")
            #expect(worst <= quantum, "arrival differences off by \(worst)")
            #expect(sender.feedbackPacketsReceived + sender.feedbackPacketsLost == results.count)
        }
    }

    static func run(seed: UInt64, feedback: RTPReceiveSession.CongestionFeedback) throws -> Outcome {
        var configuration = RTPSendSession.Configuration(
            ssrc: 0x1111_1111, cname: "loop-sender", payloader: .init(maxPayloadSize: 1200), pacing: .paced(targetBitrate: 2_000_000),
            rtx: rtx, initialSequenceNumber: 65_000)
        switch feedback {
        case .transportCC(let id): configuration.headerExtensions = .init(transportSequenceNumberID: id, absoluteSendTimeID: 2)
        case .rfc8888: configuration.acceptsCongestionControlFeedback = true
        }
        var sender = try RTPSendSession(configuration: configuration, random: NetworkEmulator.SeededGenerator(seed: seed))
        var receiverConfiguration = RTPReceiveSession.Configuration(ssrc: 0x2222_2222, cname: "loop-receiver")
        receiverConfiguration.congestionFeedback = feedback
        var receiver = RTPReceiveSession(configuration: receiverConfiguration)
        var forward = try NetworkLink<(number: Int64, bytes: [UInt8])>(profile: FeedbackLoopTests.forward, seed: seed &+ 1)
        var backward = try NetworkLink<[UInt8]>(profile: FeedbackLoopTests.backward, seed: seed &+ 2)
        var encoder = SyntheticEncoder(seed: seed &+ 3)
        var outcome = Outcome()
        var nextNumber: Int64 = 0
        let start = VirtualTimeLoop.start
        let end = VirtualTimeLoop.frameTime(frames - 1) + .seconds(1)

        var now = start
        var nextFrame = 0
        while true {
            var due: [RTPInstant] = []
            if nextFrame < frames { due.append(VirtualTimeLoop.frameTime(nextFrame)) }
            if let t = sender.nextTimeout() { due.append(t) }
            if let t = receiver.nextTimeout() { due.append(t) }
            if let t = forward.nextDelivery { due.append(VirtualTimeLoop.instant(t)) }
            if let t = backward.nextDelivery { due.append(VirtualTimeLoop.instant(t)) }
            guard let next = due.min(), next <= end else { break }
            now = max(now, next)
            if nextFrame < frames, VirtualTimeLoop.frameTime(nextFrame) <= now {
                try sender.enqueue(encoder.next(index: nextFrame), captureTime: now, at: now)
                nextFrame += 1
            }
            forward.deliver(at: now - start) { packet in
                if packet.number >= 0 { outcome.sent[packet.number] = now }
                if packet.bytes.count > 1, (192 ... 223).contains(packet.bytes[1]) {
                    receiver.handle(rtcp: packet.bytes, at: now)
                } else {
                    receiver.handle(rtp: packet.bytes, at: now)
                }
            }
            backward.deliver(at: now - start) { datagram in sender.handle(rtcp: datagram[...], at: now) }
            if let t = receiver.nextTimeout(), t <= now { receiver.handleTimeout(at: now) }
            while let transmit = sender.pollTransmit(at: now) {
                for datagram in transmit.datagrams {
                    var number: Int64 = -1
                    if transmit.kind == .rtp {
                        number = nextNumber
                        nextNumber += 1
                        outcome.sent[number] = .some(nil)
                        if case .transportCC(let id) = feedback {
                            let wire = TransportWideSessionTests.transportNumber(Array(datagram), id: id)
                            if wire != UInt16(truncatingIfNeeded: number) { outcome.numbersInSendOrder = false }
                        }
                        if (try? RTPPacket(parsing: Array(datagram)))?.header.ssrc == rtx.ssrc {
                            outcome.retransmissions += 1
                            outcome.rtxNumbers.insert(number)
                        }
                    }
                    forward.offer((number, Array(datagram)), bytes: datagram.count, at: now - start)
                }
                sender.didTransmit(transmit.count, at: now)
            }
            while let datagram = receiver.pollTransmit(at: now) {
                if let packets = try? RTCPCompound.parse(datagram),
                   packets.contains(where: { if case .transportCC = $0 { true } else if case .congestionControlFeedback = $0 { true } else { false } }) {
                    outcome.reportsSent += 1
                }
                backward.offer(datagram, bytes: datagram.count, at: now - start)
            }
            while let event = sender.pollEvent() {
                if case .transportFeedback(let feedback) = event {
                    outcome.reports += 1
                    outcome.results += feedback.packets
                }
                if case .keyframeRequested = event { encoder.keyframeRequested = true }
            }
            while receiver.pollEvent() != nil {}
        }
        outcome.sender = sender.statistics(at: now)
        #expect(receiver.statistics.congestionFeedbackSent == outcome.reportsSent)
        return outcome
    }
}
