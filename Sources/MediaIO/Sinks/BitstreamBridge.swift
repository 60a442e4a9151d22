import Bitstream

extension MediaIOError {
    /// A Bitstream failure seen while reading or writing a file: same story, this module's error type.
    /// Bitstream's code name is kept in the reason so nothing is lost in translation.
    static func bitstream(
        _ error: BitstreamError, _ context: String, frameIndex: Int? = nil, file: String = #fileID, line: UInt = #line
    ) -> Self {
        MediaIOError(code: .invalidFormat, reason: "\(context): \(error.code): \(error.reason)", frameIndex: frameIndex,
                     file: file, line: line)
    }
}
