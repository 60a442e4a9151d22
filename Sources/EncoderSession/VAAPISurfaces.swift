#if canImport(Glibc)
import Glibc
#endif
import CLibAV
import LibAVSupport

/// A VA-API device (av_hwdevice_ctx_create), an NV12 frames context on it, and the one surface frame re-filled from
/// that pool per frame. `deinit` frees all three (the codec context holds its own reference to the frames context).
final class VAAPISurfaces {
    let device: UnsafeMutablePointer<AVBufferRef>
    private(set) var frames: UnsafeMutablePointer<AVBufferRef>?
    private(set) var surface: UnsafeMutablePointer<AVFrame>?

    /// Opens `path` (a DRM render node). Without a usable device this is where `.hardware` fails.
    init(path: String, width: Int, height: Int) throws(EncoderSessionError) {
        var deviceRef: UnsafeMutablePointer<AVBufferRef>?
        let result = rtenc_av_hwdevice_ctx_create(&deviceRef, AV_HWDEVICE_TYPE_VAAPI, path, nil, 0)
        guard result >= 0, let deviceRef else {
            // FFmpeg says "Invalid argument" for a node that is not there; say what is missing, as `probe` does.
            if let missing = Self.firstMissingComponent(of: path) {
                throw EncoderSessionError(
                    code: .hardwareUnavailable, reason: "VA-API unavailable: no VA-API device (\(missing) does not exist)")
            }
            throw LibAV.error(
                .hardwareUnavailable, "VA-API unavailable: no usable VA display for \(path)", averror: result)
        }
        device = deviceRef
        // From here on deinit runs on a throw and frees what was made.
        var framesRef: UnsafeMutablePointer<AVBufferRef>?
        let framesResult = rtenc_encoder_vaapi_frames_ctx(deviceRef, Int32(width), Int32(height), 20, &framesRef)
        guard framesResult >= 0, let framesRef else {
            throw LibAV.error(
                .hardwareUnavailable, "VA-API unavailable: cannot create NV12 surfaces on \(path)",
                averror: framesResult)
        }
        frames = framesRef
        guard let surface = rtenc_av_frame_alloc() else {
            throw EncoderSessionError(code: .outOfMemory, reason: "allocating the VA-API surface frame")
        }
        self.surface = surface
    }

    deinit {
        rtenc_av_frame_free(&surface)
        rtenc_av_buffer_unref(&frames)
        var device: UnsafeMutablePointer<AVBufferRef>? = device
        rtenc_av_buffer_unref(&device)
    }

    /// Uploads the software frame `source` (NV12) into a pooled surface and returns it; `release` gives the surface
    /// back to the pool after the send.
    func upload(_ source: UnsafeMutablePointer<AVFrame>) throws(EncoderSessionError) -> UnsafeMutablePointer<AVFrame> {
        guard let surface, let frames else { throw EncoderSessionError.invalidated() }
        rtenc_av_frame_unref(surface)
        try LibAV.check(rtenc_av_hwframe_get_buffer(frames, surface, 0), "av_hwframe_get_buffer")
        try LibAV.check(rtenc_av_hwframe_transfer_data(surface, source, 0), "av_hwframe_transfer_data")
        return surface
    }

    func release() {
        if let surface { rtenc_av_frame_unref(surface) }
    }

    /// The shortest prefix of `path` that does not exist ("/dev/dri" on a machine without a GPU driver), nil when
    /// the whole path exists or a prefix cannot be checked for another reason (then libav's own reason stands).
    static func firstMissingComponent(of path: String) -> String? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            if access(prefix, F_OK) != 0 { return errno == ENOENT ? prefix : nil }
        }
        return nil
    }
}
