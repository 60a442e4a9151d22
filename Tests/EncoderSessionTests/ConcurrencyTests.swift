import Bitstream
import Synchronization
import Testing

@testable import EncoderSession

/// The session used from Swift concurrency: shared between tasks, outputs consumed from an AsyncStream.
@Suite struct ConcurrencyTests {
    @Test func encodeInOneTaskChangeBitrateInAnotherConsumeTheStreamInAThird() async throws {
        _ = TestMedia.quiet
        let session = try CompressionSession(configuration: smallRealTime(averageBitRate: 400_000))
        let stream = session.outputs()
        let count = 120
        async let consumed: [Int] = {
            var contexts: [Int] = []
            for await output in stream { contexts.append(output.context as? Int ?? -1) }
            return contexts
        }()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for index in 0..<count {
                    try session.encode(
                        TestMedia.pattern(width: 160, height: 120, index: index),
                        presentationTime: TestMedia.time(index), context: index)
                    await Task.yield()
                }
            }
            group.addTask {
                for step in 0..<20 {
                    try session.setAverageBitRate(step % 2 == 0 ? 200_000 : 400_000)
                    _ = session.encoderInUse
                    await Task.yield()
                }
            }
            try await group.waitForAll()
        }
        session.invalidate()
        #expect(await consumed == Array(0..<count))
    }

    @Test func outputHandlerMayChangeLivePropertiesWithoutDeadlock() throws {
        let box = Mutex<CompressionSession?>(nil)
        let seen = Mutex<[Int]>([])
        let session = try CompressionSession(configuration: smallRealTime()) { output in
            seen.withLock { $0.append(output.stats.targetBitRate) }
            // From inside the callback: a live property change for the next frame.
            try? box.withLock { $0 }?.setAverageBitRate(150_000)
        }
        box.withLock { $0 = session }
        for index in 0..<3 {
            try session.encode(
                TestMedia.pattern(width: 160, height: 120, index: index), presentationTime: TestMedia.time(index))
        }
        #expect(seen.withLock { $0 } == [300_000, 150_000, 150_000])
        box.withLock { $0 = nil }
        session.invalidate()
    }
}
