import CLibAV

/// libx265 through libavcodec 59 (FFmpeg 5.1): its options, its rate (read only at open), and its pixels (I420
/// lent for the send in Main; NV12 split into planes, and 10-bit widening for Main 10, through the pooled frame).
///
/// What FFmpeg 5.1's wrapper (libavcodec/libx265.c) does and does not do decides the shape:
/// - It sets x265's ABR target, VBV maxrate and buffer from bit_rate, rc_max_rate and rc_buffer_size at open and
///   never calls x265_encoder_reconfig: a change made between frames is ignored (measured: bit_rate, rc_max_rate
///   and rc_buffer_size lowered 4× at frame 150 of 300 left the output byte-identical to a run without the change).
///   So `appliesRateLive` is false and the session reopens the encoder for a new bitrate — the next frame is an IDR
///   at the new rate, and the 1 s windows after it are at 1.09× (down 4×) and 1.16× (up 4×) of the new target.
/// - With thread_count 2 and zerolatency, the first packet came out for the third frame (two frame threads); with
///   `frame-threads=1` each frame's packet comes out of its own `avcodec_send_frame`/`receive` pair.
/// - It passes frameNumThreads = thread_count after the tune, and frame threads delay output: real time asks for
///   one frame thread (`frame-threads=1`, parsed after) and puts the threads into x265's pool (`pools`) for
///   wavefront rows instead, so the first packet comes out of the call that submitted the first frame.
/// - pict_type I with the `forced-idr` option makes that very frame an IDR (X265_TYPE_IDR); without a global
///   header it sets repeat-headers, so VPS/SPS/PPS precede every IDR.
/// - It passes gop_size as x265's keyint (libavcodec's default 12: an IDR every 12 frames) and the closed-GOP flag
///   as open-gop (off by default: CRA, not IDR); `x265-params` is parsed after both, so `keyint=-1` and `open-gop=0`
///   there win.
/// - x265 logs to stderr itself, not through av_log: `log-level=error` keeps its banner out of rtenc's output.
final class X265Backend: CodecBackend {
    var encoderName: String { core.encoderName }
    var codec: VideoCodec { .hevc }
    var isHardwareAccelerated: Bool { false }
    var appliesRateLive: Bool { false }
    var maxLiveAverageBitRate: Int? { nil }
    var extradata: [UInt8] { core.extradata }
    var isOpen: Bool { core.isOpen }

    private let core: LibAVEncoderCore
    /// 8 (Main) or 10 (Main 10): the depth of the samples libx265 is fed.
    private let bitDepth: Int
    /// True when `send` lends the caller's I420 planes instead of copying them into the pooled frame.
    private let lendsPixels: Bool
    private let softwareFormat: AVPixelFormat

    init(_ request: BackendOpenRequest) throws(EncoderSessionError) {
        let config = request.configuration
        bitDepth = config.hevcProfileLevel.profile.bitDepth
        softwareFormat = bitDepth == 10 ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P
        // libx265 takes planar 4:2:0 only: NV12 and any widening go through the pooled frame.
        lendsPixels = request.lendsPixels && bitDepth == 8 && config.pixelFormat == .i420
        core = try LibAVEncoderCore(encoderName: "libx265", request: request)
        let rate = request.fixedRate
        core.applyRate(rate, includingBitRate: true)
        try setOptions(config, globalHeader: request.globalHeader)
        try core.open(pixelFormat: softwareFormat)
        if !lendsPixels {
            try core.allocatePooledFrame(format: softwareFormat, width: config.width, height: config.height)
        }
    }

    private func setOptions(_ config: Configuration, globalHeader: Bool) throws(EncoderSessionError) {
        try core.setOption("preset", config.preset.rawValue)
        let realTime = config.realTime || config.maxFrameDelayCount == 0
        // zerolatency: no lookahead, no B-frames, no cutree, no scenecut, one frame thread.
        if realTime { try core.setOption("tune", "zerolatency") }
        try core.setOption("profile", config.hevcProfileLevel.profile.x265Name)
        try core.setOption("forced-idr", "1")
        // keyint=-1: x265 never places an IDR itself (the session forces every one, so a live change of the
        // keyframe interval and the duration limit work alike); scenecut=0 for the same reason; open-gop=0 so an
        // intra picture x265 does write is an IDR, not a CRA; info=0 drops the ~2 KB settings SEI from the first
        // IDR (the hard cap counts every byte).
        var params = ["keyint=-1", "scenecut=0", "open-gop=0", "info=0", "log-level=error"]
        params.append("pools=\(config.threadCount)")
        if realTime {
            params.append("frame-threads=1")
        } else if let delay = config.maxFrameDelayCount, delay > 0 {
            params.append("rc-lookahead=\(delay)")
        }
        if !globalHeader { params.append("repeat-headers=1") }
        if let level = config.resolvedHEVCLevel {
            // x265 reads "3.1" as its levelIdc 31 (a number ≥ 7 would be taken as levelIdc itself).
            params.append("level-idc=\(level.name)")
            params.append("high-tier=0")
        }
        try core.setOption("x265-params", params.joined(separator: ":"))
    }

    // MARK: Encode

    /// Kept, not applied: libx265 in FFmpeg 5.1 reads the rate only at open (see the type's documentation), which is
    /// why `appliesRateLive` is false and the session reopens for a new rate.
    func setRate(_ rate: RateSettings) {
        core.setPendingRate(rate)
    }

    func send(_ buffer: PixelBuffer, pts: Int64, forceIDR: Bool) throws(EncoderSessionError) -> Double {
        guard core.isOpen else { throw EncoderSessionError.invalidated() }
        if lendsPixels {
            return try core.sendLending(buffer, format: softwareFormat, pts: pts, forceIDR: forceIDR)
        }
        let frame = try core.fillPlanarPooledFrame(from: buffer, bitDepth: bitDepth)
        return try core.send(frame, pts: pts, forceIDR: forceIDR)
    }

    func sendEndOfStream() throws(EncoderSessionError) {
        try core.sendEndOfStream()
    }

    func receive(into packets: inout [CodecPacket]) throws(EncoderSessionError) -> Double {
        try core.receive(into: &packets)
    }
}
