import Bitstream
import CLibAV
import LibAVSupport

/// The one chokepoint where libav* return codes become `MediaIOError`s (the codes, their text and the loop states
/// come from the package's shared `LibAV`, in LibAVSupport).
///
/// Everything under `LibAV/` is the thin internal layer over libavformat/libavcodec/libswscale; the sources and
/// sinks above it never see a raw status code or an unowned C pointer.
extension LibAV {
    /// An error carrying the status and FFmpeg's text for it.
    static func error(
        _ code: MediaIOError.Code, _ reason: String, status: Int32, file: String = #fileID, line: UInt = #line
    ) -> MediaIOError {
        MediaIOError(
            code: code, reason: reason, status: status, libraryReason: message(for: status), file: file, line: line)
    }

    /// Opens `library` if it is not yet (rtenc opens libav* and libva on first use: rtenc_libraries.h). Called
    /// before the first call into it, so a missing library is a typed error naming the reason, not a failure later.
    static func load(_ library: rtenc_library, file: String = #fileID, line: UInt = #line) throws(MediaIOError) {
        guard let failure = loadFailure(library) else { return }
        throw MediaIOError.make(.libraryUnavailable, failure, file: file, line: line)
    }

    /// Throws for a negative status, passes a non-negative one through.
    @discardableResult
    static func check(
        _ status: Int32, _ code: MediaIOError.Code, _ reason: @autoclosure () -> String,
        file: String = #fileID, line: UInt = #line
    ) throws(MediaIOError) -> Int32 {
        if status < 0 { throw error(code, reason(), status: status, file: file, line: line) }
        return status
    }
}

/// An `AVPacket` with one owner.
final class OwnedPacket {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() throws(MediaIOError) {
        try LibAV.load(RTENC_LIBAVCODEC)
        guard let packet = rtenc_av_packet_alloc() else {
            throw MediaIOError.make(.io, "av_packet_alloc failed: out of memory")
        }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        rtenc_av_packet_free(&packet)
    }

    /// Drops the payload reference so the packet can be refilled.
    func unref() { rtenc_av_packet_unref(pointer) }

    var streamIndex: Int32 { pointer.pointee.stream_index }
    /// pts, nil for AV_NOPTS_VALUE.
    var pts: Int64? { pointer.pointee.pts == LibAV.noTimestamp ? nil : pointer.pointee.pts }
    /// dts, nil for AV_NOPTS_VALUE.
    var dts: Int64? { pointer.pointee.dts == LibAV.noTimestamp ? nil : pointer.pointee.dts }
    var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    /// A copy of the payload.
    var bytes: [UInt8] {
        guard let data = pointer.pointee.data, pointer.pointee.size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(pointer.pointee.size)))
    }

    /// Makes this packet hold a copy of `bytes` with the given timing (ticks of the stream's time base).
    func fill(bytes: [UInt8], pts: Int64, dts: Int64, duration: Int64, isKeyframe: Bool) throws(MediaIOError) {
        unref()
        try LibAV.check(rtenc_av_new_packet(pointer, Int32(bytes.count)), .muxFailed, "av_new_packet failed")
        bytes.withUnsafeBufferPointer { source in
            if let from = source.baseAddress, let to = pointer.pointee.data { to.update(from: from, count: source.count) }
        }
        pointer.pointee.pts = pts
        pointer.pointee.dts = dts
        pointer.pointee.duration = duration
        pointer.pointee.flags = isKeyframe ? AV_PKT_FLAG_KEY : 0
    }
}

/// An `AVFrame` with one owner.
final class OwnedFrame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() throws(MediaIOError) {
        try LibAV.load(RTENC_LIBAVUTIL)
        guard let frame = rtenc_av_frame_alloc() else {
            throw MediaIOError.make(.io, "av_frame_alloc failed: out of memory")
        }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        rtenc_av_frame_free(&frame)
    }

    func unref() { rtenc_av_frame_unref(pointer) }

    /// The decoder's best guess of the presentation time, else the frame's pts; nil when neither is known.
    var presentationTimestamp: Int64? {
        let frame = pointer.pointee
        if frame.best_effort_timestamp != LibAV.noTimestamp { return frame.best_effort_timestamp }
        return frame.pts == LibAV.noTimestamp ? nil : frame.pts
    }

    /// Duration of the packet the frame came from, in ticks; nil when unknown.
    var duration: Int64? { pointer.pointee.pkt_duration > 0 ? pointer.pointee.pkt_duration : nil }
}

extension AVRational {
    var rational: Rational { Rational(Int(num), Int(den)) }
    init(_ rational: Rational) { self.init(num: Int32(rational.numerator), den: Int32(rational.denominator)) }
}

extension LibAV {
    /// libavcodec's description of the encoder called `name`, or nil when this build has no such encoder.
    /// Throws when libavcodec cannot be loaded.
    static func encoderDescription(named name: String) throws(MediaIOError) -> String?? {
        try load(RTENC_LIBAVCODEC)
        guard let codec = rtenc_avcodec_find_encoder_by_name(name) else { return nil }
        return .some(codec.pointee.long_name.map { String(cString: $0) })
    }
}
