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
    /// The context writes YUVA 4:2:0 (the frame's alpha kept).
    private var contextHasAlpha = false
    let outputWidth: Int
    let outputHeight: Int
    let outputFormat: PixelFormat
    /// When set, the output is written in this matrix at limited range, from the frame's own signalled range (and
    /// matrix, for RGB input); nil keeps libswscale's defaults (what `ffmpeg -s` does).
    let outputMatrix: YCbCrMatrix?

    /// With `outputMatrix`: write full range instead of limited (a mask's luma: white 255, black 0).
    let outputFullRange: Bool

    init(width: Int, height: Int, format: PixelFormat, matrix: YCbCrMatrix? = nil, fullRange: Bool = false) {
        outputWidth = width
        outputHeight = height
        outputFormat = format
        outputMatrix = matrix
        outputFullRange = fullRange
    }

    deinit {
        rtenc_sws_freeContext(context)
    }

    func scale(_ frame: OwnedFrame, into buffer: inout PixelBuffer) throws(MediaIOError) {
        var alpha: PixelBuffer.Plane?
        try scale(frame, into: &buffer, alpha: &alpha, keepAlpha: false)
    }

    /// As `scale(_:into:)`; when `keepAlpha` is set, the output is I420 and the frame's pixel format carries alpha
    /// (PNG RGBA, qtrle ARGB, yuva420p…), its alpha is converted along (to YUVA 4:2:0) into `alpha`, a luma-sized
    /// plane; otherwise `alpha` becomes nil (an opaque frame).
    func scale(_ frame: OwnedFrame, into buffer: inout PixelBuffer, alpha: inout PixelBuffer.Plane?,
               keepAlpha: Bool) throws(MediaIOError) {
        let source = frame.pointer.pointee
        let withAlpha = keepAlpha && outputFormat == .i420 && rtenc_mediaio_format_has_alpha(source.format) != 0
        if context == nil || inputKey != (source.width, source.height, source.format) || withAlpha != contextHasAlpha {
            try LibAV.load(RTENC_LIBSWSCALE)
            rtenc_sws_freeContext(context)
            let avFormat = withAlpha ? AV_PIX_FMT_YUVA420P : outputFormat == .nv12 ? AV_PIX_FMT_NV12 : AV_PIX_FMT_YUV420P
            context = rtenc_sws_getContext(source.width, source.height, AVPixelFormat(source.format),
                                     Int32(outputWidth), Int32(outputHeight), avFormat, Self.flags, nil, nil, nil)
            guard context != nil else {
                let name = rtenc_av_get_pix_fmt_name(AVPixelFormat(source.format)).map { String(cString: $0) } ?? "unknown"
                throw MediaIOError.make(.conversionFailed,
                                        "libswscale cannot convert \(source.width)x\(source.height) \(name) to \(outputFormat)")
            }
            inputKey = (source.width, source.height, source.format)
            contextHasAlpha = withAlpha
            if let outputMatrix { try setColorDetails(of: source, to: outputMatrix) }
        }
        PixelBuffer.prepare(&buffer, format: outputFormat, width: outputWidth, height: outputHeight)
        let (stride0, stride1, stride2) = (buffer.stride(ofPlane: 0), buffer.stride(ofPlane: 1), buffer.stride(ofPlane: 2))
        let context = self.context
        let status: Int32
        if withAlpha {
            var plane = alpha ?? PixelBuffer.Plane(bytes: [], bytesPerRow: outputWidth)
            if plane.bytesPerRow < outputWidth || plane.bytes.count < plane.bytesPerRow * outputHeight {
                plane = PixelBuffer.Plane(bytes: [UInt8](repeating: 255, count: outputWidth * outputHeight),
                                          bytesPerRow: outputWidth)
            }
            let stride3 = Int32(plane.bytesPerRow)
            alpha = nil // the plane is uniquely referenced while libswscale writes it
            status = plane.bytes.withUnsafeMutableBufferPointer { alphaBytes in
                buffer.withMutablePlanePointers { luma, plane1, plane2 in
                    rtenc_mediaio_scale_frame_alpha(context, frame.pointer, luma, stride0, plane1, stride1,
                                                    plane2, stride2, alphaBytes.baseAddress, stride3)
                }
            }
            alpha = plane
        } else {
            alpha = nil
            status = buffer.withMutablePlanePointers { luma, plane1, plane2 in
                rtenc_mediaio_scale_frame(context, frame.pointer, luma, stride0, plane1, stride1, plane2, stride2)
            }
        }
        try LibAV.check(status, .conversionFailed, "libswscale failed")
    }

    /// Tells libswscale the input's range and matrix (as the frame signals them) and the output's (limited range,
    /// `matrix`). libswscale converts range for Y′CbCr → Y′CbCr and applies both matrices through RGB input; it
    /// does not re-matrix Y′CbCr → Y′CbCr (a BT.601 clip on a BT.709 canvas keeps its coefficients).
    private func setColorDetails(of source: AVFrame, to matrix: YCbCrMatrix) throws(MediaIOError) {
        let inputSpace: Int32 = switch source.colorspace {
        case AVCOL_SPC_BT709: SWS_CS_ITU709
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: SWS_CS_BT2020
        case AVCOL_SPC_UNSPECIFIED: source.height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601
        default: SWS_CS_ITU601
        }
        // yuvj* formats (JPEG) are full range whatever the frame says, and so is gray (as libswscale's own
        // handle_jpeg assumes: PNG and JPEG grayscale pictures).
        let fullRangeFormats = [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P,
                                AV_PIX_FMT_YUVJ411P, AV_PIX_FMT_GRAY8].map(\.rawValue)
        let inputFull: Int32 =
            source.color_range == AVCOL_RANGE_JPEG || fullRangeFormats.contains(source.format) ? 1 : 0
        let outputSpace = matrix == .bt709 ? SWS_CS_ITU709 : SWS_CS_ITU601
        let status = rtenc_sws_setColorspaceDetails(context, rtenc_sws_getCoefficients(inputSpace), inputFull,
                                                    rtenc_sws_getCoefficients(outputSpace), outputFullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        guard status >= 0 else {
            throw MediaIOError.make(.conversionFailed, "libswscale cannot convert to \(matrix.rawValue) limited range")
        }
    }
}
