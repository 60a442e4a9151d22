import Foundation
import TestSupport
import Testing

@testable import RTP
@testable import RTPOut

/// File descriptors and threads come back after senders and receivers close (issue 7). Counted in a child process
/// running only this check: the test process itself opens sockets and threads for other tests in parallel.
@Suite struct ResourceTests {
    static let childVariable = "RTPOUT_RESOURCE_CHILD"
    static let isChild = ProcessInfo.processInfo.environment[childVariable] == "1"

    static func descriptorsAndThreads() -> (descriptors: Int, threads: Int) {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
        return (descriptors, threads)
    }

    /// Five sender/receiver pairs on loopback, a few access units each, then everything closed.
    static func cycle() throws {
        var pairs: [(RTPSender, RTPReceiver)] = []
        for _ in 0..<5 {
            let receiver = try RTPReceiver(
                configuration: .init(localAddress: SocketAddress(host: "127.0.0.1", port: 0)), onAccessUnit: { _ in })
            let sender = try RTPSender(configuration: .init(
                destination: receiver.localRTPAddress, pacing: .unpaced, initialSequenceNumber: 1, timestampOffset: 0))
            pairs.append((sender, receiver))
        }
        let accessUnit: [ArraySlice<UInt8>] = [[0x65] + [UInt8](repeating: 0x11, count: 3000)].map { $0[...] }
        for index in 0..<10 {
            for (sender, _) in pairs { try sender.send(accessUnit: accessUnit, pts: Int64(index), timeBase: (1, 30)) }
        }
        for (sender, receiver) in pairs {
            sender.close(drainTimeout: .milliseconds(200))
            receiver.close()
        }
    }

    @Test(.enabled(if: isChild)) func descriptorsAndThreadsReturnAfterClose() throws {
        try Self.cycle()  // warm-up: lazily created runtime threads and descriptors
        let before = Self.descriptorsAndThreads()
        for _ in 0..<3 { try Self.cycle() }
        let after = Self.descriptorsAndThreads()
        print("RESOURCES descriptors \(before.descriptors) → \(after.descriptors), threads \(before.threads) → \(after.threads)")
        #expect(after.descriptors == before.descriptors)
        // No thread left behind; one fewer is a thread of the warm-up (or the runtime's) that finished late.
        #expect(after.threads <= before.threads)
    }

    @Test(.enabled(if: !isChild), .timeLimit(.minutes(1))) func inAChildProcess() throws {
        let result = try ChildTest.run(filter: "descriptorsAndThreadsReturnAfterClose", marking: Self.childVariable, timeout: 50)
        let output = result.stdoutText + result.stderrText
        print(output.split(separator: "\n").filter { $0.contains("RESOURCES") || $0.contains("✘") }.joined(separator: "\n"))
        #expect(result.status == 0 && !result.timedOut, "\(output.suffix(1500))")
        #expect(output.contains("RESOURCES"))
    }
}
