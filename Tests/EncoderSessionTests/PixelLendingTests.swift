import Bitstream
import CLibAV
import Testing

@testable import EncoderSession

/// Opens libx264 with the caller's planes lent to libavcodec (the default) or copied into a pooled frame (the
/// VA-API path's way), so the two can be compared on the same frames.
struct PixelPathFactory: CodecBackendFactory {
    let lendsPixels: Bool

    func open(_ request: BackendOpenRequest) throws(EncoderSessionError) -> any CodecBackend {
        var request = request
        request.lendsPixels = lendsPixels
        return try X264Backend(request)
    }
}

/// libx264 reads the caller's planes in place (LibAVEncoderCore.sendLending): no copy on our side, same bitstream.
@Suite struct PixelLendingTests {
    struct Case: Sendable, CustomStringConvertible {
        var format: PixelFormat
        /// Bytes of stride padding after each row (filled with garbage the encoder must not read).
        var padding: Int
        var description: String { "\(format), \(padding) bytes of row padding" }
    }

    static let cases = [
        Case(format: .i420, padding: 0), Case(format: .nv12, padding: 0),
        Case(format: .i420, padding: 16), Case(format: .nv12, padding: 7),
    ]

    /// A moving gradient in every plane (chroma too, so a plane mix-up shows), rows `padding` bytes longer than
    /// the picture with 0xEE in the padding.
    static func frame(_ format: PixelFormat, width: Int, height: Int, padding: Int, index: Int) -> PixelBuffer {
        let shape = PixelBuffer(format: format, width: width, height: height)
        var planes: [PixelBuffer.Plane] = []
        for plane in 0..<format.planeCount {
            let rowBytes = shape.rowBytes(ofPlane: plane), rows = shape.rows(ofPlane: plane)
            let stride = rowBytes + padding
            var bytes = [UInt8](repeating: 0xEE, count: stride * rows)
            for y in 0..<rows {
                for x in 0..<rowBytes {
                    bytes[y * stride + x] = UInt8(truncatingIfNeeded: x * (plane + 1) + y * 2 + index * (3 + plane))
                }
            }
            planes.append(PixelBuffer.Plane(bytes: bytes, bytesPerRow: stride))
        }
        return PixelBuffer(format: format, width: width, height: height, planes: planes)
    }

    /// Every delivered frame's bytes, 30 frames with a forced IDR at 12; one thread so x264 is deterministic.
    static func encode(_ testCase: Case, lendsPixels: Bool) throws -> [[UInt8]] {
        _ = TestMedia.quiet
        var configuration = smallRealTime()
        configuration.pixelFormat = testCase.format
        configuration.threadCount = 1
        let collector = OutputCollector()
        let session = try CompressionSession(
            configuration: configuration, factory: PixelPathFactory(lendsPixels: lendsPixels),
            outputHandler: collector.handler)
        for index in 0..<30 {
            var buffer = frame(testCase.format, width: 160, height: 120, padding: testCase.padding, index: index)
            try session.encode(
                buffer, presentationTime: TestMedia.time(index),
                options: FrameOptions(forceKeyFrame: index == 12), context: index)
            // The session keeps nothing of the buffer after encode returns: scribbling over it now changes nothing.
            buffer.planes[0].bytes.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
        }
        try session.completeFrames()
        session.invalidate()
        #expect(collector.outputs.allSatisfy { $0.frame != nil }, "no frame dropped")
        return collector.frames.map(\.bytes)
    }

    @Test(arguments: cases)
    func lendingGivesTheBytesCopyingGives(_ testCase: Case) throws {
        let lent = try Self.encode(testCase, lendsPixels: true)
        let copied = try Self.encode(testCase, lendsPixels: false)
        #expect(lent.count == 30)
        #expect(lent.reduce(0) { $0 + $1.count } > 1000)
        #expect(lent == copied)
    }

    /// The shim's bookkeeping: a lent frame is "shared" exactly while another frame references its planes, and
    /// unreffing it never frees the caller's memory (the free callback does nothing).
    @Test func lentFrameReportsOtherReferences() throws {
        var luma = [UInt8](repeating: 16, count: 64 * 64)
        var chroma = [UInt8](repeating: 128, count: 64 * 32)
        var frame: UnsafeMutablePointer<AVFrame>? = rtenc_av_frame_alloc()
        var other: UnsafeMutablePointer<AVFrame>? = rtenc_av_frame_alloc()
        defer {
            rtenc_av_frame_free(&frame)
            rtenc_av_frame_free(&other)
        }
        luma.withUnsafeMutableBufferPointer { y in
            chroma.withUnsafeMutableBufferPointer { uv in
                let status = rtenc_encoder_lend_planes(
                    frame, AV_PIX_FMT_NV12.rawValue, 64, 64, 2, [y.baseAddress, uv.baseAddress], [64, 64],
                    [y.count, uv.count])
                #expect(status == 0)
                #expect(rtenc_encoder_frame_plane(frame, 0) == y.baseAddress)
                #expect(rtenc_encoder_frame_is_shared(frame) == 0)
                #expect(rtenc_av_frame_ref(other, frame) == 0)
                // A reference, not a copy: the other frame points at the caller's bytes.
                #expect(rtenc_encoder_frame_plane(other, 1) == uv.baseAddress)
                #expect(rtenc_encoder_frame_is_shared(frame) == 1)
                rtenc_av_frame_unref(other)
                #expect(rtenc_encoder_frame_is_shared(frame) == 0)
                rtenc_av_frame_unref(frame)
                // A second lend into a frame that still holds buffers is refused.
                #expect(rtenc_encoder_lend_planes(frame, AV_PIX_FMT_NV12.rawValue, 64, 64, 2,
                                                  [y.baseAddress, uv.baseAddress], [64, 64], [y.count, uv.count]) == 0)
                #expect(rtenc_encoder_lend_planes(frame, AV_PIX_FMT_NV12.rawValue, 64, 64, 2,
                                                  [y.baseAddress, uv.baseAddress], [64, 64], [y.count, uv.count]) < 0)
                rtenc_av_frame_unref(frame)
            }
        }
        #expect(luma.allSatisfy { $0 == 16 } && chroma.allSatisfy { $0 == 128 })
    }
}
