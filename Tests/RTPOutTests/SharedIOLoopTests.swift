import Foundation
import TestSupport
import Testing

@testable import RTP
@testable import RTPOut

/// Many senders served by one `RTPSenderIOLoop` thread (issue 6, scale): every packet arrives, pacing, RTCP and
/// BYE work as with a thread per sender, closing one member leaves the others alone, and the loop's thread and
/// every descriptor come back afterwards.
@Suite(.serialized)
struct SharedIOLoopTests {
    static let loopback = try! SocketAddress(host: "127.0.0.1", port: 0)
    /// Three packets per access unit at the default 1,200-byte payload.
    static let accessUnit: [ArraySlice<UInt8>] = [[0x65] + (0 ..< 3000).map { UInt8(truncatingIfNeeded: $0) }].map { $0[...] }

    static func configuration(to receiver: RTPReceiver, paced: Bool = true) -> RTPSenderConfiguration {
        RTPSenderConfiguration(destination: receiver.localRTPAddress,
                               pacing: paced ? .paced(targetBitrate: 2_000_000) : .unpaced,
                               goodbyeDelay: .milliseconds(50), initialSequenceNumber: 65_000, timestampOffset: 0)
    }

    /// An unpaced sender waits for a full socket under its lock; on a shared loop that would stall every member,
    /// so the combination is refused.
    @Test func anUnpacedSenderCannotShareALoop() throws {
        let loop = try RTPSenderIOLoop()
        let receiver = try RTPReceiver(configuration: .init(localAddress: Self.loopback)) { _ in }
        defer { receiver.close() }
        let error = #expect(throws: RTPError.self) {
            _ = try RTPSender(configuration: Self.configuration(to: receiver, paced: false), ioLoop: loop)
        }
        #expect(error?.code == .invalidValue)
        #expect(loop.memberCount == 0)
    }

    /// With separate RTP and RTCP sockets and with rtcp-mux (one socket per member, watched for RTCP and, when
    /// full, for writability on one epoll entry).
    @Test(arguments: [false, true], [1, 24])
    func everySenderDeliversEveryAccessUnit(rtcpMux: Bool, senders count: Int) throws {
        let loop = try RTPSenderIOLoop()
        var pairs: [(sender: RTPSender, receiver: RTPReceiver, received: Collector<ReceivedAccessUnit>)] = []
        for _ in 0 ..< count {
            let received = Collector<ReceivedAccessUnit>()
            let receiver = try RTPReceiver(configuration: .init(localAddress: Self.loopback, rtcpMux: rtcpMux)) { received.append($0) }
            var configuration = Self.configuration(to: receiver)
            configuration.rtcpMux = rtcpMux
            let sender = try RTPSender(configuration: configuration, ioLoop: loop)
            pairs.append((sender, receiver, received))
        }
        #expect(loop.memberCount == count)
        for index in 0 ..< 10 {
            for pair in pairs { try pair.sender.send(accessUnit: Self.accessUnit, pts: Int64(index), timeBase: (1, 30)) }
        }
        #expect(eventually { pairs.allSatisfy { $0.received.all.count == 10 } })
        for pair in pairs {
            pair.sender.close()
            pair.receiver.close()
        }
        #expect(loop.memberCount == 0)
        for (index, pair) in pairs.enumerated() {
            let received = pair.received.all
            #expect(received.map(\.nalUnits) == Array(repeating: Self.accessUnit.map(Array.init), count: 10), "pair \(index)")
            #expect(received.map(\.timestamp) == (0 ..< 10).map { UInt32($0 * 3000) })
            #expect(pair.sender.statistics.packetsSent == 30)
            #expect(pair.receiver.statistics.packetsReceived == 30)
            #expect(pair.receiver.statistics.senderReports >= 1)
            #expect(pair.receiver.statistics.goodbyeReceived)
        }
    }

    /// The pacer still spreads packets out: 10 access units of ~3 kB at 2.5 × 200 kb/s take about 0.45 s, not 0.
    @Test func pacingStillApplies() throws {
        let loop = try RTPSenderIOLoop()
        let received = Collector<ReceivedAccessUnit>()
        let receiver = try RTPReceiver(configuration: .init(localAddress: Self.loopback)) { received.append($0) }
        var configuration = Self.configuration(to: receiver)
        configuration.pacing = .paced(targetBitrate: 200_000)
        let sender = try RTPSender(configuration: configuration, ioLoop: loop)
        let start = Date()
        for index in 0 ..< 10 { try sender.send(accessUnit: Self.accessUnit, pts: Int64(index), timeBase: (1, 30)) }
        #expect(eventually { received.all.count == 10 })
        let elapsed = Date().timeIntervalSince(start)
        sender.close()
        receiver.close()
        // ~30.4 kB at 62,500 bytes/s, less the 1,500-byte burst allowance and the last packet: ~0.44 s.
        #expect(elapsed > 0.35, "took \(elapsed) s")
    }

    /// Feedback reaches the right member: a PLI from one receiver calls only its sender's callback.
    @Test func keyframeRequestReachesItsSender() throws {
        let loop = try RTPSenderIOLoop()
        let requests = [Counter(), Counter(), Counter()]
        var pairs: [(RTPSender, RTPReceiver)] = []
        for index in 0 ..< 3 {
            // Automatic PLIs off: the access unit is an IDR without SPS/PPS, for which a receiver asks a new IDR by
            // itself (PictureRecovery); only the explicit request is under test.
            let receiver = try RTPReceiver(configuration: .init(localAddress: Self.loopback, sendPictureLossOnDrop: false)) { _ in }
            let sender = try RTPSender(configuration: Self.configuration(to: receiver),
                                       onKeyframeRequest: { requests[index].increment() }, ioLoop: loop)
            try sender.send(accessUnit: Self.accessUnit, pts: 0, timeBase: (1, 30))
            pairs.append((sender, receiver))
        }
        #expect(eventually { pairs.allSatisfy { $0.1.statistics.packetsReceived == 3 } })
        pairs[1].1.requestKeyframe()
        #expect(eventually { requests[1].count == 1 })
        #expect(requests.map(\.count) == [0, 1, 0])
        for (sender, receiver) in pairs {
            sender.close(drainTimeout: .zero)
            receiver.close()
        }
    }

    /// Closing one member (and dropping another without close) leaves the rest sending; the loop lives as long as
    /// its members even when the caller lets go of it first.
    @Test func membersCloseIndependently() throws {
        var loop: RTPSenderIOLoop? = try RTPSenderIOLoop()
        let received = Collector<ReceivedAccessUnit>()
        let receiver = try RTPReceiver(configuration: .init(localAddress: Self.loopback)) { received.append($0) }
        let other = try RTPReceiver(configuration: .init(localAddress: Self.loopback)) { _ in }
        let keeper = try RTPSender(configuration: Self.configuration(to: receiver), ioLoop: loop)
        let closed = try RTPSender(configuration: Self.configuration(to: other), ioLoop: loop)
        var dropped: RTPSender? = try RTPSender(configuration: Self.configuration(to: other), ioLoop: loop)
        let members = loop?.memberCount
        loop = nil
        #expect(members == 3)
        closed.close(drainTimeout: .zero)
        dropped = nil  // deinit closes it
        #expect(dropped == nil)
        for index in 0 ..< 5 { try keeper.send(accessUnit: Self.accessUnit, pts: Int64(index), timeBase: (1, 30)) }
        #expect(eventually { received.all.count == 5 })
        #expect(throws: RTPError.self) { try closed.send(accessUnit: Self.accessUnit, pts: 9, timeBase: (1, 30)) }
        keeper.close()
        receiver.close()
        other.close()
        #expect(receiver.statistics.goodbyeReceived)
    }

    // MARK: Threads and descriptors, counted in a child process (see ResourceTests)

    static let childVariable = "RTPOUT_SHARED_LOOP_CHILD"
    static let isChild = ProcessInfo.processInfo.environment[childVariable] == "1"

    /// Eight senders on one loop and their receivers; returns the threads counted while all were open.
    static func cycle() throws -> Int {
        let loop = try RTPSenderIOLoop()
        var pairs: [(RTPSender, RTPReceiver)] = []
        for _ in 0 ..< 8 {
            let receiver = try RTPReceiver(configuration: .init(localAddress: loopback)) { _ in }
            pairs.append((try RTPSender(configuration: configuration(to: receiver), ioLoop: loop), receiver))
        }
        for index in 0 ..< 5 {
            for (sender, _) in pairs { try sender.send(accessUnit: accessUnit, pts: Int64(index), timeBase: (1, 30)) }
        }
        let threads = ResourceTests.descriptorsAndThreads().threads
        for (sender, receiver) in pairs {
            sender.close(drainTimeout: .milliseconds(500))
            receiver.close()
        }
        return threads
    }

    @Test(.enabled(if: isChild)) func sharedLoopThreadsAndDescriptorsReturn() throws {
        _ = try Self.cycle()  // warm-up: lazily created runtime threads and descriptors
        let before = ResourceTests.descriptorsAndThreads()
        var during: [Int] = []
        for _ in 0 ..< 3 { during.append(try Self.cycle()) }
        let after = ResourceTests.descriptorsAndThreads()
        print("SHARED LOOP descriptors \(before.descriptors) → \(after.descriptors), threads \(before.threads) → \(during) → \(after.threads)")
        // Eight receiver threads and one loop thread for the eight senders.
        #expect(during.allSatisfy { $0 == before.threads + 8 + 1 })
        #expect(after.descriptors == before.descriptors)
        #expect(after.threads == before.threads)
    }

    @Test(.enabled(if: !isChild), .timeLimit(.minutes(1))) func threadsAndDescriptorsInAChildProcess() throws {
        let result = try ChildTest.run(filter: "sharedLoopThreadsAndDescriptorsReturn", marking: Self.childVariable, timeout: 50)
        let output = result.stdoutText + result.stderrText
        print(output.split(separator: "\n").filter { $0.contains("SHARED LOOP") || $0.contains("✘") }.joined(separator: "\n"))
        #expect(result.status == 0 && !result.timedOut, "\(output.suffix(1500))")
        #expect(output.contains("SHARED LOOP"))
    }
}
