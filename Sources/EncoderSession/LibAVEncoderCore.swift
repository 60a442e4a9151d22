import CLibAV
import LibAVSupport
import LibAVLog

/// What every libavcodec encoder shares, whichever encoder it is: the AVCodecContext with the settings every
/// encoder takes the same way, one AVFrame and one AVPacket (reused for every frame: the steady state allocates
/// nothing but the output bytes and a few small buffer references), the send/receive loop and the pixel paths
/// (`LibAVEncoderCore+Pixels.swift`). `deinit` frees what it owns.
///
/// The backends (`X264Backend`, `VAAPIBackend`) own everything that differs between encoders: their options, the
/// rate handling, a hardware device, and which pixel path they take. This type knows no encoder by name.
final class LibAVEncoderCore {
    let encoderName: String
    /// nil once closed after a failure it cannot recover from (`sendLent`): every call then throws `.invalidated`.
    private(set) var context: UnsafeMutablePointer<AVCodecContext>?
    private var codec: UnsafePointer<AVCodec>?
    /// Software frame: the caller's pixels are copied into its pooled buffer, or, when lending, it holds only
    /// references to the caller's planes during a send.
    private(set) var frame: UnsafeMutablePointer<AVFrame>?
    private(set) var packet: UnsafeMutablePointer<AVPacket>?
    /// Packets received while taking a lent frame back from libavcodec, handed out by the next `receive`.
    var heldPackets: [CodecPacket] = []
    private(set) var extradata: [UInt8] = []
    private var pendingRate: RateSettings?
    var isOpen: Bool { context != nil }

    /// Finds `encoderName`, allocates its context, frame and packet, and sets what every encoder takes alike (size,
    /// time base, frame rate, threads, global header, no B-frames when reordering is off). On a throw, deinit frees
    /// whatever was allocated so far.
    init(encoderName: String, request: BackendOpenRequest) throws(EncoderSessionError) {
        self.encoderName = encoderName
        LibAVLog.installDefaultRoute()
        try LibAV.load(RTENC_LIBAVCODEC)
        guard let codec = rtenc_avcodec_find_encoder_by_name(encoderName) else {
            throw EncoderSessionError(
                code: .encoderNotFound, reason: "libavcodec has no \(encoderName) encoder",
                averror: rtenc_encoder_averror_encoder_not_found(),
                libavMessage: LibAV.message(for: rtenc_encoder_averror_encoder_not_found()))
        }
        self.codec = codec
        guard let context = rtenc_avcodec_alloc_context3(codec), let frame = rtenc_av_frame_alloc(),
            let packet = rtenc_av_packet_alloc()
        else {
            throw EncoderSessionError(code: .outOfMemory, reason: "allocating the codec context, frame or packet")
        }
        self.context = context
        self.frame = frame
        self.packet = packet

        let config = request.configuration
        context.pointee.width = Int32(config.width)
        context.pointee.height = Int32(config.height)
        context.pointee.time_base = AVRational(num: 1, den: Int32(clamping: config.timescale))
        let fps = config.effectiveFrameRate
        context.pointee.framerate = AVRational(num: Int32((fps * 1000).rounded()), den: 1000)
        context.pointee.thread_count = Int32(max(1, config.threadCount))
        if request.globalHeader {
            context.pointee.flags |= rtenc_encoder_flag_global_header()
        }
        let noReordering = !config.allowFrameReordering || config.realTime || config.profileLevel.profile.forbidsBFrames
        if noReordering { context.pointee.max_b_frames = 0 }
    }

    deinit {
        rtenc_avcodec_free_context(&context)
        rtenc_av_frame_free(&frame)
        rtenc_av_packet_free(&packet)
    }

    // MARK: Open

    /// Runs `body` on the context before `open` (the backend's options and rate).
    func configure(
        _ body: (UnsafeMutablePointer<AVCodecContext>) throws(EncoderSessionError) -> Void
    ) throws(EncoderSessionError) {
        guard let context else { throw EncoderSessionError.invalidated() }
        try body(context)
    }

    /// Sets an AVOption on the context or its private data (the encoder's own options).
    func setOption(_ name: String, _ value: String) throws(EncoderSessionError) {
        guard let context else { throw EncoderSessionError.invalidated() }
        try LibAV.setOption(context, name, value)
    }

    /// avcodec_open2 with the pixel format the encoder is fed; keeps the extradata (SPS/PPS with a global header).
    func open(pixelFormat: AVPixelFormat) throws(EncoderSessionError) {
        guard let context, let codec else { throw EncoderSessionError.invalidated() }
        context.pointee.pix_fmt = pixelFormat
        try LibAV.check(rtenc_avcodec_open2(context, codec, nil), "rtenc_avcodec_open2(\(encoderName))", code: .encoderOpenFailed)
        if let data = context.pointee.extradata, context.pointee.extradata_size > 0 {
            extradata = Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
        }
    }

    /// Gives the software frame a pixel buffer of its own, for the copying path. Allocated once:
    /// `av_frame_make_writable` reallocates only if the encoder still holds a reference from the previous frame (it
    /// does not: libx264 and the VA-API upload copy the pixels).
    func allocatePooledFrame(format: AVPixelFormat, width: Int, height: Int) throws(EncoderSessionError) {
        guard let frame else { throw EncoderSessionError.invalidated() }
        frame.pointee.format = format.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        try LibAV.check(rtenc_av_frame_get_buffer(frame, 0), "av_frame_get_buffer", code: .outOfMemory)
    }

    /// Frees the context (and with it every reference libavcodec holds); the core refuses every call afterwards.
    func close() {
        rtenc_avcodec_free_context(&context)
    }

    // MARK: Rate

    /// Keeps `rate` for the next frame (the session sets it between frames; `applyPendingRate` puts it on the context
    /// just before that frame goes in).
    func setPendingRate(_ rate: RateSettings) {
        pendingRate = rate
    }

    /// The rate set since the last frame, if any, onto the context (see `applyRate`).
    func applyPendingRate(includingBitRate: Bool) {
        guard let rate = pendingRate else { return }
        applyRate(rate, includingBitRate: includingBitRate)
        pendingRate = nil
    }

    /// The VBV part of the rate; bit_rate too when `includingBitRate` (libx264 compares these with its parameters
    /// before every frame and calls x264_encoder_reconfig when they differ).
    func applyRate(_ rate: RateSettings, includingBitRate: Bool) {
        guard let context else { return }
        if includingBitRate { context.pointee.bit_rate = Int64(rate.averageBitRate) }
        context.pointee.rc_max_rate = Int64(rate.maxBitRate)
        context.pointee.rc_buffer_size = Int32(clamping: rate.bufferSize)
    }

    // MARK: Send and receive

    /// avcodec_send_frame of `input` with its pts and picture type (I with forced-idr makes it an IDR). Returns µs
    /// spent inside libav's send call.
    func send(_ input: UnsafeMutablePointer<AVFrame>, pts: Int64, forceIDR: Bool) throws(EncoderSessionError) -> Double {
        guard let context else { throw EncoderSessionError.invalidated() }
        input.pointee.pts = pts
        input.pointee.pict_type = forceIDR ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        let start = monotonicMicroseconds()
        let result = rtenc_avcodec_send_frame(context, input)
        let elapsed = monotonicMicroseconds() - start
        try LibAV.check(result, "avcodec_send_frame")
        return elapsed
    }

    func sendEndOfStream() throws(EncoderSessionError) {
        guard let context else { throw EncoderSessionError.invalidated() }
        let result = rtenc_avcodec_send_frame(context, nil)
        // EOF: end of stream already signalled — nothing to do.
        if result == LibAV.endOfFile { return }
        try LibAV.check(result, "rtenc_avcodec_send_frame(NULL)")
    }

    func receive(into packets: inout [CodecPacket]) throws(EncoderSessionError) -> Double {
        guard let context, let packet else { throw EncoderSessionError.invalidated() }
        if !heldPackets.isEmpty {
            packets += heldPackets
            heldPackets.removeAll(keepingCapacity: true)
        }
        var spent = 0.0
        while true {
            let start = monotonicMicroseconds()
            let result = rtenc_avcodec_receive_packet(context, packet)
            spent += monotonicMicroseconds() - start
            if result == LibAV.again || result == LibAV.endOfFile { return spent }
            try LibAV.check(result, "avcodec_receive_packet")
            packets.append(take(packet))
        }
    }

    /// Copies a received packet's bytes out and unrefs it.
    func take(_ packet: UnsafeMutablePointer<AVPacket>) -> CodecPacket {
        let size = Int(packet.pointee.size)
        let bytes: [UInt8]
        if let data = packet.pointee.data, size > 0 {
            bytes = Array(UnsafeBufferPointer(start: data, count: size))
        } else {
            bytes = []
        }
        defer { rtenc_av_packet_unref(packet) }
        return CodecPacket(bytes: bytes, pts: packet.pointee.pts, dts: packet.pointee.dts)
    }
}
