import CLibAV
import LibAVSupport
import LibAVLog

/// A libavcodec decoder for one stream (`AVCodecContext`) with one owner.
///
/// `send`/`receive` mirror libavcodec's loop; "needs input" and "drained" are results, not errors.
final class VideoDecoder {
    enum Output {
        case frame
        case needsInput
        case drained
    }

    private var context: UnsafeMutablePointer<AVCodecContext>?
    let name: String

    init(stream: UnsafeMutablePointer<AVStream>, threads: Int = 0) throws(MediaIOError) {
        try LibAV.load(RTENC_LIBAVCODEC)
        guard let parameters = stream.pointee.codecpar else {
            throw MediaIOError.make(.decodeFailed, "stream has no codec parameters")
        }
        guard let codec = rtenc_avcodec_find_decoder(parameters.pointee.codec_id) else {
            let codecName = String(cString: rtenc_avcodec_get_name(parameters.pointee.codec_id))
            throw MediaIOError.make(.decodeFailed, "no decoder for \(codecName) in this libavcodec")
        }
        name = String(cString: codec.pointee.name)
        guard let allocated = rtenc_avcodec_alloc_context3(codec) else {
            throw MediaIOError.make(.decodeFailed, "avcodec_alloc_context3 failed: out of memory")
        }
        context = allocated
        try LibAV.check(rtenc_avcodec_parameters_to_context(allocated, parameters), .decodeFailed,
                        "cannot configure the \(name) decoder")
        allocated.pointee.pkt_timebase = stream.pointee.time_base
        allocated.pointee.thread_count = Int32(threads) // 0: libavcodec picks one per core
        try LibAV.check(rtenc_avcodec_open2(allocated, codec, nil), .decodeFailed, "cannot open the \(name) decoder")
    }

    /// A decoder for an elementary stream with no container around it (Annex-B H.264 from RTP): the parameter sets
    /// arrive in band.
    init(codecID: AVCodecID, threads: Int = 1) throws(MediaIOError) {
        LibAVLog.installDefaultRoute()
        try LibAV.load(RTENC_LIBAVCODEC)
        guard let codec = rtenc_avcodec_find_decoder(codecID) else {
            throw MediaIOError.make(.decodeFailed, "no decoder for \(String(cString: rtenc_avcodec_get_name(codecID)))")
        }
        name = String(cString: codec.pointee.name)
        guard let allocated = rtenc_avcodec_alloc_context3(codec) else {
            throw MediaIOError.make(.decodeFailed, "avcodec_alloc_context3 failed: out of memory")
        }
        context = allocated
        allocated.pointee.thread_count = Int32(threads)
        try LibAV.check(rtenc_avcodec_open2(allocated, codec, nil), .decodeFailed, "cannot open the \(name) decoder")
    }

    deinit {
        rtenc_avcodec_free_context(&context)
    }

    /// Sends a packet, or nil to start draining.
    func send(_ packet: OwnedPacket?) throws(MediaIOError) {
        let status = rtenc_avcodec_send_packet(context, packet?.pointer)
        // EAGAIN cannot happen here since the caller receives until `needsInput` before sending again;
        // EOF means drain was already requested, which is harmless to repeat.
        if status == LibAV.endOfFile { return }
        try LibAV.check(status, .decodeFailed, "the \(name) decoder rejected the input (corrupt data?)")
    }

    func receive(into frame: OwnedFrame) throws(MediaIOError) -> Output {
        frame.unref()
        let status = rtenc_avcodec_receive_frame(context, frame.pointer)
        if status == LibAV.again { return .needsInput }
        if status == LibAV.endOfFile { return .drained }
        try LibAV.check(status, .decodeFailed, "the \(name) decoder failed (corrupt data?)")
        return .frame
    }

    /// Forgets buffered frames and leaves the draining state, for a seek back to the start.
    func flush() {
        rtenc_avcodec_flush_buffers(context)
    }
}
