import CLibAV
import LibAVSupport
import LibAVLog

/// An opened input container (`AVFormatContext` from `avformat_open_input`) with one owner.
final class FormatInput {
    let path: String
    private var context: UnsafeMutablePointer<AVFormatContext>?

    /// Opens `path` and reads enough of it to know its streams (`avformat_find_stream_info`).
    init(path: String) throws(MediaIOError) {
        LibAVLog.installDefaultRoute()
        self.path = path
        try LibAV.load(RTENC_LIBAVFORMAT)
        var opened: UnsafeMutablePointer<AVFormatContext>?
        try LibAV.check(rtenc_avformat_open_input(&opened, path, nil, nil), .demuxFailed, "cannot open \(path)")
        context = opened
        try LibAV.check(rtenc_avformat_find_stream_info(opened, nil), .demuxFailed, "cannot read stream info of \(path)")
    }

    deinit {
        rtenc_avformat_close_input(&context)
    }

    private var formatContext: UnsafeMutablePointer<AVFormatContext> {
        // Non-nil from init to deinit: init throws before storing a failed open.
        context.unsafelyUnwrapped
    }

    /// The stream libavformat ranks best among the video streams (`av_find_best_stream`).
    func bestVideoStream() throws(MediaIOError) -> UnsafeMutablePointer<AVStream> {
        let index = rtenc_av_find_best_stream(formatContext, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0, let stream = stream(at: index) else {
            throw LibAV.error(.noVideoStream, "\(path) has no video stream", status: index)
        }
        return stream
    }

    /// `bestVideoStream()` described in Swift values.
    func bestVideoStreamInfo() throws(MediaIOError) -> StreamInfo {
        try StreamInfo(bestVideoStream(), path: path)
    }

    func stream(at index: Int32) -> UnsafeMutablePointer<AVStream>? {
        guard index >= 0, UInt32(index) < formatContext.pointee.nb_streams,
              let streams = formatContext.pointee.streams else { return nil }
        return streams[Int(index)]
    }

    /// Short name of the container format ("mov,mp4,m4a,3gp,3g2,mj2", "h264", …).
    var formatName: String {
        formatContext.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
    }

    /// Reads the next packet of any stream into `packet`; false at the end of the input.
    func readPacket(into packet: OwnedPacket) throws(MediaIOError) -> Bool {
        packet.unref()
        let status = rtenc_av_read_frame(formatContext, packet.pointer)
        if status == LibAV.endOfFile { return false }
        try LibAV.check(status, .demuxFailed, "cannot read \(path)")
        return true
    }

    /// Seeks `stream` back to its first keyframe at or before `timestamp` (in the stream's time base).
    func seek(stream index: Int32, to timestamp: Int64) throws(MediaIOError) {
        try LibAV.check(rtenc_av_seek_frame(formatContext, index, timestamp, AVSEEK_FLAG_BACKWARD), .demuxFailed,
                        "cannot seek in \(path)")
    }
}
