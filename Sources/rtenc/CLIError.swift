import ArgumentParser

/// A failure the CLI reports as one line on stderr and exit status 1.
///
/// Library errors (BitstreamError, EncoderSessionError, …) are wrapped with what the command was doing, so the line
/// reads "rtenc: inspect: cannot read foo.h264: No such file or directory".
struct CLIError: Error, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
