import CLibAV
import LibAVSupport

/// The copying path for encoders that take planar 4:2:0 only (libx265: yuv420p, yuv420p10le — no NV12): the caller's
/// planes are copied into the pooled frame as three planes, NV12's CbCr split on the way, and for a 10-bit frame
/// every 8-bit sample widened to 10 bits (× 4, little-endian 16-bit words: yuv420p10le).
extension LibAVEncoderCore {
    /// Fills the pooled frame (`allocatePooledFrame` with yuv420p for `bitDepth` 8, yuv420p10le for 10) from
    /// `buffer`, validated by the session (`PixelBuffer.validate`), so every row read is in bounds.
    func fillPlanarPooledFrame(
        from buffer: PixelBuffer, bitDepth: Int
    ) throws(EncoderSessionError) -> UnsafeMutablePointer<AVFrame> {
        guard context != nil, let frame else { throw EncoderSessionError.invalidated() }
        try LibAV.check(rtenc_av_frame_make_writable(frame), "av_frame_make_writable", code: .outOfMemory)
        let shift = bitDepth - 8
        for output in 0..<3 {
            guard let destination = rtenc_encoder_frame_plane(frame, Int32(output)) else {
                throw EncoderSessionError.invalidated()
            }
            let linesize = Int(rtenc_encoder_frame_linesize(frame, Int32(output)))
            // Where output plane `output` comes from: its own plane, or NV12's CbCr plane every other byte.
            let interleaved = buffer.format == .nv12 && output > 0
            let source = buffer.planes[interleaved ? 1 : output]
            let first = interleaved ? output - 1 : 0
            let step = interleaved ? 2 : 1
            let samples = interleaved ? buffer.rowBytes(ofPlane: 1) / 2 : buffer.rowBytes(ofPlane: output)
            source.bytes.withUnsafeBufferPointer { bytes in
                guard let base = bytes.baseAddress else { return }
                for row in 0..<buffer.rows(ofPlane: output) {
                    let input = base + row * source.bytesPerRow + first
                    let out = destination + row * linesize
                    if shift == 0 {
                        if step == 1 {
                            out.update(from: input, count: samples)
                        } else {
                            for x in 0..<samples { out[x] = input[x * step] }
                        }
                    } else {
                        // yuv420p10le: 16-bit little-endian words; linesize is in bytes and even.
                        let words = UnsafeMutableRawPointer(out)
                        for x in 0..<samples {
                            let value = UInt16(input[x * step]) << UInt16(shift)
                            words.storeBytes(of: value.littleEndian, toByteOffset: 2 * x, as: UInt16.self)
                        }
                    }
                }
            }
        }
        return frame
    }
}
