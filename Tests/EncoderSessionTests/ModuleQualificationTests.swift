import EncoderSession
import Testing

/// The session class is `CompressionSession`, not `EncoderSession`: with a class named like its module, an app
/// that has a `PixelBuffer` (or `Configuration`) of its own could not name rtenc's, because `EncoderSession.X`
/// looked inside the class instead of the module.
@Suite struct ModuleQualificationTests {
    @Test func theModuleNameQualifiesItsTypes() throws {
        struct PixelBuffer { var frames = 0 }  // an app's own type of the same name
        let own = PixelBuffer()
        let buffer = EncoderSession.PixelBuffer(format: .nv12, width: 64, height: 64)
        let configuration = EncoderSession.CompressionSession.Configuration.realTimeCommunication(
            width: buffer.width, height: buffer.height, averageBitRate: 300_000, encoder: .software)
        let session = try EncoderSession.CompressionSession(configuration: configuration)
        try session.encode(buffer, presentationTime: EncoderSession.MediaTime(value: 0, timescale: 30))
        session.invalidate()
        #expect(own.frames == 0)
    }
}
