import Testing
@testable import EncoderSession

@Suite struct SmokeTests {
    @Test func encodesAFewFrames() throws {
        _ = TestMedia.quiet
        let collector = OutputCollector()
        let session = try EncoderSession(
            configuration: .realTimeCommunication(width: 320, height: 240, averageBitRate: 500_000, encoder: .software),
            outputHandler: collector.handler)
        for index in 0..<10 {
            try session.encode(TestMedia.pattern(width: 320, height: 240, index: index), presentationTime: TestMedia.time(index), context: index)
            #expect(collector.count == index + 1)
        }
        for output in collector.outputs {
            print(output.context ?? "-", output.frame?.isKeyFrame ?? false, output.stats.bytes, output.stats.qp ?? -1, nalTypes(output.frame!), output.stats.overheadMicroseconds, output.stats.encodeMicroseconds)
        }
        print(session.encoderInUse)
        print(try ffprobePictureTypes(annexBStream(collector.frames)))
    }
}
