import CLibAV

/// The status side of libav shared by every module that calls libav (EncoderSession, MediaIO): the status codes
/// that are states of a send/receive loop rather than errors, AV_NOPTS_VALUE, and FFmpeg's text for an AVERROR.
///
/// Each module keeps its own error type and adds, in its own `extension LibAV`, the one chokepoint that turns a
/// negative status into that error (`LibAV.error`/`LibAV.check`); the text and the constants come from here, once.
package enum LibAV {
    /// AVERROR(EAGAIN): the codec wants input before it can output, or output taken before it takes more input (a
    /// state of the loop, not an error).
    package static let again: Int32 = rtenc_averror_eagain()
    /// AVERROR_EOF: the demuxer, decoder or encoder has nothing more.
    package static let endOfFile: Int32 = rtenc_averror_eof()
    /// AVERROR(ENOMEM): an allocation inside libav failed.
    package static let outOfMemory: Int32 = rtenc_averror_enomem()
    /// AV_NOPTS_VALUE: no timestamp.
    package static let noTimestamp: Int64 = rtenc_nopts_value()

    /// Opens `library` (and the libraries it needs) unless it is open already: rtenc links no libav*/libva library
    /// but opens each on first use (`rtenc_libraries.h`), so commands that never encode, decode or demux never pay
    /// for them. nil when it is there; otherwise why not, naming the file ("libavcodec.so.59: cannot open shared
    /// object file: …"). Each module turns that into its own error in its `LibAV.load`.
    package static func loadFailure(_ library: rtenc_library) -> String? {
        guard rtenc_library_load(library) != 0 else { return nil }
        let reason = rtenc_library_load_error(library).map { String(cString: $0) } ?? "unknown reason"
        return "cannot load \(String(cString: rtenc_library_soname(library))): \(reason)"
    }

    /// FFmpeg's text for a status code (av_strerror). For a code FFmpeg has no text of its own for, av_strerror
    /// still writes "Error number <status> occurred"; "error <status>" only if it wrote nothing at all (or libavutil
    /// cannot be loaded).
    package static func message(for status: Int32) -> String {
        var text = [CChar](repeating: 0, count: 256)
        _ = text.withUnsafeMutableBufferPointer { rtenc_av_strerror(status, $0.baseAddress, $0.count) }
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return bytes.isEmpty ? "error \(status)" : String(decoding: bytes, as: UTF8.self)
    }
}
