import Bitstream
import Foundation
import Testing

@testable import EncoderSession

/// Bad input becomes a typed error; nothing crashes and the session stays usable where that makes sense.
@Suite struct BadInputTests {
    /// The code of the EncoderSessionError `body` throws; nil if it throws nothing; `.init("other")` for any other
    /// error type (which would be a bug: every public API throws EncoderSessionError).
    func code(_ body: () throws -> Void) -> EncoderSessionError.Code? {
        do {
            try body()
            return nil
        } catch let error as EncoderSessionError {
            return error.code
        } catch {
            return .init("other")
        }
    }

    /// HEVC opens HEVC encoders (issue 15; until then it was refused with `.unsupportedCodec`): `.software` libx265,
    /// `.hardware` VA-API (hevc_vaapi), `.automatic` VA-API and, when that fails, libx265. A running H.264 session
    /// can be reconfigured to HEVC (a new encoder; its first frame is an HEVC IDR).
    @Test(arguments: [
        (EncoderChoice.software, [BackendKind.x265]),
        (.automatic, [.vaapi(device: EncoderChoice.defaultRenderNode), .x265]),
        (.hardware(), [.vaapi(device: EncoderChoice.defaultRenderNode)]),
    ])
    func hevcOpensTheHEVCEncoders(encoder: EncoderChoice, opens: [BackendKind]) throws {
        #expect(Configuration(width: 160, height: 120).codec == .h264)
        var configuration = smallRealTime()
        configuration.encoder = encoder
        configuration.codec = .hevc
        var factory = FakeBackendFactory()
        factory.codecs = [.x265: .hevc, .vaapi(device: EncoderChoice.defaultRenderNode): .hevc]
        if encoder == .automatic {
            factory.failing = [
                .vaapi(device: EncoderChoice.defaultRenderNode): EncoderSessionError(
                    code: .hardwareUnavailable, reason: "VA-API unavailable")
            ]
        }
        let session = try CompressionSession(configuration: configuration, factory: factory, outputHandler: { _ in })
        #expect(factory.log.opens == opens)
        #expect(session.configuration.codec == .hevc)

        let collector = OutputCollector()
        let h264 = try CompressionSession(configuration: smallRealTime(), outputHandler: collector.handler)
        try h264.encode(TestMedia.pattern(width: 160, height: 120, index: 0), presentationTime: TestMedia.time(0))
        configuration.encoder = .software
        try h264.reconfigure(configuration)
        try h264.encode(TestMedia.pattern(width: 160, height: 120, index: 1), presentationTime: TestMedia.time(1))
        #expect(h264.configuration.codec == .hevc)
        #expect(h264.encoderInUse.name == "libx265")
        #expect(collector.frames.map(\.accessUnit.codec) == [.h264, .hevc])
        #expect(collector.frames.last?.isKeyFrame == true)
    }

    @Test(arguments: [
        (0, 120), (160, 0), (-2, 120), (161, 120), (160, 121), (16384, 120),
    ])
    func sizesTheFormatForbidsAreRefused(width: Int, height: Int) {
        let configuration = Configuration(
            width: width, height: height, encoder: .software, live: LiveProperties(averageBitRate: 100_000))
        #expect(code { _ = try CompressionSession(configuration: configuration) } == .invalidConfiguration)
    }

    @Test(arguments: [0, -1, Int.min, Limits.maxBitRate + 1])
    func nonPositiveBitratesAreRefused(bitRate: Int) throws {
        var configuration = smallRealTime()
        configuration.live.averageBitRate = bitRate
        #expect(code { _ = try CompressionSession(configuration: configuration) } == .invalidConfiguration)
        let session = try CompressionSession(configuration: smallRealTime())
        #expect(code { try session.setAverageBitRate(bitRate) } == .invalidConfiguration)
        #expect(session.configuration.live.averageBitRate == smallRealTime().live.averageBitRate)
    }

    @Test func badLivePropertiesAreRefused() throws {
        let session = try CompressionSession(configuration: smallRealTime())
        #expect(
            code { try session.update { $0.dataRateLimits = [DataRateLimit(bytes: 0, seconds: 1)] } }
                == .invalidConfiguration)
        #expect(
            code { try session.update { $0.dataRateLimits = [DataRateLimit(bytes: 10, seconds: .nan)] } }
                == .invalidConfiguration)
        #expect(code { try session.update { $0.maxKeyFrameInterval = -1 } } == .invalidConfiguration)
        #expect(code { try session.update { $0.maxKeyFrameIntervalDuration = -.infinity } } == .invalidConfiguration)
    }

    struct BufferCase: Sendable, CustomTestStringConvertible {
        var name: String
        var buffer: @Sendable () -> PixelBuffer
        var testDescription: String { name }
    }

    static let bufferCases: [BufferCase] = [
        BufferCase(name: "wrong format") { PixelBuffer(format: .i420, width: 160, height: 120) },
        BufferCase(name: "wrong size") { PixelBuffer(format: .nv12, width: 320, height: 240) },
        BufferCase(name: "missing plane") {
            let full = PixelBuffer(format: .nv12, width: 160, height: 120)
            return PixelBuffer(format: .nv12, width: 160, height: 120, planes: [full.planes[0]])
        },
        BufferCase(name: "stride below row") {
            var buffer = PixelBuffer(format: .nv12, width: 160, height: 120)
            buffer.planes[0].bytesPerRow = 100
            return buffer
        },
        BufferCase(name: "plane too short for its stride") {
            var buffer = PixelBuffer(format: .nv12, width: 160, height: 120)
            buffer.planes[0].bytesPerRow = 192
            return buffer
        },
        BufferCase(name: "chroma one byte short") {
            var buffer = PixelBuffer(format: .nv12, width: 160, height: 120)
            buffer.planes[1].bytes.removeLast()
            return buffer
        },
        BufferCase(name: "huge stride overflows") {
            var buffer = PixelBuffer(format: .nv12, width: 160, height: 120)
            buffer.planes[0].bytesPerRow = Int.max / 2
            return buffer
        },
    ]

    @Test(arguments: bufferCases)
    func badBuffersAreRefusedAndTheSessionCarriesOn(_ testCase: BufferCase) throws {
        let collector = OutputCollector()
        let session = try CompressionSession(configuration: smallRealTime(), outputHandler: collector.handler)
        #expect(
            code { try session.encode(testCase.buffer(), presentationTime: TestMedia.time(0), context: 0) }
                == .invalidPixelBuffer)
        #expect(collector.count == 0)
        // The refused frame consumed no timestamp: the same time is accepted with a good buffer.
        try session.encode(
            TestMedia.pattern(width: 160, height: 120, index: 0), presentationTime: TestMedia.time(0), context: 1)
        #expect(collector.outputs.map { $0.context as? Int } == [1])
    }

    @Test func paddedStridesAreAccepted() throws {
        let collector = OutputCollector()
        let session = try CompressionSession(configuration: smallRealTime(), outputHandler: collector.handler)
        let stride = 192
        let buffer = PixelBuffer(
            format: .nv12, width: 160, height: 120,
            planes: [
                .init(bytes: [UInt8](repeating: 90, count: stride * 119 + 160), bytesPerRow: stride),
                .init(bytes: [UInt8](repeating: 128, count: stride * 60), bytesPerRow: stride),
            ])
        try session.encode(buffer, presentationTime: TestMedia.time(0))
        #expect(collector.frames.count == 1)
    }

    @Test func nonIncreasingTimestampsAreRefused() throws {
        let collector = OutputCollector()
        let session = try CompressionSession(configuration: smallRealTime(), outputHandler: collector.handler)
        let frame = TestMedia.pattern(width: 160, height: 120, index: 0)
        try session.encode(frame, presentationTime: MediaTime(value: 3000, timescale: 90_000))
        #expect(
            code { try session.encode(frame, presentationTime: MediaTime(value: 3000, timescale: 90_000)) }
                == .invalidTimestamp)
        #expect(
            code { try session.encode(frame, presentationTime: MediaTime(value: 1, timescale: 90_000)) }
                == .invalidTimestamp)
        // Same instant in another timescale is still not later.
        #expect(
            code { try session.encode(frame, presentationTime: MediaTime(value: 1, timescale: 30)) }
                == .invalidTimestamp)
        #expect(
            code { try session.encode(frame, presentationTime: MediaTime(value: 5, timescale: 0)) } == .invalidTimestamp
        )
        #expect(
            code { try session.encode(frame, presentationTime: MediaTime(value: .max, timescale: 1)) }
                == .invalidTimestamp)
        try session.encode(frame, presentationTime: MediaTime(value: 2, timescale: 30))
        #expect(collector.count == 2)
    }

    @Test func everythingAfterInvalidateThrowsInvalidated() throws {
        let collector = OutputCollector()
        let session = try CompressionSession(configuration: smallRealTime(), outputHandler: collector.handler)
        try session.encode(TestMedia.pattern(width: 160, height: 120, index: 0), presentationTime: TestMedia.time(0))
        session.invalidate()
        session.invalidate()
        #expect(session.isInvalidated)
        let frame = TestMedia.pattern(width: 160, height: 120, index: 1)
        #expect(code { try session.encode(frame, presentationTime: TestMedia.time(1)) } == .invalidated)
        #expect(code { try session.completeFrames() } == .invalidated)
        #expect(code { try session.setAverageBitRate(200_000) } == .invalidated)
        #expect(code { try session.reconfigure(smallRealTime()) } == .invalidated)
        #expect(collector.count == 1)
    }

    /// A node that does not exist: said as `rtenc probe` says it (what is missing), not as FFmpeg's
    /// "Invalid argument" — on these machines there is no /dev/dri at all.
    @Test func unknownVADeviceIsATypedHardwareError() {
        var configuration = smallRealTime()
        configuration.encoder = .hardware(device: "/dev/dri/no-such-node")
        do throws(EncoderSessionError) {
            _ = try CompressionSession(configuration: configuration)
            Issue.record("opened VA-API on a node that does not exist")
        } catch {
            #expect(error.code == .hardwareUnavailable)
            let missing = FileManager.default.fileExists(atPath: "/dev/dri") ? "/dev/dri/no-such-node" : "/dev/dri"
            #expect(error.reason == "VA-API unavailable: no VA-API device (\(missing) does not exist)")
            #expect(error.averror == nil)
        }
    }

    /// A device that exists but is no VA-API device: FFmpeg's own reason comes along.
    @Test func aDeviceThatIsNoVADeviceCarriesFFmpegsReason() {
        var configuration = smallRealTime()
        configuration.encoder = .hardware(device: "/dev/null")
        do throws(EncoderSessionError) {
            _ = try CompressionSession(configuration: configuration)
            Issue.record("opened VA-API on /dev/null")
        } catch {
            #expect(error.code == .hardwareUnavailable)
            #expect(error.reason.contains("/dev/null"))
            #expect(error.averror != nil)
            #expect(error.libavMessage?.isEmpty == false)
        }
    }
}
