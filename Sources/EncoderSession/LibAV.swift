import CLibAV
import LibAVSupport

/// The one chokepoint where libav return codes become `EncoderSessionError`s (the codes, their text and the loop
/// states come from the package's shared `LibAV`, in LibAVSupport).
///
/// EAGAIN and EOF are not errors of the encode loop; callers test for `LibAV.again`/`LibAV.endOfFile` before calling
/// `check`.
extension LibAV {
    static func error(
        _ code: EncoderSessionError.Code, _ reason: String, averror: Int32,
        file: String = #fileID, line: UInt = #line
    ) -> EncoderSessionError {
        EncoderSessionError(
            code: averror == outOfMemory ? .outOfMemory : code, reason: reason, averror: averror,
            libavMessage: message(for: averror), file: file, line: line)
    }

    /// Opens `library` if it is not yet (rtenc opens libav on first use), or throws `.libraryUnavailable` with the
    /// loader's reason. Called before the first libav call of an encoder.
    static func load(_ library: rtenc_library, file: String = #fileID, line: UInt = #line) throws(EncoderSessionError) {
        guard let failure = loadFailure(library) else { return }
        throw EncoderSessionError(code: .libraryUnavailable, reason: failure, file: file, line: line)
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
            rtenc_av_opt_set(context, name, value, AV_OPT_SEARCH_CHILDREN), "rtenc_av_opt_set(\(name)=\(value))",
            code: .encoderOpenFailed)
    }
}
