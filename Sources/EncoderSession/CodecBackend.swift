/// The seam between the session's state machine and an encoder implementation.
///
/// `X264Backend`, `X265Backend` and `VAAPIBackend` (each over the shared `LibAVEncoderCore`) are the real ones; the tests drive the session
/// through a fake to check open, reconfigure, reopen, flush, invalidate and fallback without libav. Everything
/// here is synchronous and single-threaded: the session calls a backend only while holding its engine lock.
protocol CodecBackend: AnyObject {
    /// "libx264", "libx265", "h264_vaapi" or "hevc_vaapi".
    var encoderName: String { get }
    /// The coding standard this encoder produces; the session opens only a backend whose codec is the
    /// configuration's.
    var codec: VideoCodec { get }
    var isHardwareAccelerated: Bool { get }
    /// True when `setRate` takes effect on the next frame; false when a new rate needs a reopen (VA-API and
    /// libx265 in FFmpeg 5.1 read the bitrate only at open).
    var appliesRateLive: Bool { get }
    /// Highest average bitrate reachable by live changes alone; above it the encoder must be reopened (x264 fixes
    /// its ABR target at open). nil: no such bound.
    var maxLiveAverageBitRate: Int? { get }
    /// Annex-B parameter sets (SPS+PPS; VPS+SPS+PPS for HEVC) from extradata when opened with `globalHeader`;
    /// empty otherwise.
    var extradata: [UInt8] { get }
    /// False once the backend has closed itself after a failure it cannot recover from (it then refuses every
    /// call): the session drops it and opens a new one for the next frame.
    var isOpen: Bool { get }

    /// Sets the rate-control parameters used from the next `send`.
    func setRate(_ rate: RateSettings)
    /// Submits one frame. `forceIDR` makes that very frame an IDR. Returns µs spent inside libav's send call.
    func send(_ buffer: PixelBuffer, pts: Int64, forceIDR: Bool) throws(EncoderSessionError) -> Double
    /// Signals end of stream; later `receive` calls drain what the encoder still holds.
    func sendEndOfStream() throws(EncoderSessionError)
    /// Appends every packet ready now to `packets`. Returns µs spent inside libav's receive calls.
    func receive(into packets: inout [CodecPacket]) throws(EncoderSessionError) -> Double
}

/// One packet out of the encoder: an Annex-B access unit.
struct CodecPacket: Sendable {
    var bytes: [UInt8]
    var pts: Int64
    var dts: Int64
}

/// What the session's rate controller hands the encoder (libavcodec's bit_rate, rc_max_rate, rc_buffer_size).
struct RateSettings: Sendable, Hashable {
    var averageBitRate: Int
    /// VBV maximum rate, bits/s.
    var maxBitRate: Int
    /// VBV buffer size, bits.
    var bufferSize: Int
}

/// Which concrete encoder to open.
enum BackendKind: Sendable, Hashable {
    case x264
    case x265
    /// h264_vaapi or hevc_vaapi, by the configuration's codec.
    case vaapi(device: String)

    /// The software encoder for `codec`.
    static func software(for codec: VideoCodec) -> BackendKind {
        switch codec {
        case .h264: .x264
        case .hevc: .x265
        }
    }
}

/// Everything needed to open a backend.
struct BackendOpenRequest: Sendable {
    var kind: BackendKind
    var configuration: Configuration
    /// The rate to encode at now (x264 starts its VBV from it).
    var rate: RateSettings
    /// The rate an encoder that reads it only at open (libx265, VA-API) keeps for its life: the controller's
    /// steady settings, not the short hold that follows a change (`RateController.fixedRateSettings`).
    var fixedRate: RateSettings
    /// The ABR target for an encoder whose VBV the rate controller drives live (x264): far above `rate`, so the
    /// VBV maxrate is what binds (`RateController`).
    var abrBitRate: Int
    /// AV_CODEC_FLAG_GLOBAL_HEADER: SPS/PPS in extradata instead of in-band (AVCC output).
    var globalHeader: Bool
    /// Software encoder: lend the caller's planes to libavcodec for the send instead of copying them into a pooled
    /// frame (`LibAVEncoderCore.sendLending`). Tests turn it off to compare with the copying path.
    var lendsPixels = true
}

/// Opens backends; the session holds one of these so tests can substitute a fake.
protocol CodecBackendFactory: Sendable {
    func open(_ request: BackendOpenRequest) throws(EncoderSessionError) -> any CodecBackend
}

/// The real encoders: one backend type per encoder, picked by `BackendKind`.
struct LibAVBackendFactory: CodecBackendFactory {
    func open(_ request: BackendOpenRequest) throws(EncoderSessionError) -> any CodecBackend {
        switch request.kind {
        case .x264: try X264Backend(request)
        case .x265: try X265Backend(request)
        case .vaapi(let device): try VAAPIBackend(request, device: device)
        }
    }
}
