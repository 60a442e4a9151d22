import CLibAV

/// h264_vaapi through libavcodec: the VA-API device and surfaces (`VAAPISurfaces`), its options, and its rate
/// handling (FFmpeg 5.1 reads the bitrate only at open, so a new rate means a reopen). The caller's pixels are
/// copied into a pooled NV12 frame (I420 interleaved on the way), the source of the surface upload.
final class VAAPIBackend: CodecBackend {
    var encoderName: String { core.encoderName }
    var codec: VideoCodec { .h264 }
    var isHardwareAccelerated: Bool { true }
    var appliesRateLive: Bool { false }
    var maxLiveAverageBitRate: Int? { nil }
    var extradata: [UInt8] { core.extradata }
    var isOpen: Bool { core.isOpen }

    private let surfaces: VAAPISurfaces
    private let core: LibAVEncoderCore
    /// `RateControl.encoderVBV`: bit_rate follows the rate too, not only the VBV.
    private let passesBitRate: Bool

    init(_ request: BackendOpenRequest, device: String) throws(EncoderSessionError) {
        let config = request.configuration
        passesBitRate = config.rateControl == .encoderVBV
        // The device first: without one, `.hardware` fails here with the reason, before libavcodec is asked.
        surfaces = try VAAPISurfaces(path: device, width: config.width, height: config.height)
        core = try LibAVEncoderCore(encoderName: "h264_vaapi", request: request)

        guard let frames = surfaces.frames else { throw EncoderSessionError.invalidated() }
        try core.configure { context throws(EncoderSessionError) in
            // VA-API reads the rate at open only.
            context.pointee.bit_rate = Int64(request.rate.averageBitRate)
            context.pointee.hw_frames_ctx = rtenc_av_buffer_ref(frames)
            // VA-API's GOP cannot be unlimited; the session forces IDRs for its own limits anyway.
            let interval = config.live.maxKeyFrameInterval
            context.pointee.gop_size = interval > 0 ? Int32(min(interval, 1 << 20)) : 1 << 16
            context.pointee.max_b_frames = 0
        }
        core.applyRate(request.rate, includingBitRate: passesBitRate)
        // VBR honours maxrate (the default AVBR ignores it); async_depth 1 keeps one frame in flight.
        try core.setOption("rc_mode", "VBR")
        try core.setOption("async_depth", "1")
        try core.setOption("profile", config.profileLevel.profile.vaapiName)
        if let level = config.resolvedLevel {
            try core.setOption("level", level.name)
        }
        try core.open(pixelFormat: AV_PIX_FMT_VAAPI)
        try core.allocatePooledFrame(format: AV_PIX_FMT_NV12, width: config.width, height: config.height)
    }

    // MARK: Encode

    /// Kept for the next send (as libx264 would take it); FFmpeg 5.1's h264_vaapi ignores it, which is why
    /// `appliesRateLive` is false and the session reopens for a new rate.
    func setRate(_ rate: RateSettings) {
        core.setPendingRate(rate)
    }

    func send(_ buffer: PixelBuffer, pts: Int64, forceIDR: Bool) throws(EncoderSessionError) -> Double {
        guard core.isOpen else { throw EncoderSessionError.invalidated() }
        core.applyPendingRate(includingBitRate: passesBitRate)
        let frame = try core.fillPooledFrame(from: buffer, interleavingChroma: true)
        let surface = try surfaces.upload(frame)
        defer { surfaces.release() }
        return try core.send(surface, pts: pts, forceIDR: forceIDR)
    }

    func sendEndOfStream() throws(EncoderSessionError) {
        try core.sendEndOfStream()
    }

    func receive(into packets: inout [CodecPacket]) throws(EncoderSessionError) -> Double {
        try core.receive(into: &packets)
    }
}
