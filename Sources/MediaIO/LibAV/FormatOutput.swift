import Bitstream
import CLibAV
import LibAVSupport
import LibAVLog

/// An output container (`AVFormatContext` from `avformat_alloc_output_context2`, plus its `AVIOContext`) with one
/// owner. Holds exactly one video stream.
final class FormatOutput {
    let path: String
    private var context: UnsafeMutablePointer<AVFormatContext>?
    let stream: UnsafeMutablePointer<AVStream>
    private(set) var headerWritten = false
    private var finished = false

    /// - Parameters:
    ///   - formatName: libavformat muxer name ("mp4"), so the file name's extension does not matter.
    init(path: String, formatName: String) throws(MediaIOError) {
        LibAVLog.installDefaultRoute()
        self.path = path
        try LibAV.load(RTENC_LIBAVFORMAT)
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        try LibAV.check(rtenc_avformat_alloc_output_context2(&allocated, nil, formatName, path), .muxFailed,
                        "cannot set up the \(formatName) muxer")
        guard let allocated else { throw MediaIOError.make(.muxFailed, "cannot set up the \(formatName) muxer") }
        context = allocated
        guard let stream = rtenc_avformat_new_stream(allocated, nil) else {
            rtenc_avformat_free_context(allocated)
            context = nil
            throw MediaIOError.make(.muxFailed, "avformat_new_stream failed: out of memory")
        }
        self.stream = stream
        let status = rtenc_avio_open(&allocated.pointee.pb, path, AVIO_FLAG_WRITE)
        if status < 0 {
            rtenc_avformat_free_context(allocated)
            context = nil
            throw LibAV.error(.io, "cannot create \(path)", status: status)
        }
    }

    deinit {
        if let context {
            rtenc_avio_closep(&context.pointee.pb)
            rtenc_avformat_free_context(context)
        }
    }

    /// Describes the video stream: codec, size, time base, and `extradata` (the avcC or hvcC record, which the mov
    /// muxer writes as it is). H.265 gets the `hvc1` sample entry; the muxer's default for HEVC is `hev1`.
    func configureVideo(codec: VideoCodec, width: Int, height: Int, timeBase: Rational, extradata: [UInt8])
        throws(MediaIOError)
    {
        guard let parameters = stream.pointee.codecpar else {
            throw MediaIOError.make(.muxFailed, "stream has no codec parameters")
        }
        parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        switch codec {
        case .h264:
            parameters.pointee.codec_id = AV_CODEC_ID_H264
        case .hevc:
            parameters.pointee.codec_id = AV_CODEC_ID_HEVC
            parameters.pointee.codec_tag = Self.codecTag("hvc1")
        }
        parameters.pointee.width = Int32(width)
        parameters.pointee.height = Int32(height)
        stream.pointee.time_base = AVRational(timeBase)
        // libavformat frees extradata with av_free, so it must come from av_malloc, with zeroed padding.
        guard let memory = rtenc_av_mallocz(extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw MediaIOError.make(.muxFailed, "av_mallocz failed: out of memory")
        }
        let bytes = memory.assumingMemoryBound(to: UInt8.self)
        bytes.update(from: extradata, count: extradata.count)
        rtenc_av_freep(&parameters.pointee.extradata)
        parameters.pointee.extradata = bytes
        parameters.pointee.extradata_size = Int32(extradata.count)
    }

    /// libavformat's MKTAG (not importable): the first character in the lowest byte.
    static func codecTag(_ name: StaticString) -> UInt32 {
        precondition(name.utf8CodeUnitCount == 4, "codec tags are four characters")
        return name.withUTF8Buffer { $0.reversed().reduce(0) { $0 << 8 | UInt32($1) } }
    }

    func writeHeader() throws(MediaIOError) {
        try LibAV.check(rtenc_avformat_write_header(context, nil), .muxFailed, "cannot write the header of \(path)")
        headerWritten = true
    }

    /// Writes one sample; timing in ticks of `timeBase`, rescaled to the time base the muxer settled on in
    /// `avformat_write_header` (mp4 keeps 1/90000, other muxers may not). `packet` is scratch, reused per call.
    func writeSample(
        _ bytes: [UInt8], pts: Int64, dts: Int64, duration: Int64, timeBase: Rational, isKeyframe: Bool,
        using packet: OwnedPacket
    ) throws(MediaIOError) {
        let from = AVRational(timeBase), to = stream.pointee.time_base
        try packet.fill(bytes: bytes, pts: rtenc_av_rescale_q(pts, from, to), dts: rtenc_av_rescale_q(dts, from, to),
                        duration: rtenc_av_rescale_q(duration, from, to), isKeyframe: isKeyframe)
        packet.pointer.pointee.stream_index = stream.pointee.index
        try LibAV.check(rtenc_av_interleaved_write_frame(context, packet.pointer), .muxFailed, "cannot write to \(path)")
    }

    /// Writes the trailer (the moov box for MP4) and closes the file.
    func finish() throws(MediaIOError) {
        guard !finished, let context else { return }
        finished = true
        let trailer = rtenc_av_write_trailer(context)
        let closed = rtenc_avio_closep(&context.pointee.pb)
        try LibAV.check(trailer, .muxFailed, "cannot finish \(path)")
        try LibAV.check(closed, .io, "cannot close \(path)")
    }
}
