import CLibAV

/// h264_vaapi and hevc_vaapi through libavcodec: the VA-API device and surfaces (`VAAPISurfaces`), their options,
/// and their rate handling (FFmpeg 5.1 reads the bitrate only at open, so a new rate means a reopen). The caller's
/// pixels are copied into a pooled NV12 frame (I420 interleaved on the way), the source of the surface upload.
final class VAAPIBackend: CodecBackend {
    var encoderName: String { core.encoderName }
    let codec: VideoCodec
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
        codec = config.codec
        passesBitRate = config.rateControl == .encoderVBV
        let options = try Self.profileAndLevel(config)
        // The device first: without one, `.hardware` fails here with the reason, before libavcodec is asked.
        surfaces = try VAAPISurfaces(path: device, width: config.width, height: config.height)
        core = try LibAVEncoderCore(encoderName: codec == .hevc ? "hevc_vaapi" : "h264_vaapi", request: request)

        guard let frames = surfaces.frames else { throw EncoderSessionError.invalidated() }
        let rate = request.fixedRate
        try core.configure { context throws(EncoderSessionError) in
            // VA-API reads the rate at open only.
            context.pointee.bit_rate = Int64(rate.averageBitRate)
            context.pointee.hw_frames_ctx = rtenc_av_buffer_ref(frames)
            // VA-API's GOP cannot be unlimited; the session forces IDRs for its own limits anyway.
            let interval = config.live.maxKeyFrameInterval
            context.pointee.gop_size = interval > 0 ? Int32(min(interval, 1 << 20)) : 1 << 16
            context.pointee.max_b_frames = 0
        }
        core.applyRate(rate, includingBitRate: passesBitRate)
        // VBR honours maxrate (the default AVBR ignores it); async_depth 1 keeps one frame in flight.
        try core.setOption("rc_mode", "VBR")
        try core.setOption("async_depth", "1")
        try core.setOption("profile", options.profile)
        if let level = options.level { try core.setOption("level", level) }
        try core.open(pixelFormat: AV_PIX_FMT_VAAPI)
        try core.allocatePooledFrame(format: AV_PIX_FMT_NV12, width: config.width, height: config.height)
    }

    /// The `profile` and `level` option values ("main", "3.1" for h264_vaapi, "93" for hevc_vaapi). HEVC Main 10
    /// is refused: it needs P010 surfaces, and the upload here is NV12 (8-bit) — with `.automatic` the session then
    /// uses libx265, which widens the samples itself.
    static func profileAndLevel(_ config: Configuration) throws(EncoderSessionError) -> (profile: String, level: String?) {
        switch config.codec {
        case .h264:
            return (config.profileLevel.profile.vaapiName, config.resolvedLevel?.name)
        case .hevc:
            guard config.hevcProfileLevel.profile == .main else {
                throw EncoderSessionError(
                    code: .hardwareUnavailable,
                    reason: "hevc_vaapi encodes Main only here (\(config.hevcProfileLevel.profile.name) needs "
                        + "10-bit P010 surfaces; the upload is 8-bit NV12)")
            }
            // hevc_vaapi's level is general_level_idc itself (its named constants map "3.1" to 93).
            return ("main", config.resolvedHEVCLevel.map { "\($0.generalLevelIdc)" })
        }
    }

    // MARK: Encode

    /// Kept for the next send (as libx264 would take it); FFmpeg 5.1's VA-API encoders ignore it, which is why
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
