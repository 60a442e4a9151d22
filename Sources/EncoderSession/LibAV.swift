import CLibAV

/// The one chokepoint where libav return codes become `EncoderSessionError`s.
///
/// EAGAIN and EOF are not errors of the encode loop; callers test for them with `isAgain`/`isEndOfFile` before
/// calling `check`.
enum LibAV {
    static let again: Int32 = rtenc_encoder_averror_eagain()
    static let endOfFile: Int32 = rtenc_averror_eof()
    static let noPTS: Int64 = rtenc_encoder_nopts()

    /// FFmpeg's text for an AVERROR (av_strerror).
    static func message(for averror: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = buffer.withUnsafeMutableBufferPointer { av_strerror(averror, $0.baseAddress, $0.count) }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func error(
        _ code: EncoderSessionError.Code, _ reason: String, averror: Int32,
        file: String = #fileID, line: UInt = #line
    ) -> EncoderSessionError {
        EncoderSessionError(
            code: averror == rtenc_averror(ENOMEM) ? .outOfMemory : code, reason: reason, averror: averror,
            libavMessage: message(for: averror), file: file, line: line)
    }

    /// Throws when `result` is negative.
    @discardableResult
    static func check(
        _ result: Int32, _ call: String, code: EncoderSessionError.Code = .encodeFailed,
        file: String = #fileID, line: UInt = #line
    ) throws(EncoderSessionError) -> Int32 {
        guard result >= 0 else { throw error(code, "\(call) failed", averror: result, file: file, line: line) }
        return result
    }

    /// Sets an AVOption on a codec context or its private data (AV_OPT_SEARCH_CHILDREN).
    static func setOption(
        _ context: UnsafeMutablePointer<AVCodecContext>, _ name: String, _ value: String
    ) throws(EncoderSessionError) {
        try check(
            av_opt_set(context, name, value, AV_OPT_SEARCH_CHILDREN), "av_opt_set(\(name)=\(value))",
            code: .encoderOpenFailed)
    }
}

#if canImport(Glibc)
    import Glibc
#endif
