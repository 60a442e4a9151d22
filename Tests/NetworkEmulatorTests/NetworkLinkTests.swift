import Testing
@testable import NetworkEmulator

/// Offers `count` packets of `bytes`, `spacing` apart, and collects (payload, delivery time) by stepping a clock
/// in 1 ms ticks: the same way the UDP relay drives a link, with no real time involved.
func run(_ profile: ImpairmentProfile, seed: UInt64 = 1, count: Int, bytes: Int = 1000, spacing: Duration = .milliseconds(1),
         timestamps: [UInt32]? = nil) throws -> (delivered: [(Int, Duration)], link: NetworkLink<Int>) {
    var link = try NetworkLink<Int>(profile: profile, seed: seed)
    var delivered: [(Int, Duration)] = []
    var now = Duration.zero
    var next = 0
    while next < count || link.packetsHeld > 0 {
        while next < count, spacing * next <= now {
            link.offer(next, bytes: bytes, rtpTimestamp: timestamps?[next], at: now)
            next += 1
        }
        link.deliver(at: now) { delivered.append(($0, now)) }
        now += .milliseconds(1)
        if now > .seconds(3600) { break }  // a bug must not hang the test
    }
    return (delivered, link)
}

struct NetworkLinkTests {
    @Test func aCleanLinkDeliversEverythingInOrderAtOnce() throws {
        let (delivered, link) = try run(ImpairmentProfile(), count: 100)
        #expect(delivered.map(\.0) == Array(0 ..< 100))
        #expect(delivered.allSatisfy { $0.1 == .milliseconds($0.0) })
        #expect(link.statistics == .init(packetsIn: 100, bytesIn: 100_000, packetsOut: 100, bytesOut: 100_000))
    }

    @Test func delayShiftsEveryPacketByTheSameAmount() throws {
        let (delivered, _) = try run(ImpairmentProfile(delay: .milliseconds(30)), count: 50)
        #expect(delivered.map(\.0) == Array(0 ..< 50))
        #expect(delivered.allSatisfy { $0.1 == .milliseconds($0.0 + 30) })
    }

    @Test func randomLossIsNearItsRateAndFixedBySeed() throws {
        let profile = ImpairmentProfile(loss: .random(rate: 0.05))
        let (first, link) = try run(profile, seed: 42, count: 20_000, spacing: .zero)
        let (again, _) = try run(profile, seed: 42, count: 20_000, spacing: .zero)
        let (other, _) = try run(profile, seed: 43, count: 20_000, spacing: .zero)
        // 20 000 draws at 5 %: 1000 ± 31 (one standard deviation); ± 150 is about five.
        #expect((850 ... 1150).contains(link.statistics.droppedByLoss), "\(link.statistics.droppedByLoss) lost")
        #expect(link.statistics.packetsOut + link.statistics.droppedByLoss == 20_000)
        #expect(first.map(\.0) == again.map(\.0))
        #expect(first.map(\.0) != other.map(\.0))
    }

    /// Gilbert-Elliott: the long-run loss matches the rate and losses come in runs of the given mean length.
    @Test(arguments: [(0.05, 4.0), (0.10, 2.0), (0.02, 10.0)])
    func burstLossHasItsRateAndMeanBurstLength(rate: Double, meanBurst: Double) throws {
        let count = 200_000
        let (delivered, link) = try run(ImpairmentProfile(loss: .burst(rate: rate, meanBurstLength: meanBurst)), count: count,
                                        spacing: .zero)
        let lossRate = Double(link.statistics.droppedByLoss) / Double(count)
        #expect(abs(lossRate - rate) < rate * 0.15, "loss \(lossRate)")
        // Runs of missing payload numbers between delivered ones.
        var bursts: [Int] = []
        var previous = -1
        for (index, _) in delivered {
            if index - previous > 1 { bursts.append(index - previous - 1) }
            previous = index
        }
        let mean = Double(bursts.reduce(0, +)) / Double(max(1, bursts.count))
        #expect(abs(mean - meanBurst) < meanBurst * 0.15, "mean burst \(mean)")
    }

    @Test func jitterStaysInItsBandAndReorders() throws {
        let profile = ImpairmentProfile(delay: .milliseconds(30), jitter: .milliseconds(10))
        let (delivered, link) = try run(profile, count: 1000)
        #expect(delivered.count == 1000)
        for (index, time) in delivered {
            let delay = time - .milliseconds(index)
            // Delivery is observed on 1 ms ticks, so a due time lands up to 1 ms late.
            #expect(delay >= .milliseconds(20) && delay <= .milliseconds(41), "packet \(index) after \(delay)")
        }
        #expect(link.statistics.reordered > 100)
    }

    @Test func reorderingHoldsBackItsShareOfPackets() throws {
        let profile = ImpairmentProfile(delay: .milliseconds(5), reorderRate: 0.1, reorderDelay: .milliseconds(10))
        let (delivered, link) = try run(profile, count: 2000)
        let late = delivered.filter { $0.1 - .milliseconds($0.0) == .milliseconds(15) }.count
        #expect((140 ... 260).contains(late), "\(late) held back")
        // Reordered = delivered after a packet that came later; a held packet nothing overtook does not count.
        var highest = -1
        let overtaken = delivered.filter { index, _ in defer { highest = max(highest, index) }; return index < highest }.count
        #expect(link.statistics.reordered == overtaken)
        #expect(overtaken <= late && overtaken >= late - 3)
        #expect(Set(delivered.map(\.0)).count == 2000)
        let (none, clean) = try run(ImpairmentProfile(delay: .milliseconds(5)), count: 2000)
        #expect(clean.statistics.reordered == 0 && none.count == 2000)
    }

    /// 800 kb/s = 100 bytes/ms: 1000-byte packets leave 10 ms apart; a queue of 5000 bytes holds five, the rest drop.
    @Test func theBottleneckSerializesAndTailDrops() throws {
        let profile = ImpairmentProfile(delay: .milliseconds(2), rateLimit: .constant(bitsPerSecond: 800_000), queueBytes: 5000)
        let (delivered, link) = try run(profile, count: 20, spacing: .zero)
        #expect(delivered.map(\.0) == [0, 1, 2, 3, 4])
        #expect(delivered.map(\.1) == [12, 22, 32, 42, 52].map { .milliseconds($0) })
        #expect(link.statistics.droppedByQueue == 15)
        // Offered at the link rate, nothing queues long and nothing drops.
        let (paced, pacedLink) = try run(profile, count: 100, spacing: .milliseconds(10))
        #expect(paced.count == 100 && pacedLink.statistics.dropped == 0)
    }

    /// The queue measured as time to drain (RFC 8868), the packet's own serialisation included (as the simulator's
    /// `QueueLimit.time`): at 800 kb/s a 1000-byte packet takes 10 ms, so with a 35 ms limit the first three of a
    /// burst (gone 10, 20, 30 ms after they came) pass and the rest would take too long (the fourth 40 ms) —
    /// although the 1 MB byte queue has room. Offered at the rate, nothing waits and nothing drops.
    @Test func aQueueDelayLimitDropsWhatWouldWaitTooLong() throws {
        let profile = ImpairmentProfile(rateLimit: .constant(bitsPerSecond: 800_000), queueBytes: 1 << 20,
                                        queueDelayLimit: .milliseconds(35))
        let (delivered, link) = try run(profile, count: 10, spacing: .zero)
        #expect(delivered.map(\.0) == [0, 1, 2])
        #expect(link.statistics.droppedByQueue == 7)
        let (paced, pacedLink) = try run(profile, count: 50, spacing: .milliseconds(10))
        #expect(paced.count == 50 && pacedLink.statistics.dropped == 0)
    }

    /// Every offered packet gets one record: its arrival, and either its departure and delivery (queuing delay from
    /// the bottleneck itself) or why it was dropped.
    @Test func recordsTellEachPacketsFate() throws {
        let profile = ImpairmentProfile(delay: .milliseconds(5), rateLimit: .constant(bitsPerSecond: 800_000),
                                        queueBytes: 2500, dropPackets: PacketNumbers([3 ... 3]))
        var link = try NetworkLink<Int>(profile: profile, seed: 1)
        link.recordsPackets = true
        for index in 0..<5 {
            link.offer(index, bytes: 1000, rtpTimestamp: 0, rtpSequenceNumber: UInt16(100 + index), at: .zero)
        }
        let records = link.takeRecords()
        #expect(records.count == 5)
        #expect(records.map(\.rtpSequenceNumber) == [100, 101, 102, 103, 104])
        #expect(records[0].fate == .forwarded(departure: .milliseconds(10), delivery: .milliseconds(15)))
        #expect(records[1].fate == .forwarded(departure: .milliseconds(20), delivery: .milliseconds(25)))
        #expect(records[1].queueDelay == .milliseconds(20))
        #expect(records[2].fate == .dropped(.queue), "2500 bytes hold two packets")
        #expect(records[3].fate == .dropped(.packetFilter))
        #expect(records[4].fate == .dropped(.queue))
        #expect(link.takeRecords().isEmpty, "taken once")
        #expect(records[1].csvLine(direction: "forward") == "0.000,forward,1000,101,forwarded,20.000,25.000,")
        #expect(records[2].csvLine(direction: "forward") == "0.000,forward,1000,102,queue,,,")
        let late = PacketRecord(arrival: .microseconds(1_234_567), bytes: 80, rtpSequenceNumber: nil,
                                fate: .forwarded(departure: .microseconds(1_234_600), delivery: .microseconds(1_284_600)))
        #expect(late.csvLine(direction: "back") == "1234.567,back,80,,forwarded,0.033,1284.600,")
        var padding = late
        padding.kind = .padding
        #expect(padding.csvLine(direction: "forward") == "1234.567,forward,80,,forwarded,0.033,1284.600,padding")
    }

    @Test func aRateTraceChangesTheRateOverTime() throws {
        // 800 kb/s for 50 ms, then 80 kb/s: packets 10 ms apart at first, then 100 ms apart.
        let trace = try RateTrace(csv: "time_s,kbps\n0,800\n0.05,80\n")
        let profile = ImpairmentProfile(rateLimit: .trace(trace), queueBytes: 100_000)
        let (delivered, _) = try run(profile, count: 7, spacing: .zero)
        #expect(delivered.map(\.1) == [10, 20, 30, 40, 50, 150, 250].map { .milliseconds($0) })
    }

    @Test func theFrameFilterDropsWholeFramesByTimestamp() throws {
        // Frames: 0 = ts 1000 (2 packets), 1 = ts 4000 (3), 2 = ts 7000, then a retransmission of frame 1 (dropped
        // too), a late packet of frame 0 (kept), and frame 3 = ts 10000.
        let timestamps: [UInt32] = [1000, 1000, 4000, 4000, 4000, 7000, 4000, 1000, 10000]
        let (delivered, link) = try run(ImpairmentProfile(dropFrames: [1, 3]), count: 9, timestamps: timestamps)
        #expect(delivered.map(\.0) == [0, 1, 5, 7])
        // Timestamps wrap at 2^32: 2000 after 2^32 − 1000 is the next frame, not an old one.
        let (wrapped, _) = try run(ImpairmentProfile(dropFrames: [1]), count: 3, timestamps: [.max - 999, 2000, 2000])
        #expect(wrapped.map(\.0) == [0])
        #expect(link.statistics.droppedFrames == 5)
    }

    @Test func thePacketFilterDropsRTPPacketsByArrivalNumber() throws {
        // Packets 0…8 are RTP except 4 (nil timestamp: RTCP, not numbered); RTP numbers are 0,1,2,3,-,4,5,6,7.
        let timestamps: [UInt32?] = [1000, 1000, 4000, 4000, nil, 4000, 7000, 4000, 10000]
        var link = try NetworkLink<Int>(profile: ImpairmentProfile(dropPackets: PacketNumbers([0 ... 0, 4 ... 5])), seed: 1)
        var kept: [Int] = []
        for (index, timestamp) in timestamps.enumerated() where link.offer(index, bytes: 100, rtpTimestamp: timestamp, at: .zero) {
            kept.append(index)
        }
        #expect(kept == [1, 2, 3, 4, 7, 8])
        #expect(link.statistics.droppedPackets == 3)
        #expect(link.statistics.dropped == 3)
    }

    /// With `dropRetransmissions`, a later packet with a dropped packet's sequence number is dropped too; without,
    /// it passes (a retransmission is a new arrival).
    @Test(arguments: [true, false])
    func retransmissionsOfDroppedPacketsAreDroppedOnRequest(dropRetransmissions: Bool) throws {
        let profile = ImpairmentProfile(dropPackets: PacketNumbers([1 ... 1]), dropRetransmissions: dropRetransmissions)
        var link = try NetworkLink<Int>(profile: profile, seed: 1)
        let sequenceNumbers: [UInt16] = [100, 101, 102, 101, 103, 101]  // 101 lost, then resent twice
        let kept = sequenceNumbers.enumerated().filter {
            link.offer($0.offset, bytes: 100, rtpTimestamp: 0, rtpSequenceNumber: $0.element, at: .zero)
        }.map(\.offset)
        #expect(kept == (dropRetransmissions ? [0, 2, 4] : [0, 2, 3, 4, 5]))
        #expect(link.statistics.droppedPackets == (dropRetransmissions ? 3 : 1))
    }

    @Test(arguments: [
        ("0", [0 ... 0]), ("0-4", [0 ... 4]), ("3, 10-19,7", [3 ... 3, 10 ... 19, 7 ... 7]), ("5-5", [5 ... 5]),
    ] as [(String, [ClosedRange<Int>])])
    func packetNumbersParse(text: String, ranges: [ClosedRange<Int>]) {
        #expect(PacketNumbers(parsing: text)?.ranges == ranges)
    }

    @Test(arguments: ["", "x", "-1", "4-2", "1,,2", "1-", "-", "1-2-3", "0x10"])
    func badPacketNumbersAreRefused(text: String) {
        #expect(PacketNumbers(parsing: text) == nil)
    }

    @Test(arguments: [
        ("loss above 100 %", ImpairmentProfile(loss: .random(rate: 1.5))),
        ("burst loss of 100 %", ImpairmentProfile(loss: .burst(rate: 1, meanBurstLength: 3))),
        ("burst shorter than a packet", ImpairmentProfile(loss: .burst(rate: 0.1, meanBurstLength: 0.5))),
        ("negative delay", ImpairmentProfile(delay: .milliseconds(-1))),
        ("delay above the bound", ImpairmentProfile(delay: .seconds(11))),
        ("reorder above 100 %", ImpairmentProfile(reorderRate: 2)),
        ("zero rate", ImpairmentProfile(rateLimit: .constant(bitsPerSecond: 0))),
        ("empty queue", ImpairmentProfile(queueBytes: 0)),
        ("zero queue delay limit", ImpairmentProfile(queueDelayLimit: .zero)),
        ("queue delay limit above the bound", ImpairmentProfile(queueDelayLimit: .seconds(11))),
        ("negative frame", ImpairmentProfile(dropFrames: [-1])),
        ("negative packet", ImpairmentProfile(dropPackets: PacketNumbers([-2 ... 1]))),
    ])
    func badSettingsAreRefused(name: String, profile: ImpairmentProfile) {
        let error = #expect(throws: NetworkEmulatorError.self, "\(name)") { try NetworkLink<Int>(profile: profile, seed: 1) }
        #expect(error?.code == .invalidSetting)
    }
}
