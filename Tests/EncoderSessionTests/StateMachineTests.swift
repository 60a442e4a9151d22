import Bitstream
import Testing

@testable import EncoderSession

/// The session's state machine over the fake libav layer: open, fallback, reconfigure, reopen, flush, invalidate.
@Suite struct StateMachineTests {
    func session(
        _ factory: FakeBackendFactory, configuration: Configuration = smallRealTime(), collector: OutputCollector
    ) throws -> CompressionSession {
        try CompressionSession(configuration: configuration, factory: factory, outputHandler: collector.handler)
    }

    func encode(_ session: CompressionSession, _ range: Range<Int>, force: Set<Int> = []) throws {
        for index in range {
            try session.encode(
                PixelBuffer(format: .nv12, width: 160, height: 120), presentationTime: TestMedia.time(index),
                options: FrameOptions(forceKeyFrame: force.contains(index)), context: index)
        }
    }

    static let noDisplay = EncoderSessionError(
        code: .hardwareUnavailable, reason: "VA-API unavailable: no usable VA display for /dev/dri/renderD128",
        averror: -22, libavMessage: "Invalid argument")

    @Test func automaticTriesVAAPIThenFallsBackAndSaysWhy() throws {
        var factory = FakeBackendFactory()
        factory.failing = [.vaapi(device: EncoderChoice.defaultRenderNode): Self.noDisplay]
        var configuration = smallRealTime()
        configuration.encoder = .automatic
        let collector = OutputCollector()
        let session = try session(factory, configuration: configuration, collector: collector)
        #expect(factory.log.opens == [.vaapi(device: EncoderChoice.defaultRenderNode), .x264])
        #expect(session.encoderInUse.name == "libx264")
        #expect(
            session.encoderInUse.reason
                == "VA-API unavailable: no usable VA display for /dev/dri/renderD128: Invalid argument — using libx264")
    }

    /// The session uses only a backend that encodes the configuration's codec; `.automatic` falls back past one
    /// that does not, `.software` refuses it.
    @Test func aBackendOfAnotherCodecIsNotUsed() throws {
        var factory = FakeBackendFactory()
        factory.codecs = [.vaapi(device: EncoderChoice.defaultRenderNode): .hevc]
        var configuration = smallRealTime()
        configuration.encoder = .automatic
        let session = try session(factory, configuration: configuration, collector: OutputCollector())
        #expect(session.encoderInUse.name == "libx264")
        #expect(
            session.encoderInUse.reason
                == "h264_vaapi encodes hevc, the configuration asks for h264 — using libx264")

        factory.codecs = [.x264: .hevc]
        configuration.encoder = .software
        do {
            _ = try self.session(factory, configuration: configuration, collector: OutputCollector())
            Issue.record("a libx264 backend declaring hevc was used for h264")
        } catch let error as EncoderSessionError {
            #expect(error.code == .unsupportedCodec)
        }
    }

    @Test func hardwareFailurePropagatesWithoutFallback() throws {
        var factory = FakeBackendFactory()
        factory.failing = [.vaapi(device: "/dev/dri/renderD129"): Self.noDisplay]
        var configuration = smallRealTime()
        configuration.encoder = .hardware(device: "/dev/dri/renderD129")
        #expect(throws: EncoderSessionError.self) {
            _ = try self.session(factory, configuration: configuration, collector: OutputCollector())
        }
        #expect(factory.log.opens == [.vaapi(device: "/dev/dri/renderD129")])
    }

    @Test func firstFrameIsIDRWithParameterSetsAndParsedQP() throws {
        let factory = FakeBackendFactory()
        let collector = OutputCollector()
        let session = try session(factory, collector: collector)
        try encode(session, 0..<5)
        let outputs = collector.outputs
        #expect(outputs.map { $0.frame?.isKeyFrame } == [true, false, false, false, false])
        #expect(outputs.map(\.stats.qp) == [30, 31, 32, 33, 34])
        #expect(outputs[0].frame?.parameterSets?.sequenceParameterSets == [FakeH264.sps])
        #expect(outputs[1].frame?.parameterSets == nil)
        #expect(factory.log.sends.map(\.forceIDR) == [true, false, false, false, false])
        #expect(outputs[0].stats.reopenedEncoder && !outputs[1].stats.reopenedEncoder)
        #expect(outputs.allSatisfy { $0.stats.overheadMicroseconds <= $0.stats.encodeMicroseconds })
    }

    @Test func x264BitrateChangeIsLiveVAAPIBitrateChangeReopensWithIDR() throws {
        for hardware in [false, true] {
            let factory = FakeBackendFactory()
            var configuration = smallRealTime(averageBitRate: 1_000_000)
            configuration.encoder = hardware ? .hardware() : .software
            let collector = OutputCollector()
            let session = try session(factory, configuration: configuration, collector: collector)
            try encode(session, 0..<10)
            try session.setAverageBitRate(400_000)
            #expect(session.configuration.live.averageBitRate == 400_000)
            try encode(session, 10..<20)
            let outputs = collector.outputs
            #expect(outputs.count == 20)
            #expect(outputs[9].stats.targetBitRate == 1_000_000)
            #expect(outputs[10].stats.targetBitRate == 400_000)
            if hardware {
                #expect(factory.log.opens.count == 2)
                #expect(outputs[10].frame?.isKeyFrame == true)
                #expect(outputs[10].stats.reopenedEncoder)
                // The reopened encoder got the new rate at open.
                if case .open(_, let rate) = factory.log.events.last(where: {
                    if case .open = $0 { true } else { false }
                }) {
                    #expect(rate.averageBitRate == 400_000)
                }
            } else {
                #expect(factory.log.opens.count == 1)
                #expect(outputs[10].frame?.isKeyFrame == false)
                // The hold phase: maxrate = new target from the very next frame.
                let rates = factory.log.events.compactMap { if case .setRate(let rate) = $0 { rate } else { nil } }
                #expect(rates.count == 20)
                #expect(rates[10].maxBitRate == 400_000 && rates[10].averageBitRate == 400_000)
            }
        }
    }

    @Test func delayedEncoderIsFlushedByCompleteFramesAndReopens() throws {
        var factory = FakeBackendFactory()
        factory.delay = 2
        let collector = OutputCollector()
        let session = try session(factory, collector: collector)
        try encode(session, 0..<5)
        #expect(collector.outputs.map { $0.context as? Int } == [0, 1, 2])
        #expect(collector.outputs.allSatisfy { $0.infoFlags == .asynchronous })
        try session.completeFrames()
        #expect(collector.outputs.map { $0.context as? Int } == [0, 1, 2, 3, 4])
        #expect(factory.log.events.contains(.endOfStream))
        // Nothing pending: a second flush does nothing.
        try session.completeFrames()
        #expect(factory.log.events.filter { $0 == .endOfStream }.count == 1)
        // The next frame reopens the encoder and is an IDR.
        try encode(session, 5..<6)
        try session.completeFrames()
        #expect(factory.log.opens.count == 2)
        #expect(collector.outputs.last?.frame?.isKeyFrame == true)
        #expect(collector.outputs.last?.stats.reopenedEncoder == true)
    }

    /// An encoder that holds frames (lookahead) and a limit that refuses some frames before encoding: a refused
    /// frame's output waits for the frames submitted before it, so every context still comes back in submission
    /// order — through delivery, completeFrames and invalidate alike.
    @Test(arguments: [false, true])
    func dropsBeforeEncodingKeepSubmissionOrderBehindPendingFrames(invalidateAtEnd: Bool) throws {
        var factory = FakeBackendFactory()
        factory.delay = 3
        factory.payloadSize = { _, idr in idr ? 400 : 300 }
        var configuration = smallRealTime()
        configuration.live.dataRateLimits = [DataRateLimit(bytes: 1_000, seconds: 1)]
        let collector = OutputCollector()
        let session = try session(factory, configuration: configuration, collector: collector)
        try encode(session, 0..<30)
        if invalidateAtEnd { session.invalidate() } else { try session.completeFrames() }
        let outputs = collector.outputs
        #expect(outputs.map { $0.context as? Int } == Array(0..<30))
        let refused = outputs.filter { $0.stats.dropReason == .dataRateLimit }
        #expect(!refused.isEmpty, "the limit refused nothing: \(outputs.map { $0.stats.dropReason })")
        // At least one refusal came while earlier frames were inside the encoder: it was held, not delivered early.
        #expect(refused.contains { $0.infoFlags.contains(.asynchronous) })
    }

    /// A backend that closes itself on a failed send: the send throws, the frames it held come back failed (in
    /// order), and the next frame opens a new encoder and is an IDR — the session is not left throwing forever.
    @Test func aBackendThatClosedItselfIsReplaced() throws {
        var factory = FakeBackendFactory()
        factory.delay = 2
        factory.failSendClosing = [3]
        let collector = OutputCollector()
        let session = try session(factory, collector: collector)
        try encode(session, 0..<3)
        #expect(collector.outputs.map { $0.context as? Int } == [0])
        #expect(throws: EncoderSessionError.self) { try encode(session, 3..<4) }
        #expect(collector.outputs.map { $0.context as? Int } == [0, 1, 2])
        #expect(collector.outputs.suffix(2).allSatisfy { if case .failure = $0.status { true } else { false } })
        try encode(session, 4..<6)
        try session.completeFrames()
        #expect(factory.log.opens.count == 2)
        #expect(collector.outputs.map { $0.context as? Int } == [0, 1, 2, 4, 5])
        #expect(collector.outputs[3].frame?.isKeyFrame == true && collector.outputs[3].stats.reopenedEncoder)
    }

    @Test func invalidateReturnsPendingContextsAsDroppedAndFinishesStreams() async throws {
        var factory = FakeBackendFactory()
        factory.delay = 3
        let collector = OutputCollector()
        let session = try session(factory, collector: collector)
        let stream = session.outputs()
        try encode(session, 0..<5)
        session.invalidate()
        let outputs = collector.outputs
        #expect(outputs.map { $0.context as? Int } == [0, 1, 2, 3, 4])
        #expect(
            outputs.suffix(3).allSatisfy {
                $0.stats.dropReason == .encoderDroppedFrame && $0.infoFlags.contains(.frameDropped)
            })
        var streamed: [Int] = []
        for await output in stream { streamed.append(output.context as? Int ?? -1) }
        #expect(streamed == [0, 1, 2, 3, 4])
        // A stream made after invalidation is finished at once.
        for await _ in session.outputs() { Issue.record("output after invalidate") }
    }

    @Test func reconfigureLiveOnlyKeepsTheEncoderOtherwiseReopens() throws {
        let factory = FakeBackendFactory()
        let collector = OutputCollector()
        let session = try session(factory, collector: collector)
        try encode(session, 0..<3)
        var live = smallRealTime()
        live.live.maxKeyFrameInterval = 2
        try session.reconfigure(live)
        try encode(session, 3..<6)
        #expect(factory.log.opens.count == 1)
        // IDR at 0; from frame 3 the new limit of 2 applies, counted from that IDR: IDRs at 3 and 5.
        #expect(collector.outputs.map { $0.frame?.isKeyFrame == true } == [true, false, false, true, false, true])
        var bigger = smallRealTime()
        bigger.width = 320
        bigger.height = 240
        try session.reconfigure(bigger)
        #expect(factory.log.opens.count == 2)
        #expect(session.configuration.width == 320)
        #expect(throws: EncoderSessionError.self) {
            try session.encode(PixelBuffer(format: .nv12, width: 160, height: 120), presentationTime: TestMedia.time(6))
        }
        try session.encode(
            PixelBuffer(format: .nv12, width: 320, height: 240), presentationTime: TestMedia.time(6), context: 6)
        #expect(collector.outputs.last?.frame?.isKeyFrame == true)
        // A bad new configuration is refused and the old one stays.
        var bad = bigger
        bad.width = 0
        #expect(throws: EncoderSessionError.self) { try session.reconfigure(bad) }
        #expect(session.configuration.width == 320)
    }

    @Test func dropsBeforeAndAfterEncodingKeepTheReferenceChainIntact() throws {
        var factory = FakeBackendFactory()
        // Frame 6 (in send order) comes out far bigger than predicted.
        factory.payloadSize = { index, idr in idr ? 300 : (index == 6 ? 2_000 : 100) }
        var configuration = smallRealTime()
        configuration.live.dataRateLimits = [DataRateLimit(bytes: 1_500, seconds: 1)]
        let collector = OutputCollector()
        let session = try session(factory, configuration: configuration, collector: collector)
        try encode(session, 0..<40)
        let outputs = collector.outputs
        #expect(outputs.map { $0.context as? Int } == Array(0..<40))
        let reasons = outputs.map(\.stats.dropReason)
        // Frame 6 refused after encoding; the next frame sent must be a forced IDR.
        #expect(reasons[6] == .dataRateLimitAfterEncoding)
        let sends = factory.log.sends
        let sixth = try #require(sends.firstIndex { $0.pts == TestMedia.time(6).value })
        #expect(sends[sixth + 1].forceIDR)
        // Frames refused before encoding never reached the encoder.
        let refusedBefore = outputs.filter {
            $0.stats.dropReason == .dataRateLimit || $0.stats.dropReason == .awaitingKeyFrame
        }
        #expect(!refusedBefore.isEmpty)
        #expect(sends.count == 40 - refusedBefore.count)
        // And the windows hold.
        let windows = windowTotals(outputs.map { ($0.presentationTime.seconds, $0.stats.bytes) }, length: 1)
        #expect(windows.allSatisfy { $0.bytes <= 1_500 })
        // After the post-encode drop, the first delivered frame is an IDR.
        #expect(outputs[7...].first { $0.frame != nil }?.frame?.isKeyFrame == true)
    }

    @Test func failureAfterAcceptanceComesBackAsStatusAndTheEncoderReopens() throws {
        var factory = FakeBackendFactory()
        factory.failReceive = [3]
        let collector = OutputCollector()
        let session = try session(factory, collector: collector)
        try encode(session, 0..<6)
        let outputs = collector.outputs
        #expect(outputs.map { $0.context as? Int } == Array(0..<6))
        let failed = outputs[3]
        #expect(failed.frame == nil && failed.infoFlags.contains(.frameDropped))
        guard case .failure(let error) = failed.status else {
            Issue.record("frame 3 should carry the receive error")
            return
        }
        #expect(error.code == .encodeFailed && error.libavMessage == "I/O error")
        #expect(factory.log.opens.count == 2)
        #expect(outputs[4].frame?.isKeyFrame == true && outputs[4].stats.reopenedEncoder)
        #expect(outputs[5].frame?.isKeyFrame == false)
    }

    @Test func presentationTimesComeBackAsGiven() throws {
        let collector = OutputCollector()
        let session = try session(FakeBackendFactory(), collector: collector)
        try session.encode(
            PixelBuffer(format: .nv12, width: 160, height: 120), presentationTime: MediaTime(value: 33, timescale: 1000)
        )
        #expect(collector.outputs.first?.presentationTime.timescale == 1000)
        #expect(collector.outputs.first?.frame?.presentationTime == MediaTime(value: 2970, timescale: 90_000))
        #expect(collector.outputs.first?.frame?.decodeTime == MediaTime(value: 2970, timescale: 90_000))
    }

    @Test func avccOutputUsesExtradataOnceAndLengthPrefixes() throws {
        let factory = FakeBackendFactory()
        var configuration = smallRealTime()
        configuration.outputFormat = .avcc
        let collector = OutputCollector()
        let session = try session(factory, configuration: configuration, collector: collector)
        try encode(session, 0..<3)
        let frames = collector.frames
        #expect(frames[0].parameterSets?.avcC?.sequenceParameterSets == [FakeH264.sps])
        #expect(frames[0].parameterSets?.avcC?.pictureParameterSets == [FakeH264.pps])
        #expect(frames[1].parameterSets == nil)
        let first = frames[0]
        #expect(first.nalUnits.map(\.type) == [5])
        let length = first.nalUnits[0].range.count
        #expect(Array(first.bytes[0..<4]) == [0, 0, UInt8(length >> 8), UInt8(length & 0xFF)])
        #expect(first.nalUnits[0].range == 4..<first.bytes.count)
        #expect(first.accessUnit.framing == .lengthPrefixed(lengthSize: 4))
    }

    /// The frame is a `CodedAccessUnit` with the session's findings: framing from the output format, codec, the
    /// NAL units and the keyframe flag the analyzer parsed, and the times.
    @Test func frameCarriesTheCodedAccessUnit() throws {
        let collector = OutputCollector()
        let session = try session(FakeBackendFactory(), collector: collector)
        try encode(session, 0..<3)
        let frames = collector.frames
        #expect(frames.count == 3)
        for frame in frames {
            let unit = frame.accessUnit
            #expect(unit.codec == .h264)
            #expect(unit.framing == .annexB)
            #expect(unit.bytes == frame.bytes)
            #expect(unit.nalUnits == frame.nalUnits)
            #expect(unit.isKeyframe == unit.nalUnits.contains { $0.type == 5 })
            #expect(unit.presentationTime == frame.presentationTime && unit.decodeTime == frame.decodeTime)
            // Each range is a NAL unit right after a start code, its type the header's low 5 bits.
            for nal in unit.nalUnits {
                #expect(Array(unit.bytes[(nal.range.lowerBound - 3)..<nal.range.lowerBound]) == [0, 0, 1])
                #expect(unit.bytes[nal.range.lowerBound] & 0x1F == nal.type)
            }
        }
        #expect(frames[0].accessUnit.isKeyframe)
    }
}
