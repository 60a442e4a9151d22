import Bitstream
import Foundation
import Testing

@testable import EncoderSession

/// VA-API through h264_vaapi. These machines have no /dev/dri, so what is tested here is the error path with the
/// real libav calls; the success path runs only where a render node exists (then the first test checks real output).
@Suite struct VAAPITests {
    static let hasRenderNode = FileManager.default.fileExists(atPath: EncoderChoice.defaultRenderNode)

    @Test func hardwareEncodesWhereARenderNodeExistsAndFailsTypedWhereNot() throws {
        _ = TestMedia.quiet
        var configuration = smallRealTime()
        configuration.encoder = .hardware()
        do throws(EncoderSessionError) {
            let collector = OutputCollector()
            let session = try CompressionSession(configuration: configuration, outputHandler: collector.handler)
            // Only reachable with a working VA driver.
            #expect(session.encoderInUse.isHardwareAccelerated)
            for index in 0..<10 {
                try session.encode(
                    TestMedia.pattern(width: 160, height: 120, index: index), presentationTime: TestMedia.time(index),
                    context: index)
            }
            try session.completeFrames()
            #expect(collector.outputs.map { $0.context as? Int } == Array(0..<10))
            #expect(collector.frames.first?.isKeyFrame == true)
        } catch {
            #expect(error.code == .hardwareUnavailable)
            guard FileManager.default.fileExists(atPath: "/dev/dri") else {
                // No GPU driver at all: said as `rtenc probe` says it, not as FFmpeg's "Invalid argument".
                #expect(error.reason == "VA-API unavailable: no VA-API device (/dev/dri does not exist)")
                #expect(error.averror == nil)
                return
            }
            #expect(error.reason.contains(EncoderChoice.defaultRenderNode))
            // FFmpeg's reason: av_hwdevice_ctx_create with a path → AVERROR(EINVAL) here ("No VA display found").
            let averror = try #require(error.averror)
            #expect(averror < 0)
            #expect(error.libavMessage?.isEmpty == false)
            #expect(error.description.contains(error.libavMessage ?? "?"))
            if Self.hasRenderNode {
                print("VA-API failed although \(EncoderChoice.defaultRenderNode) exists: \(error)")
            }
        }
    }

    @Test func automaticFallsBackToX264AndSaysWhy() throws {
        _ = TestMedia.quiet
        var configuration = smallRealTime()
        configuration.encoder = .automatic
        let collector = OutputCollector()
        let session = try CompressionSession(configuration: configuration, outputHandler: collector.handler)
        let inUse = session.encoderInUse
        print("automatic: \(inUse)")
        if inUse.isHardwareAccelerated {
            #expect(inUse.name == "h264_vaapi")
        } else {
            #expect(inUse.name == "libx264")
            #expect(inUse.reason.contains("VA-API unavailable"))
            #expect(inUse.reason.contains(EncoderChoice.defaultRenderNode) || inUse.reason.contains("/dev/dri does not exist"))
            #expect(inUse.reason.hasSuffix("using libx264"))
        }
        try session.encode(TestMedia.pattern(width: 160, height: 120, index: 0), presentationTime: TestMedia.time(0))
        #expect(collector.frames.count == 1)
    }

    @Test func softwareSaysSo() throws {
        let session = try CompressionSession(configuration: smallRealTime())
        #expect(
            session.encoderInUse
                == EncoderInUse(name: "libx264", isHardwareAccelerated: false, reason: "software encoder requested"))
    }
}
