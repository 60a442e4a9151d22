import CLibAV

/// libx264 through libavcodec: its options, its rate handling (an ABR ceiling with the VBV steered live), and the
/// caller's planes lent for the duration of `avcodec_send_frame` (no copy on our side; x264 copies them into its own
/// picture, as it does for ffmpeg's demuxed packets).
final class X264Backend: CodecBackend {
    var encoderName: String { core.encoderName }
    var codec: VideoCodec { .h264 }
    var isHardwareAccelerated: Bool { false }
    var appliesRateLive: Bool { true }
    let maxLiveAverageBitRate: Int?
    var extradata: [UInt8] { core.extradata }
    var isOpen: Bool { core.isOpen }

    private let core: LibAVEncoderCore
    /// True when `send` lends the caller's planes instead of copying them into the pooled frame.
    private let lendsPixels: Bool
    private let softwareFormat: AVPixelFormat
    /// `RateControl.encoderVBV`: live changes set bit_rate too (libx264 hands it to x264_encoder_reconfig).
    private let passesBitRateLive: Bool

    /// x264's "infinite" keyint (X264_KEYINT_MAX_INFINITE): the session places every IDR itself (forced, so a live
    /// change of maxKeyFrameInterval and the duration limit work the same way), so x264 must never add its own.
    private static let unlimitedGOP: Int32 = 1 << 30

    init(_ request: BackendOpenRequest) throws(EncoderSessionError) {
        let config = request.configuration
        lendsPixels = request.lendsPixels
        softwareFormat = config.pixelFormat == .nv12 ? AV_PIX_FMT_NV12 : AV_PIX_FMT_YUV420P
        passesBitRateLive = config.rateControl == .encoderVBV
        maxLiveAverageBitRate = passesBitRateLive ? nil : request.abrBitRate / 2
        core = try LibAVEncoderCore(encoderName: "libx264", request: request)

        let passesBitRateLive = passesBitRateLive
        try core.configure { context throws(EncoderSessionError) in
            context.pointee.gop_size = Self.unlimitedGOP
            // `.encoderVBV` opens x264 the plain way (ABR at the target, below). Otherwise: x264 keeps the ABR target
            // it is opened with (reconfig changes only the VBV), so open it well above the target and let the
            // session's controller drive maxrate; maxrate must start above the ABR target, or x264 switches to CBR
            // mode and pins maxrate to it for good. The first frame's setRate lowers it.
            guard !passesBitRateLive else { return }
            context.pointee.bit_rate = Int64(request.abrBitRate)
            context.pointee.rc_max_rate = Int64(request.abrBitRate) + Int64(request.abrBitRate / 20)
            context.pointee.rc_buffer_size = Int32(clamping: max(request.rate.bufferSize, 1000))
        }
        if passesBitRateLive { core.applyRate(request.rate, includingBitRate: true) }
        try setOptions(config)
        try core.open(pixelFormat: softwareFormat)
        // Lending: the frame gets the caller's planes per send, so it needs no pixel buffer of its own.
        if !lendsPixels {
            try core.allocatePooledFrame(format: softwareFormat, width: config.width, height: config.height)
        }
    }

    private func setOptions(_ config: Configuration) throws(EncoderSessionError) {
        try core.setOption("preset", config.preset.rawValue)
        // zerolatency: no lookahead, no B-frames, no mbtree, sliced threads — output for a frame comes out of the
        // call that submitted it.
        if config.realTime || config.maxFrameDelayCount == 0 {
            try core.setOption("tune", "zerolatency")
        }
        try core.setOption("profile", config.profileLevel.profile.x264Name)
        if let level = config.resolvedLevel {
            try core.setOption("level", level.name)
        }
        // scenecut=0: only the session decides where IDRs go (veryfast's scenecut 40 added one every 30 frames on
        // noise).
        var params = "scenecut=0" + config.profileLevel.profile.x264FeatureParams
        if let delay = config.maxFrameDelayCount, delay > 0, !config.realTime {
            params += ":rc-lookahead=\(delay):sync-lookahead=0"
        }
        try core.setOption("x264-params", params)
        // pict_type I on a frame then yields an IDR (not just an I picture).
        try core.setOption("forced-idr", "1")
    }

    // MARK: Encode

    func setRate(_ rate: RateSettings) {
        core.setPendingRate(rate)
    }

    func send(_ buffer: PixelBuffer, pts: Int64, forceIDR: Bool) throws(EncoderSessionError) -> Double {
        guard core.isOpen else { throw EncoderSessionError.invalidated() }
        // Only effective because VBV was on at open; x264 rounds to kb/s. bit_rate stays at the ABR ceiling unless the
        // encoder's own rate control was asked for.
        core.applyPendingRate(includingBitRate: passesBitRateLive)
        if lendsPixels {
            return try core.sendLending(buffer, format: softwareFormat, pts: pts, forceIDR: forceIDR)
        }
        let frame = try core.fillPooledFrame(from: buffer, interleavingChroma: false)
        return try core.send(frame, pts: pts, forceIDR: forceIDR)
    }

    func sendEndOfStream() throws(EncoderSessionError) {
        try core.sendEndOfStream()
    }

    func receive(into packets: inout [CodecPacket]) throws(EncoderSessionError) -> Double {
        try core.receive(into: &packets)
    }
}
