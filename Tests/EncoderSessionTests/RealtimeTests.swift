import Bitstream
import Testing

@testable import EncoderSession

/// Encoder delay, measured: when does a frame's output come out relative to the `encode` call that submitted it.
@Suite struct RealtimeTests {
    /// For both codecs: libx265 too, with its frame threads held at one (two gave two frames of delay).
    @Test(arguments: [PixelFormat.nv12, .i420], [VideoCodec.h264, .hevc])
    func realTimeDeliversEachFrameBeforeEncodeReturns(format: PixelFormat, codec: VideoCodec) throws {
        for threads in [1, 2] {
            try realTimeDeliversEachFrameBeforeEncodeReturns(format: format, threads: threads, codec: codec)
        }
    }

    func realTimeDeliversEachFrameBeforeEncodeReturns(format: PixelFormat, threads: Int, codec: VideoCodec) throws {
        _ = TestMedia.quiet
        var configuration = smallRealTime()
        configuration.codec = codec
        configuration.pixelFormat = format
        configuration.threadCount = threads
        let collector = OutputCollector()
        let session = try CompressionSession(configuration: configuration, outputHandler: collector.handler)
        for index in 0..<45 {
            try session.encode(
                TestMedia.pattern(format: format, width: 160, height: 120, index: index),
                presentationTime: TestMedia.time(index), context: index)
            // Delay 0: this frame's output, and nothing else, arrived during this call.
            #expect(collector.count == index + 1)
            #expect(collector.outputs.last?.context as? Int == index)
        }
        let outputs = collector.outputs
        #expect(outputs.allSatisfy { $0.infoFlags.isEmpty && $0.frame != nil })
        #expect(outputs.allSatisfy { $0.frame?.accessUnit.codec == codec })
        // dts == pts without reordering.
        #expect(outputs.allSatisfy { $0.frame?.decodeTime == $0.frame?.presentationTime })
        // No B-frames: every picture is I or P (ffprobe, independently of the session's parser).
        let types = try ffprobePictureTypes(annexBStream(outputs.compactMap(\.frame)), format: codec.rawValue)
        #expect(types.count == 45)
        #expect(!types.contains { $0.contains("B") })
        // Nothing is pending in real time: completing frames is free and does not restart the stream.
        try session.completeFrames()
        #expect(collector.count == 45)
        try session.encode(
            TestMedia.pattern(format: format, width: 160, height: 120, index: 45), presentationTime: TestMedia.time(45))
        #expect(collector.outputs.last?.frame?.isKeyFrame == false)
        #expect(collector.outputs.last?.stats.reopenedEncoder == false)
    }

    /// The contrast: offline High profile with frame reordering holds frames (lookahead, B-frames); outputs come
    /// from later calls (`.asynchronous`) and `completeFrames` delivers the rest. Every context still comes back.
    @Test func offlineWithReorderingHasDelayAndCompleteFramesFlushes() throws {
        _ = TestMedia.quiet
        let configuration = Configuration(
            width: 160, height: 120, encoder: .software, profileLevel: ProfileLevel(profile: .high, level: nil),
            realTime: false, allowFrameReordering: true, expectedFrameRate: 30, preset: .veryfast, threadCount: 1,
            live: LiveProperties(averageBitRate: 300_000))
        let collector = OutputCollector()
        let session = try CompressionSession(configuration: configuration, outputHandler: collector.handler)
        for index in 0..<60 {
            try session.encode(
                TestMedia.pattern(width: 160, height: 120, index: index), presentationTime: TestMedia.time(index),
                context: index)
        }
        let beforeFlush = collector.count
        #expect(beforeFlush < 60)
        try session.completeFrames()
        let outputs = collector.outputs
        #expect(outputs.count == 60)
        #expect(Set(outputs.compactMap { $0.context as? Int }) == Set(0..<60))
        #expect(outputs.contains { $0.infoFlags.contains(.asynchronous) })
        let types = try ffprobePictureTypes(annexBStream(outputs.compactMap(\.frame)))
        #expect(types.contains { $0.contains("B") })
        // Decode order: dts increases; pts is reordered.
        let dts = outputs.compactMap { $0.frame?.decodeTime.value }
        #expect(dts == dts.sorted())
        // After a flush the encoder reopens: the next frame is an IDR again.
        try session.encode(
            TestMedia.pattern(width: 160, height: 120, index: 60), presentationTime: TestMedia.time(60), context: 60)
        try session.completeFrames()
        let last = try #require(collector.outputs.last)
        #expect(last.context as? Int == 60)
        #expect(last.frame?.isKeyFrame == true)
        #expect(last.stats.reopenedEncoder)
    }
}
