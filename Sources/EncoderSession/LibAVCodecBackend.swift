#if canImport(Glibc)
import Glibc
#endif
import CLibAV
import LibAVLog

/// libx264 or h264_vaapi through libavcodec: the only type in the module that calls libavcodec.
///
/// Owns its AVCodecContext, one AVFrame and one AVPacket (reused for every frame: the steady state allocates
/// nothing but the output bytes and a few small buffer references), and for VA-API the device and frames contexts;
/// `deinit` frees them all.
///
/// Pixels: libx264 gets the caller's planes lent for the duration of `avcodec_send_frame` (no copy on our side;
/// x264 copies them into its own picture, as it does for ffmpeg's demuxed packets). VA-API copies them into a pooled
/// NV12 frame, the source of the surface upload.
final class LibAVCodecBackend: CodecBackend {
    let encoderName: String
    let isHardwareAccelerated: Bool
    var appliesRateLive: Bool { !isHardwareAccelerated }
    private(set) var maxLiveAverageBitRate: Int?
    private(set) var extradata: [UInt8] = []
    var isOpen: Bool { context != nil }

    private var context: UnsafeMutablePointer<AVCodecContext>?
    /// Software frame: the caller's pixels are copied into its pooled buffer (VA-API: the upload source), or, when
    /// lending, it holds only references to the caller's planes during a send.
    private var frame: UnsafeMutablePointer<AVFrame>?
    /// True when `send` lends the caller's planes instead of copying them (libx264).
    private let lendsPixels: Bool
    private let softwareFormat: AVPixelFormat
    /// Packets received while taking a lent frame back from libavcodec, handed out by the next `receive`.
    private var heldPackets: [CodecPacket] = []
    /// VA-API surface frame, re-filled from the frames context's pool per frame.
    private var hardwareFrame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var hardwareDevice: UnsafeMutablePointer<AVBufferRef>?
    private var hardwareFrames: UnsafeMutablePointer<AVBufferRef>?
    private var pendingRate: RateSettings?
    /// `RateControl.encoderVBV`: live changes set bit_rate too (libx264 hands it to x264_encoder_reconfig).
    private var passesBitRateLive = false

    /// x264's "infinite" keyint (X264_KEYINT_MAX_INFINITE): the session places every IDR itself (forced, so a live
    /// change of maxKeyFrameInterval and the duration limit work the same way), so x264 must never add its own.
    private static let unlimitedGOP: Int32 = 1 << 30

    init(_ request: BackendOpenRequest) throws(EncoderSessionError) {
        switch request.kind {
        case .x264:
            encoderName = "libx264"
            isHardwareAccelerated = false
        case .vaapi:
            encoderName = "h264_vaapi"
            isHardwareAccelerated = true
        }
        lendsPixels = request.lendsPixels && !isHardwareAccelerated
        softwareFormat =
            isHardwareAccelerated || request.configuration.pixelFormat == .nv12 ? AV_PIX_FMT_NV12 : AV_PIX_FMT_YUV420P
        // On a throw below, deinit still runs and frees whatever was allocated so far.
        try open(request)
    }

    deinit {
        avcodec_free_context(&context)
        av_frame_free(&frame)
        av_frame_free(&hardwareFrame)
        av_packet_free(&packet)
        av_buffer_unref(&hardwareFrames)
        av_buffer_unref(&hardwareDevice)
    }

    // MARK: Open

    private func open(_ request: BackendOpenRequest) throws(EncoderSessionError) {
        LibAVLog.installDefaultRoute()
        let config = request.configuration
        if case .vaapi(let device) = request.kind {
            try openDevice(device, width: config.width, height: config.height)
        }
        guard let codec = avcodec_find_encoder_by_name(encoderName) else {
            throw EncoderSessionError(
                code: .encoderNotFound, reason: "libavcodec has no \(encoderName) encoder",
                averror: rtenc_encoder_averror_encoder_not_found(),
                libavMessage: LibAV.message(for: rtenc_encoder_averror_encoder_not_found()))
        }
        guard let context = avcodec_alloc_context3(codec), let frame = av_frame_alloc(),
            let packet = av_packet_alloc()
        else {
            throw EncoderSessionError(code: .outOfMemory, reason: "allocating the codec context, frame or packet")
        }
        self.context = context
        self.frame = frame
        self.packet = packet

        let swFormat = softwareFormat
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
        passesBitRateLive = config.rateControl == .encoderVBV
        if isHardwareAccelerated || passesBitRateLive {
            // VA-API reads the rate at open only; `.encoderVBV` opens x264 the plain way (ABR at the target).
            context.pointee.bit_rate = Int64(request.rate.averageBitRate)
            apply(request.rate, to: context)
        } else {
            // x264 keeps the ABR target it is opened with (reconfig changes only the VBV), so open it well above
            // the target and let the session's controller drive maxrate; maxrate must start above the ABR target,
            // or x264 switches to CBR mode and pins maxrate to it for good. The first frame's setRate lowers it.
            context.pointee.bit_rate = Int64(request.abrBitRate)
            context.pointee.rc_max_rate = Int64(request.abrBitRate) + Int64(request.abrBitRate / 20)
            context.pointee.rc_buffer_size = Int32(clamping: max(request.rate.bufferSize, 1000))
            maxLiveAverageBitRate = request.abrBitRate / 2
        }

        if isHardwareAccelerated {
            try configureVAAPI(context, config: config)
        } else {
            try configureX264(context, config: config)
        }
        context.pointee.pix_fmt = isHardwareAccelerated ? AV_PIX_FMT_VAAPI : swFormat

        try LibAV.check(avcodec_open2(context, codec, nil), "avcodec_open2(\(encoderName))", code: .encoderOpenFailed)

        if let data = context.pointee.extradata, context.pointee.extradata_size > 0 {
            extradata = Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
        }
        // Lending: the frame gets the caller's planes per send, so it needs no pixel buffer of its own.
        if lendsPixels { return }
        // The pooled input frame: allocated once; `av_frame_make_writable` reallocates only if the encoder still
        // holds a reference from the previous frame (it does not: libx264 and VA-API upload copy the pixels).
        frame.pointee.format = swFormat.rawValue
        frame.pointee.width = Int32(config.width)
        frame.pointee.height = Int32(config.height)
        try LibAV.check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer", code: .outOfMemory)
    }

    private func configureX264(
        _ context: UnsafeMutablePointer<AVCodecContext>, config: Configuration
    ) throws(EncoderSessionError) {
        context.pointee.gop_size = Self.unlimitedGOP
        try LibAV.setOption(context, "preset", config.preset.rawValue)
        // zerolatency: no lookahead, no B-frames, no mbtree, sliced threads — output for a frame comes out of the
        // call that submitted it.
        if config.realTime || config.maxFrameDelayCount == 0 {
            try LibAV.setOption(context, "tune", "zerolatency")
        }
        try LibAV.setOption(context, "profile", config.profileLevel.profile.x264Name)
        if let level = config.resolvedLevel {
            try LibAV.setOption(context, "level", level.name)
        }
        // scenecut=0: only the session decides where IDRs go (veryfast's scenecut 40 added one every 30 frames on
        // noise).
        var params = "scenecut=0" + config.profileLevel.profile.x264FeatureParams
        if let delay = config.maxFrameDelayCount, delay > 0, !config.realTime {
            params += ":rc-lookahead=\(delay):sync-lookahead=0"
        }
        try LibAV.setOption(context, "x264-params", params)
        // pict_type I on a frame then yields an IDR (not just an I picture).
        try LibAV.setOption(context, "forced-idr", "1")
    }

    private func configureVAAPI(
        _ context: UnsafeMutablePointer<AVCodecContext>, config: Configuration
    ) throws(EncoderSessionError) {
        guard let frames = hardwareFrames else { return }
        context.pointee.hw_frames_ctx = av_buffer_ref(frames)
        // VA-API's GOP cannot be unlimited; the session forces IDRs for its own limits anyway.
        let interval = config.live.maxKeyFrameInterval
        context.pointee.gop_size = interval > 0 ? Int32(min(interval, 1 << 20)) : 1 << 16
        context.pointee.max_b_frames = 0
        // VBR honours maxrate (the default AVBR ignores it); async_depth 1 keeps one frame in flight.
        try LibAV.setOption(context, "rc_mode", "VBR")
        try LibAV.setOption(context, "async_depth", "1")
        try LibAV.setOption(context, "profile", config.profileLevel.profile.vaapiName)
        if let level = config.resolvedLevel {
            try LibAV.setOption(context, "level", level.name)
        }
    }

    /// av_hwdevice_ctx_create + a NV12 frames context. Without a usable device this is where `.hardware` fails.
    private func openDevice(_ device: String, width: Int, height: Int) throws(EncoderSessionError) {
        var deviceRef: UnsafeMutablePointer<AVBufferRef>?
        let result = av_hwdevice_ctx_create(&deviceRef, AV_HWDEVICE_TYPE_VAAPI, device, nil, 0)
        guard result >= 0, let deviceRef else {
            // FFmpeg says "Invalid argument" for a node that is not there; say what is missing, as `probe` does.
            if let missing = Self.firstMissingComponent(of: device) {
                throw EncoderSessionError(
                    code: .hardwareUnavailable, reason: "VA-API unavailable: no VA-API device (\(missing) does not exist)")
            }
            throw LibAV.error(
                .hardwareUnavailable, "VA-API unavailable: no usable VA display for \(device)", averror: result)
        }
        hardwareDevice = deviceRef
        var framesRef: UnsafeMutablePointer<AVBufferRef>?
        let framesResult = rtenc_encoder_vaapi_frames_ctx(deviceRef, Int32(width), Int32(height), 20, &framesRef)
        guard framesResult >= 0, let framesRef else {
            throw LibAV.error(
                .hardwareUnavailable, "VA-API unavailable: cannot create NV12 surfaces on \(device)",
                averror: framesResult)
        }
        hardwareFrames = framesRef
        guard let surface = av_frame_alloc() else {
            throw EncoderSessionError(code: .outOfMemory, reason: "allocating the VA-API surface frame")
        }
        hardwareFrame = surface
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

    /// The VBV part of the rate (bit_rate is left as opened, see `open`, unless the encoder's own rate control is
    /// asked for).
    private func apply(_ rate: RateSettings, to context: UnsafeMutablePointer<AVCodecContext>) {
        if passesBitRateLive { context.pointee.bit_rate = Int64(rate.averageBitRate) }
        context.pointee.rc_max_rate = Int64(rate.maxBitRate)
        context.pointee.rc_buffer_size = Int32(clamping: rate.bufferSize)
    }

    // MARK: Encode

    func setRate(_ rate: RateSettings) {
        pendingRate = rate
    }

    func send(_ buffer: PixelBuffer, pts: Int64, forceIDR: Bool) throws(EncoderSessionError) -> Double {
        guard let context, let frame else { throw EncoderSessionError.invalidated() }
        if let rate = pendingRate {
            // libx264 compares these with its parameters before every frame and calls x264_encoder_reconfig when
            // they differ (only effective because VBV was on at open; x264 rounds to kb/s).
            apply(rate, to: context)
            pendingRate = nil
        }
        if lendsPixels { return try sendLending(buffer, pts: pts, forceIDR: forceIDR, frame: frame) }
        try LibAV.check(av_frame_make_writable(frame), "av_frame_make_writable", code: .outOfMemory)
        copy(buffer, into: frame)
        var input = frame
        if isHardwareAccelerated {
            guard let hardwareFrame, let hardwareFrames else { throw EncoderSessionError.invalidated() }
            av_frame_unref(hardwareFrame)
            try LibAV.check(av_hwframe_get_buffer(hardwareFrames, hardwareFrame, 0), "av_hwframe_get_buffer")
            try LibAV.check(av_hwframe_transfer_data(hardwareFrame, frame, 0), "av_hwframe_transfer_data")
            input = hardwareFrame
        }
        input.pointee.pts = pts
        input.pointee.pict_type = forceIDR ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        let start = monotonicMicroseconds()
        let result = avcodec_send_frame(context, input)
        let elapsed = monotonicMicroseconds() - start
        if isHardwareAccelerated, let hardwareFrame { av_frame_unref(hardwareFrame) }
        try LibAV.check(result, "avcodec_send_frame")
        return elapsed
    }

    func sendEndOfStream() throws(EncoderSessionError) {
        guard let context else { throw EncoderSessionError.invalidated() }
        let result = avcodec_send_frame(context, nil)
        // EOF: end of stream already signalled — nothing to do.
        if result == LibAV.endOfFile { return }
        try LibAV.check(result, "avcodec_send_frame(NULL)")
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
            let result = avcodec_receive_packet(context, packet)
            spent += monotonicMicroseconds() - start
            if result == LibAV.again || result == LibAV.endOfFile { return spent }
            try LibAV.check(result, "avcodec_receive_packet")
            packets.append(take(packet))
        }
    }

    /// Copies a received packet's bytes out and unrefs it.
    private func take(_ packet: UnsafeMutablePointer<AVPacket>) -> CodecPacket {
        let size = Int(packet.pointee.size)
        let bytes: [UInt8]
        if let data = packet.pointee.data, size > 0 {
            bytes = Array(UnsafeBufferPointer(start: data, count: size))
        } else {
            bytes = []
        }
        defer { av_packet_unref(packet) }
        return CodecPacket(bytes: bytes, pts: packet.pointee.pts, dts: packet.pointee.dts)
    }

    // MARK: Lending (libx264)

    /// Sends the caller's planes to libavcodec without copying them.
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
    private func sendLending(
        _ buffer: PixelBuffer, pts: Int64, forceIDR: Bool, frame: UnsafeMutablePointer<AVFrame>
    ) throws(EncoderSessionError) -> Double {
        let planes = buffer.planes
        let strides = planes.map(\.bytesPerRow)
        var result: Result<Double, EncoderSessionError> = .failure(.invalidated())
        planes[0].bytes.withUnsafeBufferPointer { luma in
            planes[1].bytes.withUnsafeBufferPointer { chroma in
                guard planes.count > 2 else {
                    result = sendLent([luma, chroma], strides: strides, of: buffer, pts: pts, forceIDR: forceIDR, frame: frame)
                    return
                }
                planes[2].bytes.withUnsafeBufferPointer { cr in
                    result = sendLent(
                        [luma, chroma, cr], strides: strides, of: buffer, pts: pts, forceIDR: forceIDR, frame: frame)
                }
            }
        }
        return try result.get()
    }

    /// The part of `sendLending` that runs while the plane pointers are valid.
    private func sendLent(
        _ planes: [UnsafeBufferPointer<UInt8>], strides: [Int], of buffer: PixelBuffer, pts: Int64, forceIDR: Bool,
        frame: UnsafeMutablePointer<AVFrame>
    ) -> Result<Double, EncoderSessionError> {
        guard let context, let packet else { return .failure(.invalidated()) }
        // The session validated the buffer (rows inside each plane); libavcodec's linesize is an Int32.
        guard strides.allSatisfy({ $0 <= Int(Int32.max) }) else {
            return .failure(.invalidPixelBuffer("bytesPerRow above \(Int32.max) cannot be handed to libavcodec"))
        }
        // libavcodec and x264 only read input pictures (the buffers are flagged read-only), so the mutable pointers
        // libavcodec's AVFrame wants never write through.
        let pointers = planes.map { UnsafeMutablePointer(mutating: $0.baseAddress) }
        let linesizes = strides.map { Int32($0) }
        let sizes = planes.map(\.count)
        let lent = rtenc_encoder_lend_planes(
            frame, softwareFormat.rawValue, Int32(buffer.width), Int32(buffer.height), Int32(planes.count), pointers,
            linesizes, sizes)
        guard lent >= 0 else { return .failure(LibAV.error(.outOfMemory, "lending the frame's planes", averror: lent)) }
        frame.pointee.pts = pts
        frame.pointee.pict_type = forceIDR ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        let start = monotonicMicroseconds()
        let status = avcodec_send_frame(context, frame)
        // Take the planes back (see `sendLending`).
        while rtenc_encoder_frame_is_shared(frame) != 0, avcodec_receive_packet(context, packet) >= 0 {
            heldPackets.append(take(packet))
        }
        let elapsed = monotonicMicroseconds() - start
        guard rtenc_encoder_frame_is_shared(frame) == 0 else {
            av_frame_unref(frame)
            avcodec_free_context(&self.context)
            return .failure(
                EncoderSessionError(
                    code: .encodeFailed, reason: "\(encoderName) kept a reference to the caller's pixels; encoder closed"))
        }
        av_frame_unref(frame)
        guard status >= 0 else { return .failure(LibAV.error(.encodeFailed, "avcodec_send_frame failed", averror: status)) }
        return .success(elapsed)
    }

    /// Copies the caller's planes row by row into the pooled frame (I420 is interleaved into NV12 for VA-API).
    /// The buffer was validated by the session (`PixelBuffer.validate`), so every row read is in bounds.
    private func copy(_ buffer: PixelBuffer, into frame: UnsafeMutablePointer<AVFrame>) {
        let interleave = isHardwareAccelerated && buffer.format == .i420
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
        guard interleave, let destination = rtenc_encoder_frame_plane(frame, 1) else { return }
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
    }
}
