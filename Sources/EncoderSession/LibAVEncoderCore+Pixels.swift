import CLibAV
import LibAVSupport

/// The two ways the caller's pixels reach libavcodec: lent for the duration of the send (no copy on our side), or
/// copied into the pooled software frame.
extension LibAVEncoderCore {
    // MARK: Lending

    /// Sends the caller's planes to libavcodec without copying them; `format` is the software format the encoder
    /// was opened with.
    ///
    /// Why this is sound under Swift's memory rules: the plane pointers come from `withUnsafeBufferPointer` and are
    /// used only inside those closures. There the frame gets AVBufferRefs to the planes (read-only, with a free
    /// callback that does nothing), so libavcodec takes references (`av_frame_ref`) instead of copying, and
    /// avcodec_send_frame runs libx264's encode callback itself when libavcodec's one-packet output slot is empty;
    /// x264_encoder_encode copies the pixels into x264's own picture. The slot is empty because the engine receives
    /// until EAGAIN after every send, so the frame is consumed inside the call. Before the closures return the
    /// buffers' reference counts are checked: if libavcodec still holds the frame, packets are received (and kept for
    /// the next `receive`) until it lets go; if it still does not, the codec context is freed — dropping every
    /// reference libavcodec held — and the send fails. Either way nothing refers to the caller's memory afterwards.
    func sendLending(
        _ buffer: PixelBuffer, format: AVPixelFormat, pts: Int64, forceIDR: Bool
    ) throws(EncoderSessionError) -> Double {
        guard let frame else { throw EncoderSessionError.invalidated() }
        let planes = buffer.planes
        let strides = planes.map(\.bytesPerRow)
        var result: Result<Double, EncoderSessionError> = .failure(.invalidated())
        planes[0].bytes.withUnsafeBufferPointer { luma in
            planes[1].bytes.withUnsafeBufferPointer { chroma in
                guard planes.count > 2 else {
                    result = sendLent(
                        [luma, chroma], strides: strides, of: buffer, format: format, pts: pts, forceIDR: forceIDR,
                        frame: frame)
                    return
                }
                planes[2].bytes.withUnsafeBufferPointer { cr in
                    result = sendLent(
                        [luma, chroma, cr], strides: strides, of: buffer, format: format, pts: pts, forceIDR: forceIDR,
                        frame: frame)
                }
            }
        }
        return try result.get()
    }

    /// The part of `sendLending` that runs while the plane pointers are valid.
    private func sendLent(
        _ planes: [UnsafeBufferPointer<UInt8>], strides: [Int], of buffer: PixelBuffer, format: AVPixelFormat,
        pts: Int64, forceIDR: Bool, frame: UnsafeMutablePointer<AVFrame>
    ) -> Result<Double, EncoderSessionError> {
        guard let context, let packet else { return .failure(.invalidated()) }
        // The session validated the buffer (rows inside each plane); libavcodec's linesize is an Int32.
        guard strides.allSatisfy({ $0 <= Int(Int32.max) }) else {
            return .failure(.make(.invalidPixelBuffer, "bytesPerRow above \(Int32.max) cannot be handed to libavcodec"))
        }
        // libavcodec and x264 only read input pictures (the buffers are flagged read-only), so the mutable pointers
        // libavcodec's AVFrame wants never write through.
        let pointers = planes.map { UnsafeMutablePointer(mutating: $0.baseAddress) }
        let linesizes = strides.map { Int32($0) }
        let sizes = planes.map(\.count)
        let lent = rtenc_encoder_lend_planes(
            frame, format.rawValue, Int32(buffer.width), Int32(buffer.height), Int32(planes.count), pointers,
            linesizes, sizes)
        guard lent >= 0 else { return .failure(LibAV.error(.outOfMemory, "lending the frame's planes", averror: lent)) }
        frame.pointee.pts = pts
        frame.pointee.pict_type = forceIDR ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        let start = monotonicMicroseconds()
        let status = rtenc_avcodec_send_frame(context, frame)
        // Take the planes back (see `sendLending`).
        while rtenc_encoder_frame_is_shared(frame) != 0, rtenc_avcodec_receive_packet(context, packet) >= 0 {
            heldPackets.append(take(packet))
        }
        let elapsed = monotonicMicroseconds() - start
        guard rtenc_encoder_frame_is_shared(frame) == 0 else {
            rtenc_av_frame_unref(frame)
            close()
            return .failure(
                EncoderSessionError(
                    code: .encodeFailed, reason: "\(encoderName) kept a reference to the caller's pixels; encoder closed"))
        }
        rtenc_av_frame_unref(frame)
        guard status >= 0 else { return .failure(LibAV.error(.encodeFailed, "avcodec_send_frame failed", averror: status)) }
        return .success(elapsed)
    }

    // MARK: Copying

    /// Copies the caller's planes row by row into the pooled frame (`allocatePooledFrame`) and returns it; with
    /// `interleavingChroma` an I420 buffer's Cb and Cr planes become one NV12 CbCr plane. The buffer was validated by
    /// the session (`PixelBuffer.validate`), so every row read is in bounds.
    func fillPooledFrame(
        from buffer: PixelBuffer, interleavingChroma: Bool
    ) throws(EncoderSessionError) -> UnsafeMutablePointer<AVFrame> {
        guard context != nil, let frame else { throw EncoderSessionError.invalidated() }
        try LibAV.check(rtenc_av_frame_make_writable(frame), "av_frame_make_writable", code: .outOfMemory)
        let interleave = interleavingChroma && buffer.format == .i420
        let directPlanes = interleave ? 1 : buffer.planes.count
        for index in 0..<directPlanes {
            guard let destination = rtenc_encoder_frame_plane(frame, Int32(index)) else { continue }
            let linesize = Int(rtenc_encoder_frame_linesize(frame, Int32(index)))
            let plane = buffer.planes[index]
            let rowBytes = buffer.rowBytes(ofPlane: index)
            plane.bytes.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress else { return }
                for row in 0..<buffer.rows(ofPlane: index) {
                    (destination + row * linesize).update(from: base + row * plane.bytesPerRow, count: rowBytes)
                }
            }
        }
        guard interleave, let destination = rtenc_encoder_frame_plane(frame, 1) else { return frame }
        let linesize = Int(rtenc_encoder_frame_linesize(frame, 1))
        let cb = buffer.planes[1]
        let cr = buffer.planes[2]
        let width = buffer.rowBytes(ofPlane: 1)
        cb.bytes.withUnsafeBufferPointer { cbBytes in
            cr.bytes.withUnsafeBufferPointer { crBytes in
                for row in 0..<buffer.rows(ofPlane: 1) {
                    let out = destination + row * linesize
                    for x in 0..<width {
                        out[2 * x] = cbBytes[row * cb.bytesPerRow + x]
                        out[2 * x + 1] = crBytes[row * cr.bytesPerRow + x]
                    }
                }
            }
        }
        return frame
    }
}
