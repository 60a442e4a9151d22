#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NetworkEmulator
import RTPOut

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

extension CLIError {
    /// Opening sockets failed: "stream: cannot open the RTP sockets: bind 0.0.0.0:5004 failed: Address already in
    /// use; pick another port with --local-port". A failed system call reads as the call and strerror's text
    /// (RTPError gives both); a port that is taken names the option that picks another (`portOption`).
    static func sockets(_ context: String, _ error: any Error, portOption: String) -> CLIError {
        let (reason, code): (String, Int32?) = switch error {
        case let error as RTPError where error.code == .system: (error.reason, error.errno)
        case let error as NetworkEmulatorError: (error.reason, error.errno)
        default: ("\(error)", nil)
        }
        switch code {
        case EADDRINUSE: return CLIError("\(context): \(reason); pick another port with \(portOption)")
        case EADDRNOTAVAIL: return CLIError("\(context): \(reason); not an address of this machine")
        default: return CLIError("\(context): \(reason)")
        }
    }
}
