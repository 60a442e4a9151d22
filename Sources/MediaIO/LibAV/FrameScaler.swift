import CLibAV
import LibAVSupport
import MediaCore

/// Converts decoded frames of any size and pixel format to a `PixelBuffer` with libswscale, owning the
/// `SwsContext`. The context is rebuilt only when the input's geometry or format changes mid-stream.
final class FrameScaler {
    /// Bicubic: the ffmpeg command line's default for its auto-inserted scaler, so output matches `ffmpeg -s`.
    static let flags = SWS_BICUBIC

    private var context: OpaquePointer?
    private var inputKey: (width: Int32, height: Int32, format: Int32) = (0, 0, -1)
    let outputWidth: Int
    let outputHeight: Int
    let outputFormat: PixelFormat

    init(width: Int, height: Int, format: PixelFormat) {
        outputWidth = width
        outputHeight = height
        outputFormat = format
    }

    deinit {
        rtenc_sws_freeContext(context)
    }

    func scale(_ frame: OwnedFrame, into buffer: inout PixelBuffer) throws(MediaIOError) {
        let source = frame.pointer.pointee
        if context == nil || inputKey != (source.width, source.height, source.format) {
            try LibAV.load(RTENC_LIBSWSCALE)
            rtenc_sws_freeContext(context)
            let avFormat = outputFormat == .nv12 ? AV_PIX_FMT_NV12 : AV_PIX_FMT_YUV420P
            context = rtenc_sws_getContext(source.width, source.height, AVPixelFormat(source.format),
                                     Int32(outputWidth), Int32(outputHeight), avFormat, Self.flags, nil, nil, nil)
            guard context != nil else {
                let name = rtenc_av_get_pix_fmt_name(AVPixelFormat(source.format)).map { String(cString: $0) } ?? "unknown"
                throw MediaIOError.make(.conversionFailed,
                                        "libswscale cannot convert \(source.width)x\(source.height) \(name) to \(outputFormat)")
            }
            inputKey = (source.width, source.height, source.format)
        }
        PixelBuffer.prepare(&buffer, format: outputFormat, width: outputWidth, height: outputHeight)
        let (stride0, stride1, stride2) = (buffer.stride(ofPlane: 0), buffer.stride(ofPlane: 1), buffer.stride(ofPlane: 2))
        let context = self.context
        let status = buffer.withMutablePlanePointers { luma, plane1, plane2 in
            rtenc_mediaio_scale_frame(context, frame.pointer, luma, stride0, plane1, stride1, plane2, stride2)
        }
        try LibAV.check(status, .conversionFailed, "libswscale failed")
    }
}
