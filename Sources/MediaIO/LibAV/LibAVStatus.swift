#if canImport(Glibc)
import Glibc
#endif
import CLibAV

/// The one chokepoint where libav* return codes become `MediaIOError`s, and the few constants Swift cannot import.
///
/// Everything under `LibAV/` is the thin internal layer over libavformat/libavcodec/libswscale; the sources and
/// sinks above it never see a raw status code or an unowned C pointer.
enum LibAV {
    /// AVERROR_EOF: the demuxer or decoder has nothing more.
    static let endOfFile = rtenc_averror_eof()
    /// AVERROR(EAGAIN): the decoder wants input before it can output (a state of the loop, not an error).
    static let tryAgain = rtenc_averror(EAGAIN)
    /// AV_NOPTS_VALUE.
    static let noTimestamp = rtenc_mediaio_nopts_value()

    /// FFmpeg's text for a status code (`av_strerror`).
    static func describe(_ status: Int32) -> String {
        var text = [CChar](repeating: 0, count: 256)
        if av_strerror(status, &text, text.count) < 0 {
            return "error \(status)"
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An error carrying the status and FFmpeg's text for it.
    static func error(
        _ code: MediaIOError.Code, _ reason: String, status: Int32, file: String = #fileID, line: UInt = #line
    ) -> MediaIOError {
        MediaIOError(code: code, reason: reason, status: status, libraryReason: describe(status), file: file, line: line)
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
        guard let packet = av_packet_alloc() else {
            throw MediaIOError.make(.io, "av_packet_alloc failed: out of memory")
        }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    /// Drops the payload reference so the packet can be refilled.
    func unref() { av_packet_unref(pointer) }
}

/// An `AVFrame` with one owner.
final class OwnedFrame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() throws(MediaIOError) {
        guard let frame = av_frame_alloc() else {
            throw MediaIOError.make(.io, "av_frame_alloc failed: out of memory")
        }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    func unref() { av_frame_unref(pointer) }
}

extension AVRational {
    var rational: Rational { Rational(Int(num), Int(den)) }
}
