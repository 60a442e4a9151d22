import CLibAV
import LibAVSupport
import MediaCore

/// Resizes and converts `PixelBuffer`s with libswscale (owning the `SwsContext`), for sources whose frames do not
/// come from libavcodec: Y4M from standard input at another output size, for one.
final class PixelBufferScaler {
    private let context: OpaquePointer
    let inputWidth: Int, inputHeight: Int, inputFormat: PixelFormat
    let outputWidth: Int, outputHeight: Int, outputFormat: PixelFormat

    init(from input: (width: Int, height: Int, format: PixelFormat),
         to output: (width: Int, height: Int, format: PixelFormat)) throws(MediaIOError) {
        try LibAV.load(RTENC_LIBSWSCALE)
        guard let context = rtenc_sws_getContext(
            Int32(input.width), Int32(input.height), Self.avFormat(input.format),
            Int32(output.width), Int32(output.height), Self.avFormat(output.format),
            FrameScaler.flags, nil, nil, nil
        ) else {
            throw .make(.conversionFailed, "libswscale cannot convert \(input.width)x\(input.height) \(input.format) "
                        + "to \(output.width)x\(output.height) \(output.format)")
        }
        self.context = context
        (inputWidth, inputHeight, inputFormat) = input
        (outputWidth, outputHeight, outputFormat) = output
    }

    deinit {
        rtenc_sws_freeContext(context)
    }

    static func avFormat(_ format: PixelFormat) -> AVPixelFormat {
        format == .nv12 ? AV_PIX_FMT_NV12 : AV_PIX_FMT_YUV420P
    }

    func scale(_ source: PixelBuffer, into buffer: inout PixelBuffer) throws(MediaIOError) {
        PixelBuffer.prepare(&buffer, format: outputFormat, width: outputWidth, height: outputHeight)
        let (in0, in1, in2) = (source.stride(ofPlane: 0), source.stride(ofPlane: 1), source.stride(ofPlane: 2))
        let (out0, out1, out2) = (buffer.stride(ofPlane: 0), buffer.stride(ofPlane: 1), buffer.stride(ofPlane: 2))
        let context = self.context, height = Int32(inputHeight)
        let status = source.withPlanePointers { s0, s1, s2 in
            buffer.withMutablePlanePointers { d0, d1, d2 in
                rtenc_mediaio_scale_planes(context, height, s0, in0, s1, in1, s2, in2, d0, out0, d1, out1, d2, out2)
            }
        }
        try LibAV.check(status, .conversionFailed, "libswscale failed")
    }
}

extension PixelBuffer {
    /// Read-only pointers to up to three planes (nil for planes the format lacks); they must not escape `body`.
    func withPlanePointers<R>(
        _ body: (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) -> R
    ) -> R {
        let empty: [UInt8] = []
        let first = planes.count > 0 ? planes[0].bytes : empty
        let second = planes.count > 1 ? planes[1].bytes : empty
        let third = planes.count > 2 ? planes[2].bytes : empty
        return first.withUnsafeBufferPointer { a in
            second.withUnsafeBufferPointer { b in
                third.withUnsafeBufferPointer { c in
                    body(a.isEmpty ? nil : a.baseAddress, b.isEmpty ? nil : b.baseAddress, c.isEmpty ? nil : c.baseAddress)
                }
            }
        }
    }
}
